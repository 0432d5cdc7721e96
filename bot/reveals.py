"""Delivering a closed round's reveal: the question message becomes its answer, once.

The database's `revealed_at` is the truth; a platform failure is retried by Delivery's ledger (in
memory, and again by the first pass after a restart), and answers are never touched by it. A
failure tells the scheduler, whose next wake then includes the retry time, however the round was
closed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from bot import presenter
from bot.clock import Clock
from bot.delivery import Delivery
from bot.library import Library
from bot.liveness import silent_since
from bot.rounds import CLAIM_LEASE, Rounds
from bot.storage import RoundRecord, Store
from bot.views import RevealView

log = logging.getLogger(__name__)

MAX_STRAYS = 10_000  # remembered per process, so repeated late clicks edit a copy only once


@dataclass(eq=False)
class Reveals:
    """`rounds` for the round's message lock and the scheduler's wake-up; `holder` is this
    replica in the reveal claims."""

    store: Store
    library: Library
    clock: Clock
    rounds: Rounds
    delivery: Delivery
    holder: str = field(kw_only=True)
    # Copies turned into the reveal already.
    _strays: set[tuple[int, str]] = field(default_factory=set, init=False)

    def may_retry(self, round_id: int) -> bool:
        return self.delivery.may_retry("reveal", round_id)

    async def deliver(self, round_id: int) -> RevealView | None:
        """Post the reveal through the round's port; leave it pending if the platform fails or
        this process does not serve that platform."""
        data = await self._data(round_id)
        if data is None:  # the question left the bank: nothing to show
            await self._mark(round_id)
            return None
        row, view = data
        if not self.delivery.serves(row.platform):
            return view  # another process, which serves this platform, will reveal it
        store = self.store.rounds
        now = self.clock.now()
        if not await store.claim(round_id, self.holder, now, CLAIM_LEASE, silent_since(now)):
            return view  # another replica is revealing it right now
        try:
            async with self.rounds.message_lock(round_id):
                current = await store.get(round_id)
                if current is None or current.revealed_at is not None:
                    return view  # revealed meanwhile, by another task of this replica
                result = await self.delivery.post_reveal(row, view)
                if not result.done:  # a platform failure must not lose the close
                    self.rounds.notify_changed()  # a sleeping scheduler wakes at the retry time
                    return view
                # Marked (also when given up) before the lock is let go: a task waiting for it
                # then sees it done.
                await self._mark(round_id)
            self.rounds.forget_message(round_id)
            return view
        finally:
            await store.release(round_id, self.holder)

    async def stray(self, round_id: int, ref: str) -> bool:
        """A click came from message `ref` of a closed round: if that is not the round's own
        message and the round is revealed, make the copy show the reveal too (once)."""
        row = await self.store.rounds.get(round_id)
        if row is None or row.revealed_at is None or ref == row.message_ref:
            return False
        if not self.delivery.serves(row.platform):
            return False
        if (round_id, ref) in self._strays or len(self._strays) > MAX_STRAYS:
            return False
        self._strays.add((round_id, ref))
        data = await self._data(round_id)
        if data is None:
            return False
        # A courtesy: the round itself is revealed already, so a failure is only logged.
        if (await self.delivery.reveal_stray(row, ref, data[1])).outcome != "posted":
            return False
        log.info("copy %s of round %s now shows its reveal", ref, round_id)
        return True

    async def _data(self, round_id: int) -> tuple[RoundRecord, RevealView] | None:
        row = await self.store.rounds.get(round_id)
        if row is None:
            return None
        counts = await self.store.rounds.answer_counts(round_id)
        typed = await self.store.rounds.typed_counts(round_id)
        fastest = await self.store.rounds.fastest_correct(round_id)
        history = await self.store.daily.history(row.channel_id) if row.kind == "daily" else []
        question = await self.library.get(row.question_id)
        if question is None:
            return None
        streaks = presenter.daily_streaks(history)
        return row, presenter.reveal_view(row, question, counts, fastest, streaks, typed)

    async def _mark(self, round_id: int) -> None:
        await self.store.rounds.mark_revealed(round_id, self.clock.now())
