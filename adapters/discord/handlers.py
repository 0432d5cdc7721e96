"""What happens on a click or a slash command: core call, then one ephemeral reply.

Clicks answer straight away (the core's answer is one short transaction, well inside Discord's
3 seconds). Commands that post or edit public messages defer first, since that needs more round
trips to Discord; their reply then edits the deferred response in place (discord.py's documented
path, `edit_original_response`), which stays ephemeral as it was deferred.

In a thread or a forum post (a thread too) posting needs Send Messages in Threads instead of
Send Messages, so the pre-check asks for that one there.
"""

from __future__ import annotations

import asyncio
import functools
import io
import logging

import aiohttp
import discord

from adapters.discord.buttons import report_view, review_buttons
from adapters.discord.packs import DiscordPacks
from adapters.discord.render import (
    REPORT_PREFIX,
    direct_parts,
    feedback_embed,
    reply_embed,
    review_embed,
    review_token,
)
from adapters.discord.reporting import ReportModal, reported
from adapters.discord.typed import TypedModal, typed_target
from adapters.guard import apologise_on_error
from adapters.inflight import InFlight
from adapters.metrics import Metrics
from adapters.text import storable
from bot.commands import POSTING_COMMANDS, Command, Context, Reply, accept
from bot.i18n import t
from bot.model import ChannelRef, Lang, UserRef
from bot.presenter import FEEDBACK_CACHE
from bot.quiz import Quiz
from bot.views import Feedback, NoticeView, ReviewView

PLATFORM = "discord"
# What the bot needs in a channel to post or edit there (for the registry's posting commands).
NEEDED = ("view_channel", "send_messages", "embed_links")
NEEDED_IN_THREAD = ("view_channel", "send_messages_in_threads", "embed_links")
THREADS = frozenset(
    {
        discord.ChannelType.public_thread,  # forum and media posts are public threads as well
        discord.ChannelType.private_thread,
        discord.ChannelType.news_thread,
    }
)
NO_MENTIONS = discord.AllowedMentions.none()
# A verdict that failed in passing is sent once more if this much of Discord's 3-second window
# is still left. discord.py's webhook client retries 5xx itself; a cut connection it doesn't.
RETRY_WITHIN = 2.0
RETRY_AFTER = 0.3
ALREADY_ANSWERED = 40060  # Discord's code: the cut-off first try had arrived after all

log = logging.getLogger(__name__)


def channel_ref(interaction: discord.Interaction) -> ChannelRef:
    return ChannelRef(PLATFORM, str(interaction.guild_id or 0), str(interaction.channel_id or 0))


def user_ref(interaction: discord.Interaction, guild: str | None = None) -> UserRef:
    """The person in the interaction's server (`guild`: in a direct message, the server the
    clicked button names)."""
    user = interaction.user
    name = storable(user.display_name)  # the name comes from the payload as sent
    team = str(interaction.guild_id) if interaction.guild_id else (guild or "0")
    return UserRef(PLATFORM, team, str(user.id), name)


def pack_file(view: NoticeView) -> list[discord.File]:
    """The exported pack's YAML as an attachment, byte for byte as it was added."""
    if view.file is None:
        return []
    data = view.file.body.encode("utf-8", errors="surrogateescape")
    return [discord.File(io.BytesIO(data), filename=view.file.filename)]


def message_ref(interaction: discord.Interaction) -> str | None:
    """Where the component's message is, "channel id:message id" (a stray copy's reference):
    in the interaction's channel."""
    message, channel = interaction.message, interaction.channel_id
    return None if message is None or channel is None else f"{channel}:{message.id}"


def in_thread(interaction: discord.Interaction) -> bool:
    """Whether the command came from a thread (or a forum post), by the channel's type."""
    return getattr(interaction.channel, "type", None) in THREADS


def missing_permission(perms: discord.Permissions, *, thread: bool = False) -> str | None:
    """The first permission the bot lacks for public posts, as a catalogue key suffix."""
    needed = NEEDED_IN_THREAD if thread else NEEDED
    return next((name for name in needed if not getattr(perms, name)), None)


