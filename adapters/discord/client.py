"""The discord.py client: no privileged intents, no mentions; buttons and commands set up once."""

from __future__ import annotations

import asyncio
import logging

import discord
from discord import app_commands

from adapters.discord import inbound
from adapters.discord.buttons import AnswerButton
from adapters.discord.handlers import Handler
from adapters.discord.sync import SyncState, sync_if_changed
from adapters.discord.translator import CatalogueTranslator
from adapters.discord.tree import build_group

log = logging.getLogger(__name__)

MISMATCHES = (
    app_commands.CommandNotFound,
    app_commands.CommandSignatureMismatch,
    app_commands.TransformerError,
)


def intents() -> discord.Intents:
    """Slash commands and buttons arrive without any intent; `guilds` keeps channel names cached."""
    chosen = discord.Intents.none()
    chosen.guilds = True
    return chosen


# The bot never joins voice: silence discord.py's start-up warnings about voice libraries.
discord.VoiceClient.warn_nacl = False
discord.VoiceClient.warn_dave = False


class ZeroQuizClient(discord.Client):
    def __init__(
        self,
        handler: Handler,
        *,
        guild_id: int | None,
        sync_state: SyncState | None,
    ) -> None:
        super().__init__(
            intents=intents(),
            allowed_mentions=discord.AllowedMentions.none(),
            chunk_guilds_at_startup=False,
        )
        self.handler = handler
        self.guild_id = guild_id
        self.sync_state = sync_state
        self.tree = app_commands.CommandTree(self)
        self.tree.on_error = self._on_tree_error  # type: ignore[method-assign]
        self.synced: bool | None = None
        self.connected = asyncio.Event()
        inbound.guard(self._connection.parsers)  # a malformed interaction can't end the client

    async def setup_hook(self) -> None:
        self.add_dynamic_items(AnswerButton)
        await self.tree.set_translator(CatalogueTranslator())
        self.tree.add_command(build_group(self.handler.on_command))
        assert self.application_id is not None
        self.synced = await sync_if_changed(
            self.tree, self.application_id, self.guild_id, self.sync_state
        )

    async def on_connect(self) -> None:
        """READY arrived: interactions flow from now on.

        discord.py's `on_ready` fires `guild_ready_timeout` (2 s) after the last GUILD_CREATE, so
        that its guild cache is complete; nothing here reads that cache, so start-up needn't wait.
        """
        self.connected.set()

    async def _on_tree_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        if isinstance(error, MISMATCHES):
            # Discord sent a command that isn't ours as registered: an older version it still
            # shows, or bad input. Not a fault of the code: one line, and the person is told.
            log.warning(
                "discord: refused a command that doesn't match /zeroquiz (%s)", type(error).__name__
            )
            await self.handler.on_mismatched_command(interaction)
            return
        log.error("app command error: %s", error, exc_info=error)
