"""The Report control on Slack: the button under a private verdict (or a review's) opens a form
with the reasons and a short note; its submission is stored by the core (bot/reports.py) and
answered privately where the button was, through the clicked message's response_url.

The form carries the question, the language, the channel and that response_url in its
private_metadata. A report holds no key: nothing here shows which option is right.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncAck

from adapters.slack.port import PLATFORM
from adapters.slack.render import SlackMessage, notice_message
from adapters.slack.shapes import VIEWS, Click, Malformed, click_of, submission_of
from adapters.slack.users import SlackUsers
from adapters.slack.web import error_code
from bot.i18n import t
from bot.model import Lang, UserRef, parse_lang
from bot.quiz import Quiz
from bot.reports import NOTE_MAX
from bot.storage.reports import REASONS
from bot.views import NoticeView

log = logging.getLogger(__name__)

REPORT_VIEW = VIEWS[2]


def report_modal(lang: Lang, metadata: str) -> dict[str, Any]:
    """The reason (one of five) and an optional note of at most NOTE_MAX characters."""
    options = [
        {"text": {"type": "plain_text", "text": t(lang, f"report_reason_{r}")[:75]}, "value": r}
        for r in REASONS
    ]
    return {
        "type": "modal",
        "callback_id": REPORT_VIEW,
        "title": {"type": "plain_text", "text": t(lang, "report_modal_title")[:24]},
        "submit": {"type": "plain_text", "text": t(lang, "report_button")[:24]},
        "private_metadata": metadata,
        "blocks": [
            {
                "type": "input",
                "block_id": "reason",
                "label": {"type": "plain_text", "text": t(lang, "report_modal_reason")},
                "element": {"type": "static_select", "action_id": "reason", "options": options},
            },
            {
                "type": "input",
                "block_id": "note",
                "optional": True,
                "label": {"type": "plain_text", "text": t(lang, "report_modal_note")},
                "element": {
                    "type": "plain_text_input",
                    "action_id": "note",
                    "multiline": True,
                    "max_length": NOTE_MAX,
                },
            },
        ],
    }


def reported(value: str) -> tuple[Lang, str] | None:
    """(language, question id) from the button's value "lang|question id"."""
    code, bar, question = value.partition("|")
    lang = parse_lang(code) if bar else None
    return (lang, question) if lang is not None and question else None


class SlackReports:
    """Opens the Report form and stores what it sends."""

    def __init__(
        self, quiz: Quiz, users: SlackUsers, reply: Callable[[str, SlackMessage], Awaitable[None]]
    ) -> None:
        self.quiz = quiz
        self.users = users
        self.reply = reply

    async def on_click(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        """Acknowledge at once (nothing is recorded by a click), then open the form."""
        await ack()
        click = click_of(body)
        if isinstance(click, Malformed) or click.trigger_id is None:
            log.warning("slack: ignored a Report click without what opens a form")
            return
        found = reported(click.value)
        if found is None:
            log.warning("slack: ignored a Report click with a value that isn't ours")
            return
        await self._open(click, *found)

    async def _open(self, click: Click, lang: Lang, question: str) -> None:
        metadata = json.dumps(
            {"q": question, "l": lang, "c": click.channel, "u": click.response_url}
        )
        try:
            token = await self.users.tokens(click.team) if self.users.tokens else None
            extra = {"token": token} if token is not None else {}
            view = report_modal(lang, metadata)
            await self.users.client.views_open(trigger_id=click.trigger_id, view=view, **extra)
        except Exception as exc:
            log.warning("slack: opening the report form failed: %s", error_code(exc))
            if click.response_url:
                await self.reply(click.response_url, _notice(lang, t(lang, "slack_failed")))

    async def on_submit(self, ack: AsyncAck, body: dict[str, Any]) -> None:
        """Store the report; the form closes and the answer comes back privately."""
        await ack()
        sent = submission_of(body)
        if isinstance(sent, Malformed):
            log.warning("slack: ignored a %s", sent)
            return
        try:
            meta = json.loads(sent.metadata)
            question, lang = str(meta["q"]), parse_lang(str(meta["l"])) or "en"
            url = str(meta.get("u") or "")
        except (ValueError, KeyError, TypeError):
            log.warning("slack: a report form without its question: ignored")
            return
        name = self.users.known_name(sent.user, team=sent.team) or ""
        who = UserRef(PLATFORM, sent.team, sent.user, name)
        reason = sent.values.get("reason", "")
        said = await self.quiz.report(who, question, reason, sent.values.get("note", ""), lang)
        if url:
            await self.reply(url, _notice(lang, said.text, ok=said.ok))


def _notice(lang: Lang, text: str, *, ok: bool = False) -> SlackMessage:
    return notice_message(NoticeView(lang, text, ok=ok))
