"""One aiosqlite connection per process: WAL, foreign keys, busy timeout, explicit transactions.

All statements go through one asyncio lock, so a transaction opened by one coroutine is never
interleaved with statements from another on the same connection. Cross-process safety comes from
`BEGIN IMMEDIATE` plus the busy timeout and the schema's UNIQUE constraints.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from bot.storage.migrations import MIGRATIONS, SCHEMA_VERSION

BUSY_TIMEOUT_MS = 5000
Row = sqlite3.Row
Params = Sequence[Any] | dict[str, Any]


class DatabaseTooNewError(RuntimeError):
    pass


class Tx:
    """The statements available inside one transaction."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn

    async def execute(self, sql: str, params: Params = ()) -> tuple[int, int | None]:
        """Run a statement; return (rowcount, lastrowid)."""
        async with self._conn.execute(sql, params) as cur:
            return cur.rowcount, cur.lastrowid

    async def fetchone(self, sql: str, params: Params = ()) -> Row | None:
        async with self._conn.execute(sql, params) as cur:
            return await cur.fetchone()

    async def fetchall(self, sql: str, params: Params = ()) -> list[Row]:
        async with self._conn.execute(sql, params) as cur:
            return list(await cur.fetchall())

    async def executemany(self, sql: str, rows: Iterable[Params]) -> None:
        await self._conn.executemany(sql, rows)


class Database:
    def __init__(self, conn: aiosqlite.Connection, path: str) -> None:
        self._conn = conn
        self._lock = asyncio.Lock()
        self.path = path

    @classmethod
    async def open(cls, path: str | Path) -> Database:
        target = str(path)
        if target != ":memory:":
            Path(target).parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(target, isolation_level=None)
        try:
            conn.row_factory = sqlite3.Row
            await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute("PRAGMA synchronous = NORMAL")
            await conn.execute("PRAGMA foreign_keys = ON")
            db = cls(conn, target)
            await db._migrate()
        except BaseException:
            await conn.close()
            raise
        return db

    async def close(self) -> None:
        async with self._lock:
            await self._conn.close()

    async def _migrate(self) -> None:
        async with self._conn.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        current = int(row[0]) if row else 0
        if current > SCHEMA_VERSION:
            raise DatabaseTooNewError(
                f"database {self.path} has schema version {current}, but this ZeroQuiz only "
                f"knows up to {SCHEMA_VERSION}: upgrade ZeroQuiz or point --db at another file"
            )
        for version in range(current + 1, SCHEMA_VERSION + 1):
            await self._conn.execute("BEGIN IMMEDIATE")
            try:
                # Re-read inside the lock: another process may have migrated meanwhile.
                async with self._conn.execute("PRAGMA user_version") as cur:
                    row = await cur.fetchone()
                if row and int(row[0]) >= version:
                    await self._conn.execute("COMMIT")
                    continue
                for statement in _split(MIGRATIONS[version - 1]):
                    await self._conn.execute(statement)
                await self._conn.execute(f"PRAGMA user_version = {version}")
                await self._conn.execute("COMMIT")
            except BaseException:
                await self._conn.execute("ROLLBACK")
                raise

    @asynccontextmanager
    async def write(self) -> AsyncIterator[Tx]:
        """A write transaction (BEGIN IMMEDIATE): committed on success, rolled back on error."""
        async with self._lock:
            await self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield Tx(self._conn)
            except BaseException:
                await self._conn.execute("ROLLBACK")
                raise
            await self._conn.execute("COMMIT")

    async def execute_one(self, sql: str, params: Params = ()) -> int:
        """One write statement on its own, which SQLite runs as a transaction by itself (atomic,
        waits on the busy timeout like BEGIN IMMEDIATE). For the hot answer path: one round trip
        to the database thread instead of three. Returns the row count."""
        async with self._lock, self._conn.execute(sql, params) as cur:
            return cur.rowcount

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Tx]:
        """A consistent read snapshot (deferred transaction)."""
        async with self._lock:
            await self._conn.execute("BEGIN")
            try:
                yield Tx(self._conn)
            finally:
                await self._conn.execute("COMMIT")


def _split(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]
