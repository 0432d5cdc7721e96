"""The Report control on Discord: the button under a private verdict (or a review's) opens a
modal with the reasons (a select) and a short note; its submission is stored by the core
(bot/reports.py) and answered ephemerally. The button's custom_id carries the language and the
question, so a click after a restart needs nothing kept in memory. A report holds no key."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import discord

from adapters.discord.render import CUSTOM_ID_MAX, REPORT_PREFIX
from bot.i18n import t
from bot.model import Lang, UserRef, parse_lang
from bot.quiz import Quiz
from bot.reports import NOTE_MAX
from bot.storage.reports import REASONS
from bot.views import NoticeView

Reply = Callable[[discord.Interaction, NoticeView], Awaitable[None]]
MODAL_ID = "zq_report"


def report_custom_id(lang: Lang, question_id: str) -> str:
    return f"{REPORT_PREFIX}{lang}:{question_id}"[:CUSTOM_ID_MAX]


def reported(custom_id: str) -> tuple[Lang, str] | None:
    """(language, question id) from a Report button's custom_id, or None if it isn't one."""
    code, colon, question = custom_id.removeprefix(REPORT_PREFIX).partition(":")
    lang = parse_lang(code) if custom_id.startswith(REPORT_PREFIX) and colon else None
    return (lang, question) if lang is not None and question else None


def report_button(lang: Lang, question_id: str) -> discord.ui.Button[Any]:
    return discord.ui.Button(
        label=t(lang, "report_button")[:80],
        style=discord.ButtonStyle.secondary,
        custom_id=report_custom_id(lang, question_id),
    )


class ReportModal(discord.ui.Modal):
    def __init__(
        self, quiz: Quiz, lang: Lang, question_id: str, who: UserRef, reply: Reply
    ) -> None:
        super().__init__(title=t(lang, "report_modal_title")[:45], custom_id=MODAL_ID)
        self.quiz, self.lang, self.question_id, self.who, self.reply = (
            quiz, lang, question_id, who, reply,
        )  # fmt: skip
        self.reason: discord.ui.Select[ReportModal] = discord.ui.Select(
            custom_id="reason",
            options=[
                discord.SelectOption(label=t(lang, f"report_reason_{r}")[:100], value=r)
                for r in REASONS
            ],
        )
        self.note: discord.ui.TextInput[ReportModal] = discord.ui.TextInput(
            label=t(lang, "report_modal_note")[:45], custom_id="note", required=False,
            style=discord.TextStyle.paragraph, max_length=NOTE_MAX,
        )  # fmt: skip
        self.add_item(
            discord.ui.Label(text=t(lang, "report_modal_reason")[:45], component=self.reason)
        )
        self.add_item(self.note)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        reason = self.reason.values[0] if self.reason.values else ""
        said = await self.quiz.report(
            self.who, self.question_id, reason, self.note.value, self.lang
        )
        await self.reply(interaction, said)
