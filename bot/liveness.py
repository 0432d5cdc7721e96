"""A serving replica says "still here" in the database every BEAT; the others take over the claims
(daily posts, reminder sends, a round's post or reveal) of one silent for DEAD_AFTER, so a replica
that dies delays its work by seconds, not by the claims' leases (minutes). A clean stop says
"gone" at once. The leases stay as the fallback for a holder that never beat (an older version).

Exactly once still holds when a slow replica is taken for dead: every take-over is a
compare-and-swap on the claim, and a taken-over send carries its dedupe key (Discord's nonce,
Slack's look-back), so the slow replica's late send is dropped or found.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime, timedelta

from bot.clock import Clock
from bot.storage import Store

log = logging.getLogger(__name__)

BEAT = timedelta(seconds=5)
DEAD_AFTER = timedelta(seconds=15)  # three beats missed


def silent_since(now: datetime) -> datetime:
    """A holder last seen at or before this is taken for dead."""
    return now - DEAD_AFTER


def claim_wakes(
    now: datetime,
    lease_ends: datetime,
    stale_here: bool,
    last_beat: datetime | None,
) -> list[datetime]:
    """When to look at unfinished claims again (daily posts, reminder sends): when the oldest
    one's lease ends; at once if one is stale and this process may take it (its own from before
    a restart, say); and when another holder, last seen at `last_beat`, would count as dead, no
    sooner than a beat from now (no busy loop over a claim this replica may not take)."""
    wakes = [lease_ends]
    if stale_here:
        wakes.append(now)
    if last_beat is not None:
        wakes.append(max(last_beat + DEAD_AFTER, now + BEAT))
    return wakes


class Heartbeat:
    def __init__(self, store: Store, clock: Clock, holder: str) -> None:
        self.store = store
        self.clock = clock
        self.holder = holder
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._beat(), name="zeroquiz-heartbeat")

    async def stop(self) -> None:
        """Stop beating and say this replica is gone: its unfinished claims are anyone's now."""
        if self._task is None:
            return
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None
        try:
            await self.store.replicas.stopped(self.holder)
        except Exception:  # the database is going away too: the others wait DEAD_AFTER
            log.warning("could not record this replica's stop; others take over in %s", DEAD_AFTER)

    async def _beat(self) -> None:
        while True:
            try:
                await self.store.replicas.beat(self.holder, self.clock.now())
            except Exception:  # a passing database failure: the next beat may land
                log.warning("heartbeat not recorded; trying again in %s", BEAT, exc_info=True)
            await self.clock.sleep_until(self.clock.now() + BEAT)
