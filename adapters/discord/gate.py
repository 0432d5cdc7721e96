"""Interactions in flight, so stopping can finish the acknowledged ones and refuse new ones."""

from __future__ import annotations

import asyncio
import contextlib


class Gate:
    def __init__(self) -> None:
        self._open = True
        self._active = 0
        self._idle = asyncio.Event()
        self._idle.set()

    def enter(self) -> bool:
        """Take one interaction; False once stopping began (the event is then ignored)."""
        if not self._open:
            return False
        self._active += 1
        self._idle.clear()
        return True

    def leave(self) -> None:
        self._active -= 1
        if self._active == 0:
            self._idle.set()

    @property
    def active(self) -> int:
        return self._active

    async def close(self, timeout: float) -> None:
        """Refuse new interactions and wait (bounded) for those in flight."""
        self._open = False
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._idle.wait(), timeout)