@functools.lru_cache(maxsize=FEEDBACK_CACHE)
def verdict(feedback: Feedback) -> tuple[discord.Embed, discord.ui.View | None]:
    """A click's private reply, built once per distinct verdict (every click on one option of a
    round gets the same one, as the core's cached Feedback): only read when sent, the embed and
    the stopped Report view are safe to share."""
    report = report_view(feedback.lang, feedback.question_id) if feedback.question_id else None
    return feedback_embed(feedback), report


class Handler:
    def __init__(self, quiz: Quiz, gate: InFlight, *, metrics: Metrics) -> None:
        self.quiz = quiz
        self.metrics = metrics
        self.gate = gate
        self.packs = DiscordPacks(quiz, self._reply)  # `pack add` (a file), `pack question`

    async def on_click(self, interaction: discord.Interaction, round_id: int, option: int) -> None:
        if not self.gate.enter():
            return
        try:
            async with apologise_on_error(
                f"click on round {round_id}", lambda: self._fail(interaction, "en")
            ):
                began = asyncio.get_running_loop().time()
                who = user_ref(interaction)
                feedback = await self.metrics.answer(
                    PLATFORM, lambda: self.quiz.rounds.answer(round_id, who, option)
                )
                await self._verdict(interaction, *verdict(feedback), began)
                copy = message_ref(interaction)
                if feedback.status == "closed" and copy is not None:
                    await self.quiz.reveals.stray(round_id, copy)  # a crash's stray copy, if any
        finally:
            self.gate.leave()

    async def _verdict(
        self,
        interaction: discord.Interaction,
        embed: discord.Embed,
        view: discord.ui.View | None,
        began: float,
    ) -> None:
        markup = view if view is not None else discord.utils.MISSING
        send = interaction.response.send_message
        try:
            await send(embed=embed, view=markup, ephemeral=True, allowed_mentions=NO_MENTIONS)
        except (discord.DiscordServerError, aiohttp.ClientError) as exc:
            loop = asyncio.get_running_loop()
            if interaction.response.is_done() or loop.time() - began > RETRY_WITHIN:
                raise
            log.warning("verdict failed for now (%s); sending it once more", type(exc).__name__)
            await asyncio.sleep(RETRY_AFTER)
            try:
                await send(embed=embed, view=markup, ephemeral=True, allowed_mentions=NO_MENTIONS)
            except discord.HTTPException as again:
                if again.code != ALREADY_ANSWERED:
                    raise
                log.info("the verdict had reached Discord after all")
        except discord.HTTPException as exc:
            if exc.code != ALREADY_ANSWERED:
                raise
            # The same interaction delivered twice: the first answer stands (the core recorded
            # the click once), as for a command.
            log.warning("discord: a click was answered already")

    async def on_review(
        self, interaction: discord.Interaction, token: str, *, guild: str | None = None
    ) -> None:
        """A review button: the card is rescheduled (one short transaction), then the step
        replaces the ephemeral message clicked (UPDATE_MESSAGE), within Discord's 3 seconds.
        In a direct message (`guild` given) the step's buttons name the server again."""
        if not self.gate.enter():
            return
        try:
            async with apologise_on_error("a review click", lambda: self._fail(interaction, "en")):
                who = user_ref(interaction, guild)
                step = await self.metrics.review(
                    PLATFORM, token, lambda: self.quiz.review_click(who, token)
                )
                if step is None:
                    lang = await self.quiz.channel_lang(channel_ref(interaction))
                    invalid = NoticeView(lang, t(lang, "button_invalid"), ok=False)
                    await self._reply(interaction, invalid)
                    return
                direct = None if interaction.guild_id else guild
                await interaction.response.edit_message(
                    embed=review_embed(step), view=review_buttons(step, guild=direct)
                )
        finally:
            self.gate.leave()

    async def on_report(
        self, interaction: discord.Interaction, custom_id: str, *, guild: str | None = None
    ) -> None:
        """The Report control: the modal opens at once (the interaction's answer); what it
        sends is stored by ReportModal.on_submit."""
        found = reported(custom_id)
        if found is None:
            await self.on_invalid_click(interaction)
            return
        async with apologise_on_error("a report click", lambda: self._fail(interaction, "en")):
            modal = ReportModal(self.quiz, *found, user_ref(interaction, guild), self._reply)
            await interaction.response.send_modal(modal)

    async def on_direct(self, interaction: discord.Interaction, custom_id: str) -> None:
        """A review's button in a direct message (a reminder's): the server from the custom_id,
        then as in the server."""
        parts = direct_parts(custom_id)
        token = review_token(parts[1]) if parts is not None else None
        if parts is not None and token is not None:
            await self.on_review(interaction, token, guild=parts[0])
        elif parts is not None and parts[1].startswith(REPORT_PREFIX):
            await self.on_report(interaction, parts[1], guild=parts[0])
        else:
            await self.on_invalid_click(interaction)

    async def on_typed(self, interaction: discord.Interaction, custom_id: str) -> None:
        """Type it: the modal opens at once (the interaction's answer) unless the round is over
        or unknown, which is said privately; what it sends goes to `typed_submitted` (a round's)
        or `card_typed` (a review or drill card's)."""
        target = typed_target(custom_id)
        if target is None:
            await self.on_invalid_click(interaction)
            return
        async with apologise_on_error("a Type it click", lambda: self._fail(interaction, "en")):
            if isinstance(target, int):
                form = await self.quiz.typed.form(target, user_ref(interaction))
                submit = functools.partial(self.typed_submitted, target)
            else:
                invalid = Feedback("unknown", "en", t("en", "button_invalid"))
                form = await self.quiz.typed.card_form(target) or invalid
                submit = functools.partial(self.card_typed, target)
            if isinstance(form, Feedback):
                await interaction.response.send_message(
                    embed=feedback_embed(form), ephemeral=True, allowed_mentions=NO_MENTIONS
                )
                return
            await interaction.response.send_modal(TypedModal(form, submit))

    async def card_typed(self, token: str, interaction: discord.Interaction, text: str) -> None:
        """A review or drill card's number: the card rescheduled (committed), then the next
        step replaces the card (UPDATE_MESSAGE); what is no number leaves it as it is."""
        if not self.gate.enter():
            return
        try:
            async with apologise_on_error(
                "a typed review answer", lambda: self._fail(interaction, "en")
            ):
                who = user_ref(interaction)
                step = await self.metrics.review(
                    PLATFORM, token, lambda: self.quiz.review_click(who, token, typed=text)
                )
                if step is None or (isinstance(step, NoticeView) and not step.ok):
                    invalid = NoticeView("en", t("en", "button_invalid"), ok=False)
                    await self._reply(interaction, step or invalid)
                    return
                await interaction.response.edit_message(
                    embed=review_embed(step), view=review_buttons(step)
                )
        finally:
            self.gate.leave()

    async def typed_submitted(
        self, round_id: int, interaction: discord.Interaction, text: str
    ) -> None:
        """The number typed in the modal: graded and recorded (committed), then answered
        ephemerally with the verdict; what is no number counts nothing and says how to type."""
        if not self.gate.enter():
            return
        try:
            async with apologise_on_error(
                f"a typed answer to round {round_id}", lambda: self._fail(interaction, "en")
            ):
                who = user_ref(interaction)
                feedback = await self.metrics.answer(
                    PLATFORM, lambda: self.quiz.typed.answer(round_id, who, text)
                )
                report = report_view(feedback.lang, feedback.question_id)
                await interaction.response.send_message(
                    embed=feedback_embed(feedback),
                    view=report if feedback.question_id else discord.utils.MISSING,
                    ephemeral=True,
                    allowed_mentions=NO_MENTIONS,
                )
        finally:
            self.gate.leave()

    async def on_invalid_click(self, interaction: discord.Interaction) -> None:
        """A button under our prefix that isn't a round and an option."""
        await self._notice(interaction, "a click on an invalid button", "button_invalid")

    async def on_foreign_click(self, interaction: discord.Interaction) -> None:
        """A component whose custom_id isn't ZeroQuiz's: "that button isn't mine"."""
        log.info("discord: a click on a component that isn't ours: answered privately")
        await self._notice(interaction, "a click on a foreign component", "button_not_mine")

    async def on_mismatched_command(self, interaction: discord.Interaction) -> None:
        """A command discord.py couldn't match to /zeroquiz as registered."""
        await self._notice(interaction, "a mismatched command", "discord_command_mismatch")

    async def _notice(self, interaction: discord.Interaction, what: str, key: str) -> None:
        """Say privately, in the channel's language, why nothing happened."""
        if not self.gate.enter():
            return
        lang: Lang = "en"
        try:
            async with apologise_on_error(what, lambda: self._fail(interaction, lang)):
                lang = await self.quiz.channel_lang(channel_ref(interaction))
                await self._reply(interaction, NoticeView(lang, t(lang, key), ok=False))
        finally:
            self.gate.leave()

    async def on_command(self, interaction: discord.Interaction, command: Command) -> None:
        if not self.gate.enter():
            return
        channel = channel_ref(interaction)
        lang: Lang = "en"
        try:
            async with apologise_on_error(
                f"/zeroquiz {command.name}", lambda: self._fail(interaction, lang)
            ):
                lang = await self.quiz.channel_lang(channel)  # the apology speaks it too
                try:
                    await self._command(interaction, command, channel, lang)
                except discord.HTTPException as exc:
                    if exc.code != ALREADY_ANSWERED:
                        raise
                    # The same interaction delivered twice: the first answer stands (a posting
                    # command stops at its defer, before anything is posted).
                    log.warning("/zeroquiz %s was answered already", command.name)
        finally:
            self.gate.leave()

    async def _command(
        self, interaction: discord.Interaction, command: Command, channel: ChannelRef, lang: Lang
    ) -> None:
        form = self.packs.wants_form(command.name, command.args)
        if form is not None:
            await self.packs.run(interaction, form, lang)
            return
        if command.name in POSTING_COMMANDS:
            lacking = missing_permission(interaction.app_permissions, thread=in_thread(interaction))
            if lacking is not None:
                name = t(lang, f"discord_perm_{lacking}")
                text = t(lang, "discord_missing_permission", permission=name)
                await self._reply(interaction, NoticeView(lang, text, ok=False))
                return

        async def is_admin() -> bool:
            return interaction.permissions.manage_guild

        # Accepted before Discord is told anything: the receipt of this interaction (delivered
        # twice, it is done once), its rates and, for `question` and `start`, its round are
        # committed, so a command Discord saw acknowledged is carried out even if the process
        # dies right after (the next start posts the round).
        ctx = Context(channel, user_ref(interaction), is_admin)
        accepted = await accept(self.quiz, command, ctx, receipt=str(interaction.id))
        if accepted.rest is not None and command.name in POSTING_COMMANDS:
            await interaction.response.defer(ephemeral=True, thinking=True)
        await self._reply(interaction, await accepted.finish())

    async def _reply(self, interaction: discord.Interaction, view: Reply) -> None:
        # `pack export`: the YAML rides along as a file (whole, whatever its length).
        files = pack_file(view) if isinstance(view, NoticeView) else []
        embed = reply_embed(view)
        # The review's letter buttons ride in its private reply; other replies have none.
        buttons = review_buttons(view) if isinstance(view, ReviewView) else None
        markup: discord.ui.View = buttons if buttons is not None else discord.utils.MISSING
        attached: list[discord.File] = files or discord.utils.MISSING
        if interaction.response.is_done():  # deferred (ephemeral): the reply replaces "thinking"
            await interaction.edit_original_response(
                embed=embed, allowed_mentions=NO_MENTIONS, view=markup, attachments=attached
            )
        else:
            await interaction.response.send_message(
                embed=embed,
                ephemeral=True,
                allowed_mentions=NO_MENTIONS,
                view=markup,
                files=attached,
            )

    async def _fail(self, interaction: discord.Interaction, lang: Lang) -> None:
        await self._reply(interaction, NoticeView(lang, t(lang, "discord_failed"), ok=False))
