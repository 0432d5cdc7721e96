"""The /zeroquiz command and the answer buttons, registered on a Bolt AsyncApp.

Both acknowledge first (Slack gives 3 seconds), then call the core, then reply privately through
the request's response_url: nothing personal is ever posted to the channel.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond

from adapters.slack.blocks import (
    ANSWER_ACTION_PREFIX,
    SlackMessage,
    feedback_message,
    notice_message,
    reply_message,
)
from adapters.slack.inflight import Inflight
from adapters.slack.port import PLATFORM
from adapters.slack.users import SlackUsers
from bot.commands import Context, dispatch, parse_text
from bot.i18n import t
from bot.model import ChannelRef, Lang, UserRef
from bot.quiz import Quiz
from bot.views import Feedback, NoticeView

log = logging.getLogger(__name__)

COMMAND = "/zeroquiz"
ANSWER_ACTION = re.compile(rf"^{ANSWER_ACTION_PREFIX}[A-E]$")


class SlackHandlers:
    def __init__(self, quiz: Quiz, users: SlackUsers, inflight: Inflight) -> None:
        self.quiz = quiz
        self.users = users
        self.inflight = inflight

    def register(self, app: AsyncApp) -> None:
        app.command(COMMAND)(self.on_command)
        app.action(ANSWER_ACTION)(self.on_answer)

    async def on_command(
        self, ack: AsyncAck, command: dict[str, Any], respond: AsyncRespond
    ) -> None:
        await ack()
        async with self.inflight:
            team = str(command.get("team_id", ""))
            channel = ChannelRef(PLATFORM, team, str(command.get("channel_id", "")))
            user_id = str(command.get("user_id", ""))
            try:
                name = await self.users.display_name(user_id, str(command.get("user_name", "")))
                ctx = Context(
                    channel=channel,
                    user=UserRef(PLATFORM, team, user_id, name),
                    is_admin=lambda: self.users.is_admin(user_id),
                )
                reply = await dispatch(self.quiz, parse_text(str(command.get("text", ""))), ctx)
                message = reply_message(reply)
            except Exception:
                log.exception("/zeroquiz failed in channel %s", channel.channel)
                lang = await self._lang(channel)
                message = notice_message(NoticeView(lang, t(lang, "slack_failed"), ok=False))
            await self._respond(respond, message)

    async def on_answer(self, ack: AsyncAck, body: dict[str, Any], respond: AsyncRespond) -> None:
        await ack()
        async with self.inflight:
            user = body.get("user") or {}
            team = str((body.get("team") or {}).get("id") or user.get("team_id") or "")
            user_id = str(user.get("id", ""))
            actions = body.get("actions") or [{}]
            parsed = _parse_value(str(actions[0].get("value", "")))
            try:
                if parsed is None:
                    feedback = Feedback("unknown", "en", t("en", "feedback_unknown"))
                else:
                    name = await self.users.display_name(user_id, str(user.get("username", "")))
                    who = UserRef(PLATFORM, team, user_id, name)
                    feedback = await self.quiz.answer(parsed[0], who, parsed[1])
                message = feedback_message(feedback)
            except Exception:
                log.exception("answer by %s failed", user_id)
                message = notice_message(NoticeView("en", t("en", "slack_failed"), ok=False))
            await self._respond(respond, message)

    async def _respond(self, respond: AsyncRespond, message: SlackMessage) -> None:
        try:
            await respond(
                text=message.text,
                blocks=message.blocks,
                response_type="ephemeral",
                replace_original=False,
            )
        except Exception as exc:  # the answer is recorded; only the private reply is lost
            log.warning("private reply not delivered: %s", type(exc).__name__)

    async def _lang(self, channel: ChannelRef) -> Lang:
        try:
            return await self.quiz.channel_lang(channel)
        except Exception:
            return "en"


def _parse_value(value: str) -> tuple[int, int] | None:
    """A button's value is `round_id:option_index`, as written by blocks.question_message."""
    round_id, _, index = value.partition(":")
    if not (round_id.isdigit() and index.isdigit()):
        return None
    return int(round_id), int(index)
