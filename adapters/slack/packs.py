"""Slack's forms for a team's question packs: `/zeroquiz pack add` opens a modal where a YAML
pack is pasted, `/zeroquiz pack question` one where a single question is written.

The modal carries the channel and the command's response_url in its private_metadata, so the
verdict (saved, or every problem as `zeroquiz validate` prints it) comes back privately in the
channel where the command was typed, as every other /zeroquiz answer does. Admins only: asked
when the modal opens and again when it is submitted (a modal outlives a change of rights).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncAck

from adapters.slack.port import PLATFORM
from adapters.slack.render import SlackMessage, notice_message
from adapters.slack.shapes import VIEWS, Malformed, SlashCommand, submission_of
from adapters.slack.users import SlackUsers
from adapters.slack.web import error_code
from bot.i18n import t
from bot.model import ChannelRef, Lang, TeamRef
from bot.quiz import Quiz
from bot.teampacks import PASTED
from bot.views import NoticeView

log = logging.getLogger(__name__)

PACK_VIEW, QUESTION_VIEW = VIEWS[0], VIEWS[1]
INPUT_MAX = 3000  # Slack's plain_text_input max_length
ERROR_MAX = 150  # what a modal shows under an input


def _input(
    block: str, label: str, *, multiline: bool = False, hint: str = "", optional: bool = False
) -> dict[str, Any]:
    element: dict[str, Any] = {
        "type": "plain_text_input",
        "action_id": block,
        "multiline": multiline,
        "max_length": INPUT_MAX,
    }
    if hint:
        element["placeholder"] = {"type": "plain_text", "text": hint[:150]}
    return {
        "type": "input",
        "block_id": block,
        "label": {"type": "plain_text", "text": label},
        "element": element,
        "optional": optional,
    }


def pack_modal(lang: Lang, metadata: str) -> dict[str, Any]:
    """Paste a pack: its name (optional when the YAML has `name:`) and its YAML."""
    return _modal(
        PACK_VIEW,
        t(lang, "pack_modal_title"),
        lang,
        metadata,
        [
            _input("name", t(lang, "pack_modal_name"), hint=t(lang, "pack_modal_name_hint"),
                   optional=True),
            _input("yaml", t(lang, "pack_modal_yaml"), multiline=True),
        ],
    )  # fmt: skip


def question_modal(lang: Lang, metadata: str) -> dict[str, Any]:
    """Write one question: the pack it joins, the prompt, options (`*` the right one), why."""
    return _modal(
        QUESTION_VIEW,
        t(lang, "question_modal_title"),
        lang,
        metadata,
        [
            _input("pack", t(lang, "question_modal_pack"), hint=t(lang, "pack_modal_name_hint")),
            _input("prompt", t(lang, "question_modal_prompt"), multiline=True),
            _input("options", t(lang, "question_modal_options"), multiline=True,
                   hint=t(lang, "question_modal_options_hint")),
            _input("explanation", t(lang, "question_modal_explanation"), multiline=True),
        ],
    )  # fmt: skip


def _modal(
    callback: str, title: str, lang: Lang, metadata: str, blocks: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "type": "modal",
        "callback_id": callback,
        "title": {"type": "plain_text", "text": title[:24]},  # Slack: at most 24 characters
        "submit": {"type": "plain_text", "text": t(lang, "pack_modal_submit")[:24]},
        "private_metadata": metadata,
        "blocks": blocks,
    }


class SlackPacks:
    """Opens the modals and answers their submissions."""

    def __init__(
        self,
        quiz: Quiz,
        users: SlackUsers,
        reply: Callable[[str, SlackMessage], Awaitable[None]],
    ) -> None:
        self.quiz = quiz
        self.users = users
        self.reply = reply

    @staticmethod
    def wants_form(words: tuple[str, ...]) -> str | None:
        """ "add" or "question" when the command opens a form; None for the others."""
        if len(words) >= 2 and words[0] == "pack" and words[1].lower() in ("add", "question"):
            return words[1].lower()
        return None

    async def open(self, command: SlashCommand, which: str, lang: Lang) -> None:
        """Admins get the modal; anyone else the private "admins only"."""
        if not await self.users.is_admin(command.user, team=command.team):
            await self.reply(command.response_url, _notice(lang, t(lang, "not_admin"), ok=False))
            return
        metadata = json.dumps({"c": command.channel, "u": command.response_url})
        view = pack_modal(lang, metadata) if which == "add" else question_modal(lang, metadata)
        try:
            token = await self.users.tokens(command.team) if self.users.tokens else None
            extra = {"token": token} if token is not None else {}
            await self.users.client.views_open(trigger_id=command.trigger_id, view=view, **extra)
        except Exception as exc:
            log.warning("slack: opening the pack form failed: %s", error_code(exc))
            failed = _notice(lang, t(lang, "slack_failed"), ok=False)
            await self.reply(command.response_url, failed)

    async def on_submit(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        """Check and store; the modal closes and the verdict comes back privately. A broken
        pack also keeps the modal open with its first problem under the YAML."""
        sent = submission_of(body)
        if isinstance(sent, Malformed):
            await ack()
            log.warning("slack: ignored a %s", sent)  # ShapeCheck refuses these first
            return
        where = _metadata(sent.metadata)
        if where is None:
            await ack()
            log.warning("slack: a pack form without its channel: ignored")
            return
        channel_id, url = where
        channel = ChannelRef(PLATFORM, sent.team, channel_id)
        lang = await self.quiz.channel_lang(channel)
        if not await self.users.is_admin(sent.user, team=sent.team):
            await ack()
            await self.reply(url, _notice(lang, t(lang, "not_admin"), ok=False))
            return
        team = TeamRef(PLATFORM, sent.team)
        v = sent.values
        if sent.callback_id == PACK_VIEW:
            added = await self.quiz.packs.add_any(
                team, v.get("yaml", ""), label=PASTED, name=v.get("name") or None,
                by=sent.user, lang=lang,
            )  # fmt: skip
            block = "yaml"
        else:
            added = await self.quiz.packs.add_question(
                team, v.get("pack", ""), v.get("prompt", ""), v.get("options", ""),
                v.get("explanation", ""), by=sent.user, lang=lang,
            )  # fmt: skip
            block = "options"
        if added.problems:
            first = added.problems[0]
            await ack(response_action="errors", errors={block: first[:ERROR_MAX]})
        else:
            await ack()
        await self.reply(url, notice_message(added.notice))


def _notice(lang: Lang, text: str, *, ok: bool) -> SlackMessage:
    return notice_message(NoticeView(lang, text, ok=ok))


def _metadata(text: str) -> tuple[str, str] | None:
    """(channel id, response_url) this code put in the modal; None for anything else."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    channel, url = data.get("c"), data.get("u")
    if not isinstance(channel, str) or not isinstance(url, str) or not url.startswith("http"):
        return None
    return channel, url
