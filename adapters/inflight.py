"""Work in flight on a surface (clicks and commands being answered), so a shutdown can refuse
new events and finish the acknowledged ones; shared by the Slack and Discord adapters.

`enter()`/`leave()` or `async with inflight:` count one piece of work; `close(timeout)` refuses
new work and waits (bounded) for the rest; `below(n)` lets background work yield to clicks.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from types import TracebackType

log = logging.getLogger(__name__)


class InFlight:
    def __init__(self, name: str) -> None:
        self.name = name
        self._open = True
        self._count = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._fewer = asyncio.Condition()
        self._waiting = 0

    @property
    def count(self) -> int:
        return self._count

    def enter(self) -> bool:
        """Take one piece of work; False once stopping began (the event is then ignored)."""
        if not self._open:
            return False
        self._count += 1
        self._idle.clear()
        return True

    def leave(self) -> None:
        self._count -= 1
        if self._count == 0:
            self._idle.set()
        if self._waiting:  # only when someone waits: this runs once per click
            asyncio.get_running_loop().create_task(self._notify())

    async def _notify(self) -> None:
        async with self._fewer:
            self._fewer.notify_all()

    async def __aenter__(self) -> None:
        self._count += 1  # work already acknowledged: counted even while stopping
        self._idle.clear()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.leave()

    async def below(self, limit: int) -> None:
        """Wait until fewer than `limit` pieces of work run."""
        self._waiting += 1
        try:
            async with self._fewer:
                await self._fewer.wait_for(lambda: self._count < limit)
        finally:
            self._waiting -= 1

    async def close(self, timeout: float) -> bool:
        """Refuse new work and wait until nothing runs (True) or `timeout` seconds pass."""
        self._open = False
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), timeout)
            return True
        log.warning("%d %s event(s) still running at shutdown", self._count, self.name)
        return False
