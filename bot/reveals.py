"""Delivering a closed round's reveal: the question message becomes its answer, once.

The database's `revealed_at` is the truth; a platform failure is retried with backoff (in memory,
and again by the first pass after a restart), and answers are never touched by it. A failure
tells the scheduler, whose next wake then includes the retry time, however the round was closed.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from bot import presenter
from bot.rounds import CLAIM_LEASE, Rounds
from bot.storage import RoundRecord
from bot.views import RevealView

log = logging.getLogger(__name__)

REVEAL_RETRY = timedelta(seconds=30)
REVEAL_ATTEMPTS = 6
MAX_STRAYS = 10_000  # remembered per process, so repeated late clicks edit a copy only once


class Reveals:
    def __init__(self, rounds: Rounds) -> None:
        self.rounds = rounds
        self._failures: dict[int, tuple[int, datetime]] = {}  # round -> (attempts, retry at)
        self._strays: set[tuple[int, str]] = set()  # copies turned into the reveal already

    def next_retry(self) -> datetime | None:
        return min((at for _, at in self._failures.values()), default=None)

    def may_retry(self, round_id: int) -> bool:
        failure = self._failures.get(round_id)
        return failure is None or failure[1] <= self.rounds.clock.now()

    async def deliver(self, round_id: int) -> RevealView | None:
        """Post the reveal through the round's port; leave it pending if the platform fails or
        this process does not serve that platform."""
        data = await self._data(round_id)
        if data is None:  # the question left the bank: nothing to show
            await self._mark(round_id)
            return None
        row, view = data
        port = self.rounds.delivery.ports.get(row.platform)
        if port is None:
            return view  # another process, which serves this platform, will reveal it
        store = self.rounds.store.rounds
        if not await store.claim(round_id, self.rounds.holder, self.rounds.now(), CLAIM_LEASE):
            return view  # another replica is revealing it right now
        try:
            async with self.rounds.message_lock(round_id):
                current = await store.get(round_id)
                if current is None or current.revealed_at is not None:
                    return view  # revealed meanwhile, by another task of this replica
                try:
                    await port.post_reveal(row.channel_ref, row.message_ref, view)
                except Exception as exc:  # a platform failure must not lose the close
                    if self._failed(round_id, row, exc):
                        return view
                # Marked before the lock is let go: a task waiting for it then sees it done.
                self._failures.pop(round_id, None)
                await self._mark(round_id)
            self.rounds.forget_message(round_id)
            return view
        finally:
            await store.release(round_id, self.rounds.holder)

    def _failed(self, round_id: int, row: RoundRecord, exc: Exception) -> bool:
        """Plan the retry; False once the attempts are used up (the reveal is given up)."""
        attempts = self._failures.get(round_id, (0, self.rounds.clock.now()))[0] + 1
        log.warning(
            "reveal of round %s in %s failed (attempt %d): %s",
            round_id, row.channel_ref, attempts, exc,
        )  # fmt: skip
        if attempts < REVEAL_ATTEMPTS:
            retry_at = self.rounds.clock.now() + REVEAL_RETRY * (2 ** (attempts - 1))
            self._failures[round_id] = (attempts, retry_at)
            self.rounds.notify_changed()  # a sleeping scheduler wakes at the retry time
            return True
        log.error("giving up on the reveal of round %s", round_id)
        return False

    async def stray(self, round_id: int, ref: str) -> bool:
        """A click came from message `ref` of a closed round: if that is not the round's own
        message and the round is revealed, make the copy show the reveal too (once)."""
        row = await self.rounds.store.rounds.get(round_id)
        if row is None or row.revealed_at is None or ref == row.message_ref:
            return False
        port = self.rounds.delivery.ports.get(row.platform)
        if port is None or (round_id, ref) in self._strays or len(self._strays) > MAX_STRAYS:
            return False
        self._strays.add((round_id, ref))
        data = await self._data(round_id)
        if data is None:
            return False
        try:
            await port.reveal_stray(row.channel_ref, ref, data[1])
        except Exception as exc:  # a courtesy: the round itself is revealed already
            log.warning(
                "could not turn copy %s of round %s into its reveal: %s", ref, round_id, exc
            )
            return False
        log.info("copy %s of round %s now shows its reveal", ref, round_id)
        return True

    async def _data(self, round_id: int) -> tuple[RoundRecord, RevealView] | None:
        store = self.rounds.store
        row = await store.rounds.get(round_id)
        if row is None:
            return None
        counts = await store.rounds.answer_counts(round_id)
        fastest = await store.rounds.fastest_correct(round_id)
        history = await store.daily.history(row.channel_id) if row.kind == "daily" else []
        question = self.rounds.bank.get(row.question_id)
        if question is None:
            return None
        streaks = presenter.daily_streaks(history)
        return row, presenter.reveal_view(row, question, counts, fastest, streaks)

    async def _mark(self, round_id: int) -> None:
        await self.rounds.store.rounds.mark_revealed(round_id, self.rounds.now())
