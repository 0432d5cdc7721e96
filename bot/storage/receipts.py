"""Receipts of commands carried out, so a command the platform delivers again is done once.

Keyed by the platform's own id of the request (Slack's `trigger_id`, Discord's interaction id),
taken in the transaction that carries the command out. Bounded: each take first sweeps the
receipts older than the window a platform can repeat a request in (Slack signs a request for 5
minutes, a Discord interaction lives 15), with an index on their time.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.periods import to_ms
from bot.storage.engine import Engine


class ReceiptTable:
    def __init__(self, engine: Engine) -> None:
        self._e = engine

    async def take(self, platform: str, receipt: str, now: datetime, keep: timedelta) -> bool:
        """True the first time this request is seen within `keep`; False for a repeat."""
        async with self._e.transaction() as tx:
            await tx.execute(
                "DELETE FROM command_receipts WHERE received_at < $1", to_ms(now - keep)
            )
            added = await tx.execute(
                """INSERT INTO command_receipts (platform, receipt, received_at)
                   VALUES ($1, $2, $3) ON CONFLICT DO NOTHING""",
                platform, receipt, to_ms(now),
            )  # fmt: skip
        return added == 1

    async def count(self) -> int:
        """Receipts kept (what the sweep bounds)."""
        async with self._e.reader() as c:
            return int(await c.fetchval("SELECT COUNT(*) FROM command_receipts"))
