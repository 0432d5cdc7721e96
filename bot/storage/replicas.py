"""Each serving replica's last beat (bot/liveness.py), which the claim tables read: a claim whose
holder has gone silent is taken over at once instead of after its lease."""

from __future__ import annotations

from datetime import datetime

from bot.periods import from_ms, to_ms
from bot.storage.engine import Conn, Engine

# A claim token names its holder (`holder/…`, bot/daily/service.py): the claim `p` is held by
# replica `r`.
HELD_BY = "substr(p.claim_token, 1, length(r.holder) + 1) = r.holder || '/'"
# True when the holder of claim `p` was last seen at or before the bound given.
SILENT_HOLDER = f"EXISTS (SELECT 1 FROM replicas r WHERE r.seen_at <= {{bound}} AND {HELD_BY})"


async def last_beat_of_holders(c: Conn, claims: str, own: str) -> datetime | None:
    """The earliest last beat among the replicas, other than `own`, that hold a claim of the
    `claims` table (daily_posts, reminder_sends): when the first of them could be called dead."""
    found = await c.fetchval(
        f"""SELECT MIN(r.seen_at) FROM {claims} p JOIN replicas r ON {HELD_BY}
            WHERE p.status = 'claimed' AND r.holder != $1""",
        own,
    )
    return from_ms(int(found)) if found is not None else None


class ReplicaTable:
    def __init__(self, engine: Engine) -> None:
        self._e = engine

    async def beat(self, holder: str, now: datetime) -> None:
        async with self._e.transaction() as tx:
            await tx.execute(
                """INSERT INTO replicas (holder, seen_at) VALUES ($1, $2)
                   ON CONFLICT (holder) DO UPDATE SET seen_at = excluded.seen_at""",
                holder,
                to_ms(now),
            )

    async def stopped(self, holder: str) -> None:
        """A clean stop: this replica's claims left unfinished are anyone's at once."""
        async with self._e.transaction() as tx:
            await tx.execute("UPDATE replicas SET seen_at = 0 WHERE holder = $1", holder)
