"""Counts handlers still running after their ack, so a shutdown can let them finish.

Bolt answers Slack at ack() and keeps the handler running in the background; stopping the server
alone would cut off answers that were already acknowledged.
"""

from __future__ import annotations

import asyncio
import logging
from types import TracebackType

log = logging.getLogger(__name__)


class Inflight:
    def __init__(self) -> None:
        self._count = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._fewer = asyncio.Condition()
        self._waiting = 0

    @property
    def count(self) -> int:
        return self._count

    async def __aenter__(self) -> None:
        self._count += 1
        self._idle.clear()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._count -= 1
        if self._count == 0:
            self._idle.set()
        if self._waiting:  # only when someone waits: this runs once per click
            async with self._fewer:
                self._fewer.notify_all()

    async def below(self, limit: int) -> None:
        """Wait until fewer than `limit` handlers run (background work yields to clicks)."""
        self._waiting += 1
        try:
            async with self._fewer:
                await self._fewer.wait_for(lambda: self._count < limit)
        finally:
            self._waiting -= 1

    async def drain(self, timeout: float) -> bool:
        """Wait until nothing runs (True) or give up after `timeout` seconds (False)."""
        try:
            await asyncio.wait_for(self._idle.wait(), timeout)
        except TimeoutError:
            log.warning("%d Slack handler(s) still running at shutdown", self._count)
            return False
        return True
