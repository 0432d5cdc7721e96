"""Sleeps until the next deadline (no polling), wakes early when a round opens, closes what is due.

Deadlines live in the database, so a new process rebuilds its plan by simply running a pass: rounds
that went overdue while it was down are closed and revealed at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Protocol

from bot.clock import Clock

log = logging.getLogger(__name__)


class DueWork(Protocol):
    """Anything with due work: `next_due()` says when, `process_due()` does it."""

    async def next_due(self) -> datetime | None: ...

    async def process_due(self) -> None: ...


class Scheduler:
    def __init__(
        self, clock: Clock, *sources: DueWork, on_lag: Callable[[float], None] | None = None
    ) -> None:
        self.clock = clock
        self.sources = list(sources)
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._passes = 0
        self._in_pass = False
        self._pass_done = asyncio.Condition()
        # Told how late (seconds) a pass ran after the moment it was planned for (metrics).
        self.on_lag: Callable[[float], None] = on_lag or _ignore_lag

    def wake(self) -> None:
        self._wake.set()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="zeroquiz-scheduler")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def run_once(self) -> datetime | None:
        """One pass over every source; returns the next moment anything is due."""
        due: list[datetime] = []
        for source in self.sources:
            try:
                await source.process_due()
                when = await source.next_due()
            except Exception:
                log.exception("scheduled work failed; will retry")
                when = self.clock.now()
            if when is not None:
                due.append(when)
        return min(due) if due else None

    async def _loop(self) -> None:
        failures = 0
        next_at: datetime | None = None
        while True:
            self._wake.clear()
            self._in_pass = True
            if next_at is not None and (late := self.clock.now() - next_at).total_seconds() >= 0:
                self.on_lag(late.total_seconds())  # woken by the timer, not early by a new round
            try:
                next_at = await self.run_once()
                failures = 0
            except Exception:
                failures += 1
                log.exception("scheduler pass failed")
                next_at = None
            if failures:
                await asyncio.sleep(min(60, 2**failures))  # real backoff: the DB itself failed
            waiter = asyncio.ensure_future(self._wake.wait())
            timer = asyncio.ensure_future(self.clock.sleep_until(next_at)) if next_at else None
            await asyncio.sleep(0)  # let the timer register before reporting the pass as done
            async with self._pass_done:
                self._passes += 1
                self._in_pass = False
                self._pass_done.notify_all()
            try:
                await asyncio.wait(
                    [f for f in (waiter, timer) if f], return_when=asyncio.FIRST_COMPLETED
                )
            finally:
                for f in (waiter, timer):
                    if f is not None and not f.done():
                        f.cancel()

    async def caught_up(self) -> None:
        """Wait until a full pass has run after this call (tests use it after moving the clock)."""
        # A pass already in flight may have started before the clock moved: wait for the next one.
        target = self._passes + (2 if self._in_pass else 1)
        self.wake()
        async with self._pass_done:
            await self._pass_done.wait_for(lambda: self._passes >= target)


def _ignore_lag(seconds: float) -> None:
    """The default: nobody is measuring."""
