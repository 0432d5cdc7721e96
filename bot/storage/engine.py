"""SQLite connections: one writer, a few readers, re-entrant transactions.

WAL mode lets readers work on their own snapshot while the writer commits, so a leaderboard read
never waits behind a burst of answers and the other way round. Writes go through one connection
under one asyncio lock (`BEGIN IMMEDIATE`, so a second process waits on the busy timeout instead
of failing half-way). A ContextVar holds the open transaction, so code already inside one (a
daily claim opening its round) reuses it instead of waiting for the lock it holds.

SQL is written once with `$1`-style placeholders (as PostgreSQL takes them) and rewritten to
SQLite's `?1` here, so a second backend needs new connection code, not new queries.
"""

from __future__ import annotations

import asyncio
import contextvars
import re
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

BUSY_TIMEOUT_MS = 5000
READERS = 2
Record = sqlite3.Row
_PLACEHOLDER = re.compile(r"\$(\d+)")


def sqlite_sql(sql: str) -> str:
    """`$1` placeholders to SQLite's numbered `?1` (same numbers, same meaning)."""
    return _PLACEHOLDER.sub(r"?\1", sql)


class Conn:
    """The statements available on one connection (inside a transaction or a read snapshot)."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn
        self.active = True

    async def execute(self, sql: str, *params: Any) -> int:
        """Run one statement; return the number of rows it changed."""
        async with self._conn.execute(sqlite_sql(sql), params) as cur:
            return int(cur.rowcount)

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self._conn.executemany(sqlite_sql(sql), rows)

    async def fetch(self, sql: str, *params: Any) -> list[Record]:
        async with self._conn.execute(sqlite_sql(sql), params) as cur:
            return list(await cur.fetchall())

    async def fetchrow(self, sql: str, *params: Any) -> Record | None:
        async with self._conn.execute(sqlite_sql(sql), params) as cur:
            return await cur.fetchone()

    async def fetchval(self, sql: str, *params: Any) -> Any:
        row = await self.fetchrow(sql, *params)
        return row[0] if row is not None else None

    async def script(self, statements: Iterable[str]) -> None:
        for statement in statements:
            await self.execute(statement)


class Engine:
    """The process's connections to one SQLite file."""

    def __init__(self, path: str, writer: aiosqlite.Connection, readers: list[Conn]) -> None:
        self.path = path
        self._writer = Conn(writer)
        self._lock = asyncio.Lock()
        self._readers: asyncio.Queue[Conn] = asyncio.Queue()
        self._all_readers = readers
        for reader in readers:
            self._readers.put_nowait(reader)
        self._current: contextvars.ContextVar[Conn | None] = contextvars.ContextVar(
            f"zeroquiz-tx-{id(self)}", default=None
        )

    @classmethod
    async def open(cls, path: str | Path, *, readers: int = READERS) -> Engine:
        target = str(path)
        memory = target == ":memory:"
        if not memory:
            Path(target).parent.mkdir(parents=True, exist_ok=True)
        writer = await _connect(target)
        opened: list[aiosqlite.Connection] = [writer]
        try:
            await _pragma(writer, "journal_mode = WAL")
            # A fresh file must be in WAL mode before readers attach; they share nothing else.
            for _ in range(0 if memory else readers):
                reader = await _connect(target)
                opened.append(reader)
                await _pragma(reader, "query_only = ON")
        except BaseException:
            for conn in opened:
                await conn.close()
            raise
        return cls(target, writer, [Conn(c) for c in opened[1:]])

    async def close(self) -> None:
        async with self._lock:
            for reader in self._all_readers:
                await reader._conn.close()
            await self._writer._conn.close()

    async def settings(self) -> list[dict[str, object]]:
        """Each connection's safety settings, writer first (for tests and health checks)."""
        names = ("journal_mode", "foreign_keys", "busy_timeout", "synchronous", "query_only")
        out: list[dict[str, object]] = []
        async with self._lock:
            conns = [self._writer, *self._all_readers]
            for conn in conns:
                out.append({n: await conn.fetchval(f"PRAGMA {n}") for n in names})
        return out

    def current(self) -> Conn | None:
        tx = self._current.get()
        return tx if tx is not None and tx.active else None

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Conn]:
        """A write transaction, committed on success and rolled back on error. Re-entrant: inside
        an open transaction it is that same transaction (committed by the outermost block)."""
        outer = self.current()
        if outer is not None:
            yield outer
            return
        async with self._lock:
            conn = self._writer
            await conn.execute("BEGIN IMMEDIATE")
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

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[Conn]:
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
        reader = await self._readers.get()
        try:
            await reader.execute("BEGIN")
            try:
                yield reader
            finally:
                await reader.execute("COMMIT")
        finally:
            self._readers.put_nowait(reader)

    @asynccontextmanager
    async def raw(self) -> AsyncIterator[Conn]:
        """The writer connection under the lock, outside any transaction (migrations)."""
        async with self._lock:
            yield self._writer


async def _connect(target: str) -> aiosqlite.Connection:
    conn = await aiosqlite.connect(target, isolation_level=None)
    try:
        conn.row_factory = sqlite3.Row
        await _pragma(conn, f"busy_timeout = {BUSY_TIMEOUT_MS}")
        await _pragma(conn, "synchronous = NORMAL")
        await _pragma(conn, "foreign_keys = ON")
    except BaseException:
        await conn.close()
        raise
    return conn


async def _pragma(conn: aiosqlite.Connection, setting: str) -> None:
    # Closing the cursor at once: a PRAGMA that returns a row would otherwise hold a lock.
    async with conn.execute(f"PRAGMA {setting}"):
        pass
