"""This process's lease on its Discord shards: claimed before the gateway connection, renewed
while it runs, given up when it stops.

A second process with the same bot token on the same shards would answer every click a second
time, so it refuses to start instead (a ConfigError saying which shards are taken and how to split
them). A lease lives `ttl` after its last renewal; renewals come every third of that, on the
injected clock. A holder that crashed on this machine is seen to be gone at once (holder.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from itertools import groupby

from adapters.discord.holder import Holder, alive, this_process
from adapters.discord.shards import ShardPlan, describe
from adapters.runtime import SurfaceUnavailable
from bot.clock import Clock
from bot.storage import ShardLease
from bot.storage.shards import ShardTable

log = logging.getLogger(__name__)

LEASE_TTL = timedelta(seconds=30)


class ShardsTaken(SurfaceUnavailable):
    """Another live process runs some of the shards this one would run: transient (exit 75),
    since they are free again once that process stops or its lease runs out."""


def refusal(plan: ShardPlan, taken: list[ShardLease], now: datetime, ttl: timedelta) -> str:
    count, ids = plan.leased
    holders = []
    for token, leases in groupby(sorted(taken, key=lambda t: t.holder), key=lambda t: t.holder):
        mine = list(leases)
        ago = max(0, round((now - max(t.renewed_at for t in mine)).total_seconds()))
        shards = describe(mine[0].shard_count, [t.shard_id for t in mine])
        holders.append(f"{shards} by {_where(token)} (lease renewed {ago} s ago)")
    return (
        f"the Discord shards this process would run ({describe(count, ids)}) are taken by "
        f"another process with the same bot token: {'; '.join(holders)}. Give each process its "
        "own shards with DISCORD_SHARD_COUNT and DISCORD_SHARD_IDS (for example "
        "DISCORD_SHARD_COUNT=2, and DISCORD_SHARD_IDS=0 on one process and 1 on the other), or "
        f"stop the other process; a crashed one's shards are free {ttl.total_seconds():g} s "
        "after its last renewal"
    )


class LeaseKeeper:
    def __init__(
        self,
        leases: ShardTable,
        clock: Clock,
        plan: ShardPlan,
        *,
        ttl: timedelta = LEASE_TTL,
        holder: Holder | None = None,
    ) -> None:
        self.leases = leases
        self.clock = clock
        self.plan = plan
        self.ttl = ttl
        self.holder = holder or this_process()
        self.bot_id: int | None = None
        self.on_lost: Callable[[], Awaitable[None]] | None = None
        self._task: asyncio.Task[None] | None = None

    async def claim(self, bot_id: int) -> None:
        """Claim this process's shards of the bot, or raise ShardsTaken."""
        count, ids = self.plan.leased
        taken = await self.leases.claim(
            bot_id, count, ids, self.holder.token, self.clock.now(), self.ttl
        )
        ended = sorted({t.holder for t in taken if self._ended(t.holder)})
        for token in ended:  # its process is gone: nobody will renew this lease again
            await self.leases.release(bot_id, token)
        if ended:
            taken = await self.leases.claim(
                bot_id, count, ids, self.holder.token, self.clock.now(), self.ttl
            )
        if taken:
            raise ShardsTaken(refusal(self.plan, taken, self.clock.now(), self.ttl))
        for token in ended:
            log.warning("discord: took over the shards of %s, which has ended", _where(token))
        self.bot_id = bot_id
        self._task = asyncio.create_task(self._renew(bot_id, len(ids)), name="shard-lease")

    def _ended(self, token: str) -> bool:
        holder = Holder.parse(token)
        return holder is not None and alive(holder, self.holder) is False

    async def _renew(self, bot_id: int, shards: int) -> None:
        count, ids = self.plan.leased
        while True:
            await self.clock.sleep_until(self.clock.now() + self.ttl / 3)
            token, now = self.holder.token, self.clock.now()
            try:
                if await self.leases.renew(bot_id, token, now, self.ttl) == shards:
                    continue
                # Not renewed in time (the database was away?): claim again, which checks that
                # nobody took the shards over meanwhile.
                taken = await self.leases.claim(bot_id, count, ids, token, now, self.ttl)
            except Exception as exc:  # the database is busy or away: the next renewal retries
                log.warning("discord: could not renew the shard lease (%s)", exc)
                continue
            if not taken:
                log.warning("discord: the shard lease had lapsed; claimed the shards again")
                continue
            log.error(
                "discord: %s took over this process's shards (its lease was not renewed for "
                "%g s); disconnecting from Discord so that clicks are not answered twice",
                _where(taken[0].holder),
                self.ttl.total_seconds(),
            )
            if self.on_lost is not None:
                await self.on_lost()
            return

    async def release(self) -> None:
        """Stop renewing and give the shards up (after the connection has closed)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self.bot_id is not None:
            await self.leases.release(self.bot_id, self.holder.token)
            self.bot_id = None


def _where(token: str) -> str:
    holder = Holder.parse(token)
    return holder.where if holder is not None else "another process"
