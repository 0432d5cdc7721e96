"""The discord.py client: no privileged intents, no mentions; buttons and commands set up once."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import discord
from discord import app_commands

from adapters.discord import clicks, inbound
from adapters.discord.handlers import Handler
from adapters.discord.shards import IdentifyPacer, ShardPlan
from adapters.discord.sync import sync_if_changed
from adapters.discord.translator import CatalogueTranslator
from adapters.discord.tree import build_group
from bot.storage.syncs import CommandSyncTable
from bot.topics import topics

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


class Tree(app_commands.CommandTree["ZeroQuizClient"]):
    """/zeroquiz, with its payloads checked before discord.py reads their options."""

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        return not inbound.refused(interaction)

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        if isinstance(error, MISMATCHES):
            # Discord sent a command that isn't ours as registered: an older version it still
            # shows, or bad input. Not a fault of the code: one line, and the person is told.
            log.warning(
                "discord: refused a command that doesn't match /zeroquiz (%s)", type(error).__name__
            )
            await self.client.handler.on_mismatched_command(interaction)
            return
        log.error("app command error: %s", error, exc_info=error)


RATE_LIMIT_WAIT_MOST = 30.0  # seconds


class ZeroQuizClient(discord.AutoShardedClient):
    """Runs the shards of `shards` (all that Discord recommends when the plan names none).

    `before_connect` gets the bot's user id once logged in and before anything else talks to
    Discord (the shard lease is claimed there: a refused process syncs and connects nothing).
    """

    def __init__(
        self,
        handler: Handler,
        *,
        guild_id: int | None,
        syncs: CommandSyncTable,
        shards: ShardPlan,
        pacer: IdentifyPacer,
        before_connect: Callable[[int], Awaitable[None]] | None = None,
        connector: aiohttp.BaseConnector | None = None,
        gateway: Callable[[], Awaitable[tuple[int, int] | None]] | None = None,
    ) -> None:
        options: dict[str, Any] = {"shard_count": shards.count}
        if shards.ids is not None:
            options["shard_ids"] = list(shards.ids)
        super().__init__(
            intents=intents(),
            allowed_mentions=discord.AllowedMentions.none(),
            chunk_guilds_at_startup=False,
            connector=connector,
            # A route's rate limit longer than this raises discord.RateLimited instead of
            # sleeping inside the call: the send is then "passing" and tried again later, so a
            # held channel or server does not keep a slot of the scheduled sends (bot/fanout.py)
            # meanwhile. 30 s is the least discord.py allows.
            max_ratelimit_timeout=RATE_LIMIT_WAIT_MOST,
            **options,
        )
        self.handler = handler
        self.guild_id = guild_id
        self.syncs = syncs
        self.pacer = pacer
        self.before_connect = before_connect
        self.gateway = gateway
        self.tree = Tree(self)
        self.synced: bool | None = None  # None until the registration has run, or if it failed
        self.sync_done = asyncio.Event()
        self.sync_task: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()  # every shard of this process has connected
        self.shard_connected = asyncio.Event()  # one more has (start-up waits shard by shard)
        self.connected_shards: set[int] = set()

    async def setup_hook(self) -> None:
        assert self.user is not None
        if self.before_connect is not None:
            await self.before_connect(self.user.id)
        # One GET /gateway/bot: how many IDENTIFYs at once, and the shard count Discord advises
        # (set here, so discord.py asks no second time).
        found = await self.gateway() if self.gateway is not None else None
        if found is not None:
            recommended, self.pacer.max_concurrency = found[0], max(1, found[1])
            if self.shard_count is None:
                self.shard_count = recommended
        await self.tree.set_translator(CatalogueTranslator())
        self.tree.add_command(
            build_group(self.handler.on_command, lambda: topics(self.handler.quiz.bank))
        )
        # The registration (when the commands changed, or on a new database) runs beside the
        # gateway's connection instead of before it: off the path to the first answer, and a
        # command can't be used before Discord has it either way.
        self.sync_task = asyncio.create_task(self.register_commands(), name="zeroquiz-command-sync")

    async def register_commands(self) -> None:
        assert self.application_id is not None
        try:
            self.synced = await sync_if_changed(
                self.tree, self.application_id, self.guild_id, self.syncs
            )
        except Exception as exc:  # the hash isn't recorded: tried again at the next start
            log.error(
                "discord: registering the commands failed (%s: %s); the next start tries again",
                type(exc).__name__,
                exc,
            )
        finally:
            self.sync_done.set()

    async def close(self) -> None:
        task = self.sync_task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await super().close()

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Every click on a component, ours or not (commands go to the tree, a modal's
        submission to its modal)."""
        if interaction.type is discord.InteractionType.component and not inbound.refused(
            interaction
        ):
            await clicks.route(self.handler, interaction)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        await self.pacer.wait(shard_id)

    @property
    def own_shards(self) -> set[int]:
        """The shards this process runs (known once the connection has begun)."""
        if self.shard_ids is not None:
            return set(self.shard_ids)
        return set(range(self.shard_count or 1))

    async def on_shard_connect(self, shard_id: int) -> None:
        """A shard's READY arrived: its guilds' interactions flow from now on.

        discord.py's `on_ready` fires `guild_ready_timeout` (2 s) after the last GUILD_CREATE, so
        that its guild cache is complete; nothing here reads that cache, so start-up needn't wait.
        """
        self.connected_shards.add(shard_id)
        self.shard_connected.set()
        if self.connected_shards >= self.own_shards:
            self.connected.set()
