"""Injected time. The core never reads the wall clock or sleeps directly, so tests move time."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware UTC."""
        ...

    async def sleep_until(self, when: datetime) -> None:
        """Return once `now() >= when`."""
        ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    async def sleep_until(self, when: datetime) -> None:
        while True:
            delay = (when - self.now()).total_seconds()
            if delay <= 0:
                return
            # Re-check after waking: the wall clock can jump while we sleep.
            await asyncio.sleep(min(delay, 3600.0))


class FakeClock:
    """A clock that only moves when a test says so; sleepers wake when their time is reached."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
        self._sleepers: list[tuple[datetime, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()

    def now(self) -> datetime:
        return self._now

    async def sleep_until(self, when: datetime) -> None:
        if when <= self._now:
            await asyncio.sleep(0)
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (when, next(self._seq), fut))
        await fut

    async def advance(self, seconds: float = 0.0, *, to: datetime | None = None) -> None:
        """Move time forward, waking every sleeper that is due, and let them run."""
        target = to if to is not None else self._now + timedelta(seconds=seconds)
        if target < self._now:
            raise ValueError("FakeClock cannot go backwards")
        self._now = target
        while self._sleepers and self._sleepers[0][0] <= self._now:
            _, _, fut = heapq.heappop(self._sleepers)
            if not fut.done():
                fut.set_result(None)
        for _ in range(5):
            await asyncio.sleep(0)

    @property
    def next_wake(self) -> datetime | None:
        """When the earliest sleeper wants to wake (tests check what a scheduler planned)."""
        pending = [when for when, _, fut in self._sleepers if not fut.done()]
        return min(pending) if pending else None

    @property
    def sleepers(self) -> int:
        return sum(1 for _, _, f in self._sleepers if not f.done())
