"""Live answer counts on posted questions, coalesced: at most one edit per round per interval.

The interval holds across replicas too: each edit is taken in the database first
(`take_count_edit`), and a replica that finds one was just made schedules its own for later.

Platforms rate-limit message edits (Slack chat.update is Tier 3; Discord limits edits per channel),
so a burst of 100 clicks becomes one edit now and one after the interval, never 100.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta

from bot.clock import Clock
from bot.delivery import Delivery
from bot.rounds import Rounds
from bot.storage import Store

log = logging.getLogger(__name__)

DEFAULT_INTERVAL = timedelta(seconds=5)


class LiveTally:
    def __init__(
        self,
        store: Store,
        clock: Clock,
        rounds: Rounds,
        delivery: Delivery,
        *,
        interval: timedelta = DEFAULT_INTERVAL,
    ) -> None:
        """`rounds` tells of each recorded answer and holds the round's message lock; the edit
        itself goes through `delivery`."""
        self.store = store
        self.clock = clock
        self.rounds = rounds
        self.delivery = delivery
        self.interval = interval
        self._last: dict[int, datetime] = {}
        self._pending: dict[int, asyncio.Task[None]] = {}  # refresh not started yet, per round
        self._running: dict[asyncio.Task[None], datetime] = {}  # every live task -> due time
        rounds.on_answer(self.poke)

    def poke(self, round_id: int) -> None:
        """An answer was recorded: make sure one refresh of this round is scheduled."""
        if round_id in self._pending:
            return
        last = self._last.get(round_id)
        due = self.clock.now() if last is None else max(self.clock.now(), last + self.interval)
        task = asyncio.create_task(self._refresh(round_id, due))
        self._pending[round_id] = task
        self._running[task] = due
        task.add_done_callback(self._running.pop)

    async def _refresh(self, round_id: int, due: datetime) -> None:
        try:
            await self.clock.sleep_until(due)
            # Leave the pending slot before reading, so answers arriving during the edit
            # schedule the next refresh instead of being lost.
            self._pending.pop(round_id, None)
            self._last[round_id] = self.clock.now()
            await self._edit(round_id)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the database (a platform failure is Delivery's, never raised)
            log.warning("live count of round %s not updated: %s", round_id, exc)
        finally:
            if self._pending.get(round_id) is asyncio.current_task():
                self._pending.pop(round_id, None)

    async def _edit(self, round_id: int) -> None:
        async with self.rounds.message_lock(round_id):
            row = await self.rounds.round_row(round_id)
            if row is None or row.message_ref is None or not row.is_open(self.clock.now()):
                self._last.pop(round_id, None)
                return
            if not self.delivery.serves(row.platform):
                return
            max_age = self.delivery.live_update_max_age(row.platform)
            if max_age is not None and self.clock.now() - row.opened_at > max_age:
                return  # old messages are not edited per click (Discord caps those edits)
            now = self.clock.now()
            if not await self.store.rounds.take_count_edit(round_id, now, self.interval):
                self.poke(round_id)  # another replica edited it just now: once more, later
                return
            view = await self.rounds.question_view(round_id)
            if view is None:
                return
            await self.delivery.update_question(row, view)  # a failure is logged there

    async def drain(self) -> None:
        """Wait for the refreshes that are already due (tests; a graceful stop)."""
        while True:
            now = self.clock.now()
            # Not the done ones whose callback hasn't dropped them yet: on Python 3.12 a gather
            # of finished tasks completes without yielding, so waiting on them would spin.
            due = [t for t, when in self._running.items() if when <= now and not t.done()]
            if not due:
                return
            await asyncio.gather(*due, return_exceptions=True)

    async def stop(self) -> None:
        tasks = list(self._running)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._pending.clear()
