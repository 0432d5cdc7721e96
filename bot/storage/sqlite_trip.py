"""`SqliteEngine.run_transaction`'s one trip: BEGIN, the work's statements and COMMIT (with its
fsync) as one call on the writer connection's thread, instead of one trip per statement.
"""

from __future__ import annotations

import contextlib
import gc
import sqlite3
from collections.abc import Coroutine, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from bot.storage.engine import Dialect, Work
from bot.storage.sqlite_calls import (
    FromRows,
    executemany,
    fetchall,
    fetchone,
    rowcount,
    sqlite_rows,
    sqlite_sql,
)

T = TypeVar("T")


class DirectConn(FromRows):
    """The same statements, run right here: only ever on the connection's own thread, inside
    `run_transaction`'s one call. Its coroutines never suspend (nothing they await waits), so
    that call drives a whole transaction's coroutine to its end in one `send`."""

    dialect: Dialect = "sqlite"

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    async def execute(self, sql: str, *params: Any) -> int:
        return rowcount(self._conn, *sqlite_sql(sql, params))

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        executemany(self._conn, *sqlite_rows(sql, rows))

    async def fetch(self, sql: str, *params: Any) -> list[sqlite3.Row]:
        return fetchall(self._conn, *sqlite_sql(sql, params))

    async def fetchrow(self, sql: str, *params: Any) -> sqlite3.Row | None:
        return fetchone(self._conn, *sqlite_sql(sql, params))


def transact(conn: sqlite3.Connection, work: Work[T]) -> T:
    """BEGIN, the work, COMMIT (ROLLBACK on any error), on the connection's thread, with
    Python's cyclic collector held off (`_collector_held`)."""
    with _collector_held():
        return _transact_now(conn, work)


@contextlib.contextmanager
def _collector_held() -> Iterator[None]:
    """Python's cyclic garbage collector off while a transaction runs on the writer's thread.

    A group commit makes tens of thousands of small objects (rows, keys, totals) that all live
    until it ends: a collection in the middle frees none of them but moves them to an older
    generation, and enough of those bring on a full collection of the whole process. On the
    1,000,000-answer file that was about a tenth of a returning answer's time. Deferred, not
    skipped: the first allocation afterwards runs whatever collection is due, once the batch's
    objects are gone. Left alone if something else had turned the collector off."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _transact_now(conn: sqlite3.Connection, work: Work[T]) -> T:
    conn.execute("BEGIN IMMEDIATE").close()
    try:
        result = _drive(work(DirectConn(conn)))
        conn.execute("COMMIT").close()
    except BaseException:
        if conn.in_transaction:  # a failed COMMIT (busy, disk) leaves it open too
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK").close()
        raise
    return result


def _drive(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never suspends to its end, here and now."""
    try:
        coro.send(None)
    except StopIteration as done:
        result: T = done.value
        return result
    coro.close()
    raise RuntimeError("run_transaction's work awaited something besides its statements")
