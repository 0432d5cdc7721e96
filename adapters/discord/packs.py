"""Discord's ways to add to a team's question packs: `/zeroquiz pack action:add file:<yaml>`
reads the attached file, `/zeroquiz pack action:question` opens a modal for one question.

Admins only (Manage Server, asked at run time: Discord's default permissions are only a hint),
asked again when the modal is submitted. The verdict is private: saved, or every problem as
`zeroquiz validate` prints it, named by the attachment's file name.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from pathlib import PurePath

import discord

from bot.bank.packs import MAX_PACK_BYTES
from bot.i18n import t
from bot.model import Lang, TeamRef
from bot.quiz import Quiz
from bot.views import NoticeView

log = logging.getLogger(__name__)

MODAL_ID = "zq:packq"
NO_MENTIONS = discord.AllowedMentions.none()
Reply = Callable[[discord.Interaction, NoticeView], Awaitable[None]]


def team_of(interaction: discord.Interaction) -> TeamRef:
    return TeamRef("discord", str(interaction.guild_id or 0))


class QuestionModal(discord.ui.Modal):
    """One question: the pack it joins, the prompt, the options (`*` the right one), why."""

    def __init__(self, quiz: Quiz, lang: Lang, reply: Reply) -> None:
        super().__init__(title=t(lang, "question_modal_title")[:45], custom_id=MODAL_ID)
        self.quiz, self.lang, self.reply = quiz, lang, reply
        self.pack: discord.ui.TextInput[QuestionModal] = discord.ui.TextInput(
            label=t(lang, "question_modal_pack")[:45], custom_id="pack", max_length=40,
            placeholder=t(lang, "pack_modal_name_hint")[:100],
        )  # fmt: skip
        self.prompt: discord.ui.TextInput[QuestionModal] = discord.ui.TextInput(
            label=t(lang, "question_modal_prompt")[:45], custom_id="prompt",
            style=discord.TextStyle.paragraph, max_length=400,
        )  # fmt: skip
        self.options: discord.ui.TextInput[QuestionModal] = discord.ui.TextInput(
            label=t(lang, "question_modal_options")[:45], custom_id="options",
            style=discord.TextStyle.paragraph, max_length=800,
            placeholder=t(lang, "question_modal_options_hint")[:100],
        )  # fmt: skip
        self.explanation: discord.ui.TextInput[QuestionModal] = discord.ui.TextInput(
            label=t(lang, "question_modal_explanation")[:45], custom_id="explanation",
            style=discord.TextStyle.paragraph, max_length=1000,
        )  # fmt: skip
        for item in (self.pack, self.prompt, self.options, self.explanation):
            self.add_item(item)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        if not interaction.permissions.manage_guild:
            await self.reply(
                interaction, NoticeView(self.lang, t(self.lang, "not_admin"), ok=False)
            )
            return
        added = await self.quiz.packs.add_question(
            team_of(interaction), self.pack.value, self.prompt.value, self.options.value,
            self.explanation.value, by=str(interaction.user.id), lang=self.lang,
        )  # fmt: skip
        await self.reply(interaction, added.notice)


class DiscordPacks:
    def __init__(self, quiz: Quiz, reply: Reply) -> None:
        self.quiz = quiz
        self.reply = reply

    @staticmethod
    def wants_form(name: str, args: tuple[str, ...]) -> str | None:
        if name == "pack" and args and args[0] in ("add", "question"):
            return args[0]
        return None

    async def run(self, interaction: discord.Interaction, which: str, lang: Lang) -> None:
        if not interaction.permissions.manage_guild:
            await self.reply(interaction, NoticeView(lang, t(lang, "not_admin"), ok=False))
            return
        if which == "question":
            await interaction.response.send_modal(QuestionModal(self.quiz, lang, self.reply))
            return
        file = getattr(interaction.namespace, "file", None)
        if not isinstance(file, discord.Attachment):
            await self.reply(interaction, NoticeView(lang, t(lang, "pack_add_here"), ok=False))
            return
        label = PurePath(file.filename).name[:80] or "pack.yaml"
        if file.size > MAX_PACK_BYTES:
            text = f"{label}: pack is larger than {MAX_PACK_BYTES} bytes"
            await self.reply(interaction, NoticeView(lang, text, ok=False))
            return
        await interaction.response.defer(ephemeral=True, thinking=True)  # the download
        data = await file.read()
        name = getattr(interaction.namespace, "name", None)
        added = await self.quiz.packs.add_any(
            team_of(interaction), data.decode("utf-8", errors="surrogateescape"), label=label,
            name=name if isinstance(name, str) else None, by=str(interaction.user.id), lang=lang,
            default_name=PurePath(label).stem.lower(),
        )  # fmt: skip
        await self.reply(interaction, added.notice)
