"""The PostgreSQL backend: an asyncpg pool shared by every replica's statements.

Unlike SQLite there is no process-wide write lock: transactions from this and other processes
run side by side at READ COMMITTED, and the invariants hold in the statements themselves (an
answer's INSERT locks its round row FOR SHARE, so it serialises against a concurrent close;
claims are compare-and-swap UPDATEs; uniqueness is in the schema). A transaction is re-entrant
within one task through a ContextVar, as in the SQLite backend. Reads that must agree with each
other (`snapshot()`) run in a read-only REPEATABLE READ transaction.

Nothing waits on the server without end (engine.DbTimeouts): a connection, new or from the pool,
within the connect timeout; each statement within the statement timeout (asyncpg's
command_timeout, which cancels it on the server too). Either ends in DatabaseTimeout, logged.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from bot.storage.engine import DB_TIMEOUTS, DbTimeouts, Dialect, T, Work
from bot.storage.errors import DatabaseTimeout
from bot.storage.urls import display_url

log = logging.getLogger(__name__)

POOL_MIN = 1
POOL_MAX = 10


def _rows_changed(status: str) -> int:
    """asyncpg's command tag ("INSERT 0 3", "UPDATE 2", "DELETE 0") as a row count."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


class PgConn:
    dialect: Dialect = "postgres"

    def __init__(
        self, conn: asyncpg.Connection[asyncpg.Record] | PoolConnectionProxy[asyncpg.Record]
    ) -> None:
        self._conn = conn

    async def execute(self, sql: str, *params: Any) -> int:
        return _rows_changed(await self._conn.execute(sql, *params))

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        await self._conn.executemany(sql, list(rows))

    async def fetch(self, sql: str, *params: Any) -> list[asyncpg.Record]:
        return list(await self._conn.fetch(sql, *params))

    async def fetchrow(self, sql: str, *params: Any) -> asyncpg.Record | None:
        return await self._conn.fetchrow(sql, *params)

    async def fetchval(self, sql: str, *params: Any) -> Any:
        return await self._conn.fetchval(sql, *params)

    async def script(self, statements: Iterable[str]) -> None:
        """Statements without parameters in one round trip (asyncpg sends a query without
        arguments as one simple query, which may hold several); a new database's schema is
        dozens of them."""
        text = "\n;\n".join(statements)  # a statement's last line may be a -- comment
        if text:
            await self._conn.execute(text)


class PgEngine:
    dialect: Dialect = "postgres"

    def __init__(
        self, pool: asyncpg.Pool[asyncpg.Record], url: str, timeouts: DbTimeouts = DB_TIMEOUTS
    ) -> None:
        self._pool = pool
        self.path = display_url(url)
        self.timeouts = timeouts
        self._current: contextvars.ContextVar[PgConn | None] = contextvars.ContextVar(
            f"zeroquiz-pg-tx-{id(self)}", default=None
        )

    @classmethod
    async def open(
        cls, url: str, *, max_size: int = POOL_MAX, timeouts: DbTimeouts = DB_TIMEOUTS
    ) -> PgEngine:
        pool = await asyncpg.create_pool(
            url,
            min_size=POOL_MIN,
            max_size=max_size,
            timeout=timeouts.connect,
            command_timeout=timeouts.statement,
            server_settings={"application_name": "zeroquiz", "timezone": "UTC"},
        )
        return cls(pool, url, timeouts)

    def current(self) -> PgConn | None:
        return self._current.get()

    @asynccontextmanager
    async def _acquire(self) -> AsyncIterator[PoolConnectionProxy[asyncpg.Record]]:
        """A pooled connection; a timeout getting it, or of a statement on it, as
        DatabaseTimeout (logged here, counted by the store's observer: timed.py)."""
        got = False
        try:
            async with self._pool.acquire(timeout=self.timeouts.connect) as conn:
                got = True
                yield conn
        except TimeoutError:
            call = "statement" if got else "connection"
            seconds = self.timeouts.statement if got else self.timeouts.connect
            exc = DatabaseTimeout(self.path, call, seconds)
            log.warning("%s", exc)
            raise exc from None

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[PgConn]:
        outer = self.current()
        if outer is not None:
            yield outer
            return
        async with self._acquire() as conn, conn.transaction():
            tx = PgConn(conn)
            token = self._current.set(tx)
            try:
                yield tx
            finally:
                self._current.reset(token)

    async def run_transaction(self, work: Work[T]) -> T:
        if self.current() is not None:
            raise RuntimeError("run_transaction opens a transaction of its own")
        async with self.transaction() as tx:
            return await work(tx)

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[PgConn]:
        outer = self.current()
        if outer is not None:
            yield outer
            return
        async with (
            self._acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            yield PgConn(conn)

    @asynccontextmanager
    async def reader(self) -> AsyncIterator[PgConn]:
        outer = self.current()
        if outer is not None:
            yield outer
            return
        async with self._acquire() as conn:
            yield PgConn(conn)

    @asynccontextmanager
    async def raw(self) -> AsyncIterator[PgConn]:
        async with self._acquire() as conn:
            yield PgConn(conn)

    async def check_writable(self) -> None:
        """A server in recovery (a read-only standby) or a read-only default refuses writes."""
        async with self.raw() as conn:
            read_only = await conn.fetchval("SELECT current_setting('transaction_read_only')")
            if read_only == "on":
                raise asyncpg.ReadOnlySQLTransactionError("the server only accepts reads")

    async def settings(self) -> list[dict[str, object]]:
        names = ("server_version", "transaction_isolation", "synchronous_commit", "TimeZone")
        async with self.raw() as conn:
            return [{n: await conn.fetchval(f"SHOW {n}") for n in names}]

    async def close(self, *, checkpoint: bool = True) -> None:
        await self._pool.close()
