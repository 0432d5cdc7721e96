"""The SQLite backend: one writer, a few readers, re-entrant transactions.

WAL mode lets readers work on their own snapshot while the writer commits, so a leaderboard read
never waits behind a burst of answers and the other way round. Writes go through one connection
under one asyncio lock (`BEGIN IMMEDIATE`, so a second process waits on the busy timeout instead
of failing half-way). A ContextVar holds the open transaction, so code already inside one (a
daily claim opening its round) reuses it instead of waiting for the lock it holds.

Each connection has a thread of its own (sqlite_thread.py). SQL is written once with
`$1`-style placeholders (as PostgreSQL takes them) and rewritten for SQLite in sqlite_calls.py;
the group commit's one-trip transaction is sqlite_trip.py; postgres.py is the other backend,
engine.py what both offer.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

from bot.storage.engine import Dialect, Work
from bot.storage.place import create_private
from bot.storage.slots import FairPool
from bot.storage.sqlite_calls import (
    FromRows,
    executemany,
    fetchall,
    fetchone,
    rollback_if_open,
    rowcount,
    sqlite_rows,
    sqlite_sql,
)
from bot.storage.sqlite_thread import SqliteThread
from bot.storage.sqlite_trip import transact

BUSY_TIMEOUT_MS = 5000
WAL_RETRY_S = 0.005  # between tries to switch a new file to WAL while another opener does
READERS = 2
CHECKPOINT_EVERY = 32  # commits between background checkpoints
WRITER_AUTOCHECKPOINT = 10_000  # pages: the writer checkpoints itself only if those fall behind
DEFAULT_CACHE_KIB = 2000  # SQLite's own page cache per connection
WRITER_CACHE_SHARE = 4  # the writer's page cache: this fraction of the file at open, ...
WRITER_CACHE_MAX_KIB = 64 * 1024  # ... at most this much
T = TypeVar("T")


def writer_cache_kib(file_bytes: int) -> int:
    """The writer's page cache for a file of this size at open: SQLite's default for a small
    file, a quarter of a large one (at most 64 MiB). A group commit of returning players touches
    pages all over the per-player index and the leaderboard totals; with the default 2 MB a
    1,000,000-answer file's batch re-reads most of them from the OS on every commit. Sized by the
    file, so a small deployment's memory stays what it was."""
    share = file_bytes // 1024 // WRITER_CACHE_SHARE
    return max(DEFAULT_CACHE_KIB, min(WRITER_CACHE_MAX_KIB, share))


class SqliteConn(FromRows):
    """The statements available on one connection (inside a transaction or a read snapshot).

    Each statement is one trip to the connection's thread and back (execute, fetch and close
    in one call). Every trip waits for a turn of the event loop, so under load a commit's
    statements wait behind the clicks being answered, and the group commit (and each
    acknowledgement waiting on it) took as many turns as it had trips: it goes through
    `SqliteEngine.run_transaction` instead, one trip for the whole transaction."""

    dialect: Dialect = "sqlite"

    def __init__(self, thread: SqliteThread) -> None:
        self.thread = thread
        self.active = True

    async def _run(
        self, fn: Callable[[sqlite3.Connection, str, Sequence[Any]], T], sql: str, params: Any
    ) -> T:
        """fn(sqlite3 connection, sql, params) on the connection's thread, in one trip."""
        return await self.thread.call(fn, *sqlite_sql(sql, params))

    async def execute(self, sql: str, *params: Any) -> int:
        """Run one statement; return the number of rows it changed."""
        return await self._run(rowcount, sql, params)

    async def rollback_if_open(self) -> None:
        await self._run(rollback_if_open, "", ())

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        text, listed = sqlite_rows(sql, rows)
        await self.thread.call(executemany, text, list(listed))  # listed on the loop

    async def fetch(self, sql: str, *params: Any) -> list[sqlite3.Row]:
        return await self._run(fetchall, sql, params)

    async def fetchrow(self, sql: str, *params: Any) -> sqlite3.Row | None:
        return await self._run(fetchone, sql, params)


