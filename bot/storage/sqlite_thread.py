"""One `sqlite3` connection and the one thread that uses it, in our own code.

Each of SQLite's calls blocks, so each connection gets a thread of its own, and the event loop
sends it functions to run on the connection: a statement with its fetch and cursor close in one
trip, or a whole transaction (sqlite_trip.py). aiosqlite does the same but offers only its own
calls (a cursor's execute, fetch and close are a trip each); running a function of ours took its
private `_execute`, so this is the few lines of it that ZeroQuiz needs, on public APIs only.

Work sent is always run, in order, even once its caller is cancelled (a BEGIN whose caller is gone
is undone by the next call, not skipped: sqlite.py relies on it). `close` runs after everything
sent before it, closes the connection and waits for the thread to end.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from collections.abc import Callable
from queue import SimpleQueue
from typing import Any, TypeVar, TypeVarTuple

Ts = TypeVarTuple("Ts")
T = TypeVar("T")
Job = tuple[asyncio.Future[Any], Callable[..., Any], tuple[Any, ...]]  # fn(connection, *args)
CLOSED = "Cannot operate on a closed database."  # as sqlite3 says it


class SqliteThread:
    """The thread that owns one connection: `call` runs a function on it, `close` ends both."""

    def __init__(self, name: str) -> None:
        self._jobs: SimpleQueue[Job | None] = SimpleQueue()
        self._conn: sqlite3.Connection | None = None  # set and used on the thread only
        self._closed = False
        # A daemon only so that a process that never reaches `close` (a crash) can still exit;
        # every normal path closes it, and `close` waits for it.
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)

    @classmethod
    async def open(cls, target: str, *, uri: bool = False) -> SqliteThread:
        """A thread with a connection to `target`, opened on that thread (the only one that uses
        it, so sqlite3's same-thread check stays on). Autocommit: ZeroQuiz says BEGIN itself."""
        owner = cls(f"zeroquiz-sqlite {target}")
        owner._thread.start()
        try:
            await owner._send(owner._connect, target, uri)
        except BaseException:
            await asyncio.shield(owner.close())
            raise
        return owner

    async def call(self, fn: Callable[[sqlite3.Connection, *Ts], T], /, *args: *Ts) -> T:
        """`fn(connection, *args)` on the connection's thread, in one trip."""
        if self._closed:  # so everything sent finds the connection open: close comes last
            raise sqlite3.ProgrammingError(CLOSED)
        result: T = await self._send(fn, *args)
        return result

    async def close(self) -> None:
        """Close the connection after the work already sent, and wait for the thread to end."""
        if self._closed:
            return
        self._closed = True
        done = self._send(self._disconnect)
        self._jobs.put(None)  # the thread ends once it has closed the connection
        await done
        self._thread.join()  # already past its last job: returns at once

    def _connect(self, _: None, target: str, uri: bool) -> None:
        self._conn = sqlite3.connect(target, isolation_level=None, uri=uri)

    def _disconnect(self, conn: sqlite3.Connection | None) -> None:
        if conn is not None:
            conn.close()
            self._conn = None

    def _send(self, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._jobs.put((future, fn, args))
        return future

    def _serve(self) -> None:
        """The thread: run each job in turn and hand its outcome to the job's loop."""
        while (job := self._jobs.get()) is not None:
            future, fn, args = job
            try:
                outcome: tuple[Any, BaseException | None] = (fn(self._conn, *args), None)
            except BaseException as exc:  # the caller's to handle, on its own loop
                outcome = (None, exc)
            with contextlib.suppress(RuntimeError):  # its loop is closed: no one waits any more
                future.get_loop().call_soon_threadsafe(_settle, future, *outcome)


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    """On the loop: the job's outcome, unless its caller stopped waiting (cancelled)."""
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
