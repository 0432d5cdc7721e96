"""Leases on a bot's gateway shards, so two processes never serve the same guilds at once.

Discord delivers a guild's events to every connection that identified with its shard, so two
processes on one shard would both answer each click. A process claims its shards here before it
connects and renews the claim while it runs; a crashed holder's claim expires. A row is one shard
of one bot: (bot, shard) is the key, so a second claim of the same shard must replace the first
row, which it may only do when that row is its own or has expired (compare-and-swap).

Shards of different counts can overlap too (shard 0 of 2 holds every guild of shard 0 and 2 of
4): a guild is in shard `(guild >> 22) % count`, so shard `a` of `m` and shard `b` of `n` share
guilds exactly when `a ≡ b (mod gcd(m, n))`. "All shards" is kept as shard 0 of 1, which
overlaps every shard. The claim checks that against every live lease in its transaction.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import NamedTuple

from bot.periods import from_ms, to_ms
from bot.storage.engine import Engine, Record

SHARD_LOCK = 0x5A5153 << 32  # advisory lock space for shard claims, per bot


class ShardLease(NamedTuple):
    shard_id: int
    shard_count: int
    holder: str
    renewed_at: datetime
    expires_at: datetime


def overlaps(a_id: int, a_count: int, b_id: int, b_count: int) -> bool:
    """Whether shard `a_id` of `a_count` and shard `b_id` of `b_count` share any guild."""
    return (a_id - b_id) % math.gcd(a_count, b_count) == 0


class _Lost(Exception):
    """A shard row changed hands after the check (a concurrent claim won it): roll back."""


def _lease(row: Record) -> ShardLease:
    return ShardLease(
        shard_id=int(row["shard_id"]),
        shard_count=int(row["shard_count"]),
        holder=str(row["holder"]),
        renewed_at=from_ms(int(row["renewed_at"])),
        expires_at=from_ms(int(row["expires_at"])),
    )


LIVE = """SELECT shard_id, shard_count, holder, renewed_at, expires_at FROM shard_leases
          WHERE bot_id = $1 AND expires_at > $2 ORDER BY shard_id"""


class ShardTable:
    def __init__(self, engine: Engine) -> None:
        self._e = engine

    async def live(self, bot_id: int, now: datetime) -> list[ShardLease]:
        """Every lease of the bot that has not expired, by shard."""
        async with self._e.snapshot() as c:
            rows = await c.fetch(LIVE, bot_id, to_ms(now))
        return [_lease(r) for r in rows]

    async def claim(
        self,
        bot_id: int,
        count: int,
        ids: Sequence[int],
        holder: str,
        now: datetime,
        ttl: timedelta,
    ) -> list[ShardLease]:
        """Claim shards `ids` of `count` for `holder` until `now + ttl`, all or none.

        Returns the live leases of other holders that share guilds with them (nothing was
        claimed then), or [] once every one of them is this holder's.
        """
        try:
            async with self._e.transaction() as tx:
                if tx.dialect == "postgres":
                    # Read-then-write across shard counts: claimants of one bot take turns, as
                    # SQLite's single writer makes them anyway.
                    await tx.execute("SELECT pg_advisory_xact_lock($1)", SHARD_LOCK ^ bot_id)
                rows = await tx.fetch(LIVE, bot_id, to_ms(now))
                taken = [_lease(r) for r in rows if r["holder"] != holder]
                conflicts = [
                    lease
                    for lease in taken
                    if any(overlaps(i, count, lease.shard_id, lease.shard_count) for i in ids)
                ]
                if conflicts:
                    return conflicts
                for shard_id in ids:
                    changed = await tx.execute(
                        """INSERT INTO shard_leases
                               (bot_id, shard_id, shard_count, holder, renewed_at, expires_at)
                           VALUES ($1, $2, $3, $4, $5, $6)
                           ON CONFLICT (bot_id, shard_id) DO UPDATE SET
                               shard_count = excluded.shard_count, holder = excluded.holder,
                               renewed_at = excluded.renewed_at, expires_at = excluded.expires_at
                           WHERE shard_leases.holder = excluded.holder
                              OR shard_leases.expires_at <= excluded.renewed_at""",
                        bot_id, shard_id, count, holder, to_ms(now), to_ms(now + ttl),
                    )  # fmt: skip
                    if changed != 1:
                        raise _Lost
        except _Lost:
            others = [lease for lease in await self.live(bot_id, now) if lease.holder != holder]
            return others or await self.claim(bot_id, count, ids, holder, now, ttl)
        return []

    async def renew(self, bot_id: int, holder: str, now: datetime, ttl: timedelta) -> int:
        """Extend the holder's live leases to `now + ttl`; returns how many it renewed. One it
        let expire is not revived here (another process may hold an overlapping one by now):
        the holder claims again, which checks."""
        async with self._e.transaction() as tx:
            return await tx.execute(
                """UPDATE shard_leases SET renewed_at = $1, expires_at = $2
                   WHERE bot_id = $3 AND holder = $4 AND expires_at > $1""",
                to_ms(now), to_ms(now + ttl), bot_id, holder,
            )  # fmt: skip

    async def release(self, bot_id: int, holder: str) -> None:
        """Give up the holder's leases (a clean stop, or a holder known to be dead)."""
        async with self._e.transaction() as tx:
            await tx.execute(
                "DELETE FROM shard_leases WHERE bot_id = $1 AND holder = $2", bot_id, holder
            )