class SqliteEngine:
    """The process's connections to one SQLite file."""

    dialect: Dialect = "sqlite"

    def __init__(
        self,
        path: str,
        writer: SqliteThread,
        readers: list[SqliteConn],
        checkpointer: SqliteThread | None = None,
    ) -> None:
        self.path = path
        self._writer = SqliteConn(writer)
        self._checkpointer = SqliteConn(checkpointer) if checkpointer is not None else None
        self._commits = 0
        self._checkpoint: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._readers = FairPool(list(readers))  # first come, first served
        self._all_readers = readers
        self._current: contextvars.ContextVar[SqliteConn | None] = contextvars.ContextVar(
            f"zeroquiz-tx-{id(self)}", default=None
        )

    @classmethod
    async def open(cls, path: str | Path, *, readers: int = READERS) -> SqliteEngine:
        target = str(path)
        memory = target == ":memory:"
        if not memory:
            create_private(Path(target))  # 0600, and so its -wal and -shm, whatever the umask
        writer = await _connect(target)
        opened: list[SqliteThread] = [writer]
        try:
            if not memory:
                await _switch_to_wal(writer)
            # Every commit reaches the disk before anyone is told "recorded": a power cut or a
            # crashed VM keeps it too, not only a killed process. Group commit pays one sync
            # per batch of answers, not one per answer.
            await _pragma(writer, "synchronous = FULL")
            await _pragma(writer, f"wal_autocheckpoint = {WRITER_AUTOCHECKPOINT}")
            size = 0 if memory else Path(target).stat().st_size
            await _pragma(writer, f"cache_size = -{writer_cache_kib(size)}")
            # A fresh file must be in WAL mode before readers attach; they share nothing else.
            for _ in range(0 if memory else readers):
                reader = await _connect(target)
                opened.append(reader)
                await _pragma(reader, "query_only = ON")
            checkpointer = None if memory else await _connect(target)
        except BaseException:
            for conn in opened:
                await conn.close()
            raise
        return cls(target, writer, [SqliteConn(c) for c in opened[1:]], checkpointer)

    async def check_writable(self) -> None:
        """Take the write lock once and let it go, so a lock another process holds for longer
        than the busy timeout, or a file SQLite could open only read-only, shows at start-up
        instead of at the first answer."""
        async with self._lock:
            await self._writer.execute("BEGIN IMMEDIATE")
            await self._writer.execute("ROLLBACK")

    async def close(self, *, checkpoint: bool = True) -> None:
        """Close every connection; the WAL is checkpointed into the file first, so a stopped
        bot leaves one self-contained database file. Without `checkpoint` (start-up failed, maybe
        because another process holds the lock) it doesn't wait for the lock once more."""
        if self._checkpoint is not None:
            await asyncio.gather(self._checkpoint, return_exceptions=True)
        async with self._lock:
            for reader in self._all_readers:
                await reader.thread.close()
            if self._checkpointer is not None:
                await self._checkpointer.thread.close()
            # Another process may be reading: its own close checkpoints later.
            if checkpoint:
                with contextlib.suppress(sqlite3.Error):
                    await self._writer.fetchrow("PRAGMA wal_checkpoint(TRUNCATE)")
            await self._writer.thread.close()

    def _committed(self) -> None:
        """Checkpoint on a connection of its own, so copying WAL pages into the database file
        never sits inside a commit that clicks are waiting for."""
        self._commits += 1
        if self._checkpointer is None or self._commits < CHECKPOINT_EVERY:
            return
        if self._checkpoint is not None and not self._checkpoint.done():
            return
        self._commits = 0
        self._checkpoint = asyncio.get_running_loop().create_task(
            self._run_checkpoint(), context=contextvars.Context()
        )

    async def _run_checkpoint(self) -> None:
        assert self._checkpointer is not None
        with contextlib.suppress(sqlite3.Error):  # busy or locked: the next one catches up
            await self._checkpointer.fetchrow("PRAGMA wal_checkpoint(PASSIVE)")

    async def settings(self) -> list[dict[str, object]]:
        """Each connection's safety settings, writer first (for tests and health checks)."""
        names = ("journal_mode", "foreign_keys", "busy_timeout", "synchronous", "query_only")
        out: list[dict[str, object]] = []
        async with self._lock:
            conns = [self._writer, *self._all_readers]
            for conn in conns:
                out.append({n: await conn.fetchval(f"PRAGMA {n}") for n in names})
        return out

    def current(self) -> SqliteConn | None:
        tx = self._current.get()
        return tx if tx is not None and tx.active else None

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[SqliteConn]:
        """A write transaction, committed on success and rolled back on error. Re-entrant: inside
        an open transaction it is that same transaction (committed by the outermost block)."""
        outer = self.current()
        if outer is not None:
            yield outer
            return
        async with self._lock:
            conn = self._writer
            try:
                await conn.execute("BEGIN IMMEDIATE")
            except BaseException:
                # Cancelled while it waited, the BEGIN runs on the connection's thread all the
                # same: undone before the next transaction (a task whose work is cancelled at
                # shutdown would otherwise leave the writer inside a transaction).
                await asyncio.shield(conn.rollback_if_open())
                raise
            conn.active = True
            token = self._current.set(conn)
            try:
                yield conn
            except BaseException:
                conn.active = False
                await conn.execute("ROLLBACK")
                raise
            finally:
                self._current.reset(token)
            conn.active = False
            await conn.execute("COMMIT")
            self._committed()

    async def run_transaction(self, work: Work[T]) -> T:
        """The whole transaction in one trip to the writer's thread (engine.Engine says when)."""
        if self.current() is not None:
            raise RuntimeError("run_transaction opens a transaction of its own")
        async with self._lock:
            result = await self._writer.thread.call(transact, work)
            self._committed()
            return result

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[SqliteConn]:
        """A consistent read: on a reader connection, never waiting for the writer; inside a
        transaction, that transaction (so it sees its own writes)."""
        outer = self.current()
        if outer is not None:
            yield outer
            return
        if not self._all_readers:  # :memory: has no second connection to read from
            async with self.transaction() as tx:
                yield tx
            return
        reader = await self._readers.take()
        try:
            await reader.execute("BEGIN")
            try:
                yield reader
            finally:
                await reader.execute("COMMIT")
        finally:
            self._readers.give(reader)

    @asynccontextmanager
    async def reader(self) -> AsyncIterator[SqliteConn]:
        """A reader connection without an enclosing transaction: each statement is its own
        snapshot. For reads that are one statement, it saves two round trips to its thread."""
        outer = self.current()
        if outer is not None or not self._all_readers:
            async with self.snapshot() as conn:
                yield conn
            return
        reader = await self._readers.take()
        try:
            yield reader
        finally:
            self._readers.give(reader)

    @asynccontextmanager
    async def raw(self) -> AsyncIterator[SqliteConn]:
        """The writer connection under the lock, outside any transaction (migrations)."""
        async with self._lock:
            yield self._writer


