"""The Discord surface for `zeroquiz serve`: built from the environment, started beside others.

The port is registered when the surface is built (before the scheduler's first pass), so a reveal
that falls due while the client is still connecting is retried by the core instead of dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from functools import partial

import discord

from adapters.discord.client import ZeroQuizClient
from adapters.discord.config import DiscordConfig, config_from_env
from adapters.discord.handlers import Handler
from adapters.discord.lease import LeaseKeeper
from adapters.discord.port import DiscordPort
from adapters.discord.shards import IdentifyPacer, bot_gateway
from adapters.inflight import InFlight
from adapters.logs import brief
from adapters.metrics import cause_chain
from adapters.runtime import ConfigError, Runtime, SurfaceUnavailable

log = logging.getLogger(__name__)

READY_TIMEOUT = 60.0
DRAIN_TIMEOUT = 10.0
CLOSE_SECONDS = 5.0  # after client.close(), what its task may take to end before it is cancelled


class DiscordSurface:
    name = "discord"

    def __init__(
        self,
        config: DiscordConfig,
        runtime: Runtime,
        *,
        ready_timeout: float = READY_TIMEOUT,
    ) -> None:
        self.config = config
        self.runtime = runtime
        self.ready_timeout = ready_timeout
        self.gate = InFlight("Discord")
        self.lease = LeaseKeeper(runtime.store.shards, runtime.clock, config.shards)
        connector = config.connector()
        self.client = ZeroQuizClient(
            Handler(runtime.quiz, self.gate, metrics=runtime.metrics),
            guild_id=config.guild_id,
            syncs=runtime.store.command_syncs,
            shards=config.shards,
            pacer=IdentifyPacer(runtime.clock),
            before_connect=self.lease.claim,
            connector=connector,
            gateway=partial(bot_gateway, connector, config.token),
        )
        self.lease.on_lost = self.client.close
        metrics = runtime.metrics
        self.port = DiscordPort(
            self.client,
            runtime.clock,
            seconds=runtime.timeouts.discord,
            on_timeout=lambda call: metrics.count_timeout("discord", call),
        )
        runtime.add_port(self.port, _rate_limited)
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    async def start(self) -> None:
        """Log in, claim the shards, sync commands if needed, connect every shard; returns once
        all of this process's shards are connected (never blocks on discord.py's `on_ready`).
        The timeout counts from the last shard that connected: Discord paces a bot's IDENTIFYs,
        so many shards take a while."""
        self._task = asyncio.create_task(self.client.start(self.config.token), name="discord")
        if await self._connected():
            self._task.add_done_callback(self._report_end)
            return
        error = None
        if self._task.done() and not self._task.cancelled():
            error = self._task.exception()
        await self._shutdown()
        if isinstance(error, ConfigError):
            raise error
        if isinstance(error, discord.LoginFailure):
            raise ConfigError(
                "DISCORD_TOKEN was rejected by Discord (401 Unauthorized): copy the bot token "
                "again from the Developer Portal (your application → Bot → Reset Token)"
            )
        if error is not None:
            raise SurfaceUnavailable(
                f"could not connect to Discord: {type(error).__name__}: {error}"
            )
        raise SurfaceUnavailable(f"Discord did not become ready within {self.ready_timeout:.0f} s")

    async def _connected(self) -> bool:
        """Whether every shard connected before the client's task ended or a shard took longer
        than the timeout."""
        assert self._task is not None
        while not self.client.connected.is_set():
            self.client.shard_connected.clear()
            step = asyncio.create_task(self.client.shard_connected.wait())
            done, _ = await asyncio.wait(
                {self._task, step}, timeout=self.ready_timeout, return_when=asyncio.FIRST_COMPLETED
            )
            step.cancel()
            if step not in done:
                return False
        return True

    async def ready(self) -> bool:
        """Every shard connected, and the client neither closed nor ended (lost for good)."""
        if self._task is None or self._task.done() or self.client.is_closed():
            return False
        if not self.client.connected.is_set():
            return False
        return all(not shard.is_closed() for shard in self.client.shards.values())

    async def stop(self) -> None:
        """Refuse new interactions, finish those acknowledged, close the connection, then give
        the shards up for another process."""
        await self.gate.close(DRAIN_TIMEOUT)
        await self._shutdown()

    async def _shutdown(self) -> None:
        self._stopping = True
        await self.client.close()
        if self._task is not None:
            # A reconnect in flight (discord.py gives one 60 s) may outlive the close: bounded,
            # so SIGTERM stops the process in seconds whatever the gateway's address does.
            done, _ = await asyncio.wait({self._task}, timeout=CLOSE_SECONDS)
            if not done:
                log.warning("discord: the connection did not end %s s after close", CLOSE_SECONDS)
                self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
        await self.lease.release()

    def _report_end(self, task: asyncio.Task[None]) -> None:
        """discord.py reconnects by itself; if its task still ends (an error such as a revoked
        token, or the shards' lease lost) while nobody is stopping it, the surface is lost."""
        if self._stopping:
            return
        error = None if task.cancelled() else task.exception()
        log.error("the Discord connection ended: %s", brief(error))
        self.runtime.surface_lost("discord", f"the connection ended ({brief(error)})")


def _rate_limited(exc: BaseException) -> bool:
    return any(
        isinstance(e, discord.RateLimited)
        or (isinstance(e, discord.HTTPException) and e.status == 429)
        for e in cause_chain(exc)
    )


def surface_from_env(env: Mapping[str, str], runtime: Runtime) -> DiscordSurface | None:
    """None if DISCORD_TOKEN is unset; ConfigError naming any malformed variable."""
    config = config_from_env(env)
    if config is None:
        return None
    return DiscordSurface(config, runtime)
