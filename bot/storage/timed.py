"""An Engine that reports how long each outermost transaction, snapshot and read took.

Metrics live in the adapters; the store only calls `observe(kind, seconds)`, a no-op until
someone sets it, so the core never imports a metrics library. Durations are measured with the
monotonic performance counter, not the injected clock: they are about this machine, not the quiz.
A DatabaseTimeout is reported too (`timed_out(call)`), once, by the outermost that it ends.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from bot.storage.engine import Conn, Dialect, Engine, T, Work
from bot.storage.errors import DatabaseTimeout

Observer = Callable[[str, float], None]


def _ignore(kind: str, seconds: float) -> None:
    """The default observer: nobody is measuring."""


def _uncounted(call: str) -> None:
    """The default timeout observer: nobody is counting."""


class TimedEngine:
    def __init__(self, inner: Engine) -> None:
        self._inner = inner
        self.observe: Observer = _ignore
        self.timed_out: Callable[[str], None] = _uncounted

    @property
    def dialect(self) -> Dialect:
        return self._inner.dialect

    @property
    def path(self) -> str:
        return self._inner.path

    def current(self) -> Conn | None:
        return self._inner.current()

    @asynccontextmanager
    async def _timed(
        self, kind: str, opened: AbstractAsyncContextManager[Conn]
    ) -> AsyncIterator[Conn]:
        if self._inner.current() is not None:  # joins the caller's: timed once, by the outermost
            async with opened as conn:
                yield conn
            return
        started = time.perf_counter()
        try:
            async with opened as conn:
                yield conn
        except DatabaseTimeout as exc:
            self.timed_out(exc.call)
            raise
        finally:
            self.observe(kind, time.perf_counter() - started)

    def transaction(self) -> AbstractAsyncContextManager[Conn]:
        return self._timed("transaction", self._inner.transaction())

    async def run_transaction(self, work: Work[T]) -> T:
        started = time.perf_counter()
        try:
            return await self._inner.run_transaction(work)
        except DatabaseTimeout as exc:
            self.timed_out(exc.call)
            raise
        finally:
            self.observe("transaction", time.perf_counter() - started)

    def snapshot(self) -> AbstractAsyncContextManager[Conn]:
        return self._timed("snapshot", self._inner.snapshot())

    def reader(self) -> AbstractAsyncContextManager[Conn]:
        return self._timed("read", self._inner.reader())

    def raw(self) -> AbstractAsyncContextManager[Conn]:
        return self._inner.raw()

    async def check_writable(self) -> None:
        await self._inner.check_writable()

    async def settings(self) -> list[dict[str, object]]:
        return await self._inner.settings()

    async def close(self, *, checkpoint: bool = True) -> None:
        await self._inner.close(checkpoint=checkpoint)