@asynccontextmanager
async def inspecting(path: str) -> AsyncIterator[SqliteConn]:
    """A connection to an existing file that only reads: it never creates the file and never
    switches it to WAL, so a file refused after a look is left as it was."""
    conn = await _connect(f"file:{quote(path)}?mode=rw", uri=True)
    try:
        yield SqliteConn(conn)
    finally:
        await conn.close()


async def _connect(target: str, *, uri: bool = False) -> SqliteThread:
    conn = await SqliteThread.open(target, uri=uri)
    try:
        await conn.call(_settle_in)
    except BaseException:
        await conn.close()
        raise
    return conn


def _settle_in(conn: sqlite3.Connection) -> None:
    """Every connection's settings, on its thread in one trip."""
    conn.row_factory = sqlite3.Row
    settings = (f"busy_timeout = {BUSY_TIMEOUT_MS}", "synchronous = NORMAL", "foreign_keys = ON")
    for setting in settings:
        conn.execute(f"PRAGMA {setting}").close()


async def _switch_to_wal(conn: SqliteThread) -> None:
    """WAL mode, waiting up to the busy timeout for other openers. A new file's switch needs
    the exclusive lock after a shared one; when two connections race for it, SQLite refuses one
    at once (waiting could deadlock) instead of calling its busy handler, so this waits itself."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            await _pragma(conn, "journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if getattr(exc, "sqlite_errorcode", None) != sqlite3.SQLITE_BUSY:
                raise
            if loop.time() >= deadline:
                raise
        await asyncio.sleep(WAL_RETRY_S)


async def _pragma(conn: SqliteThread, setting: str) -> None:
    # Closing the cursor at once (rowcount does): a PRAGMA that returns a row would otherwise
    # hold a lock.
    await conn.call(rowcount, f"PRAGMA {setting}", ())
