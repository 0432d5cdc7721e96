"""A fair bounded pool: a released item goes straight to the oldest waiter.

asyncio.Queue and (before 3.12) asyncio.Semaphore let a running task take a freed slot ahead of
the waiter that was just woken, so a task asking in a tight loop can starve the rest; and 3.11's
Semaphore scans all its waiters on every release. Handing over directly is first come, first
served and O(1).
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


class FairPool(Generic[T]):
    def __init__(self, items: list[T]) -> None:
        self._free: deque[T] = deque(items)
        self._waiters: deque[asyncio.Future[T]] = deque()

    async def take(self) -> T:
        if self._free and not self._waiters:
            return self._free.popleft()
        waiter: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.give(waiter.result())  # handed over just as we were cancelled: pass it on
            else:
                self._waiters.remove(waiter)
            raise

    def give(self, item: T) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(item)
                return
        self._free.append(item)


class FairSlots:
    """A counting bound built on FairPool (at most `size` holders at once)."""

    def __init__(self, size: int) -> None:
        self._pool: FairPool[None] = FairPool([None] * size)

    async def __aenter__(self) -> None:
        await self._pool.take()

    async def __aexit__(self, *exc: object) -> None:
        self._pool.give(None)
