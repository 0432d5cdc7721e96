"""What every backend offers the storage modules: connections and re-entrant transactions.

SQL is written once, with `$1` placeholders, `RETURNING`, `ON CONFLICT` and 64-bit integer
milliseconds, which both backends take; the few statements that differ ask `conn.dialect`.
sqlite.py (one writer, WAL readers) and postgres.py (an asyncpg pool) implement it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Literal, NamedTuple, Protocol, TypeVar

Dialect = Literal["sqlite", "postgres"]
T = TypeVar("T")
Work = Callable[["Conn"], Coroutine[Any, Any, T]]


class DbTimeouts(NamedTuple):
    """A database server's seconds to answer (PostgreSQL; SQLite is a file and has its own busy
    timeout): opening a connection, and one statement or a free connection from the pool. Past
    them a call ends with DatabaseTimeout instead of waiting for a server that is gone."""

    connect: float = 10.0
    statement: float = 30.0


DB_TIMEOUTS = DbTimeouts()


def param(dialect: Dialect, n: int, pg_type: str) -> str:
    """Placeholder `$n`, its type spelled out for PostgreSQL where nothing around it says it (a
    VALUES list): PostgreSQL would take an untyped parameter there for text."""
    return f"${n}::{pg_type}" if dialect == "postgres" else f"${n}"


@functools.lru_cache(maxsize=64)
def values_rows(dialect: Dialect, rows: int, pg_types: tuple[str, ...]) -> str:
    """`($1, $2), ($3, $4), …` for a VALUES list of `rows` rows, each column typed for
    PostgreSQL (see `param`). Remembered: a group commit of 1,024 answers spelled its lists
    (a few ms of the writer's time) anew for every batch."""
    width = len(pg_types)
    return ", ".join(
        "(" + ", ".join(param(dialect, width * n + k + 1, t) for k, t in enumerate(pg_types)) + ")"
        for n in range(rows)
    )


def insert_rows(rows: int, width: int) -> str:
    """`values_rows` untyped, for an INSERT's VALUES (the target's columns type them)."""
    return values_rows("sqlite", rows, ("",) * width)


class Record(Protocol):
    """A result row: by position or by column name (sqlite3.Row, asyncpg.Record)."""

    def __getitem__(self, key: int | str, /) -> Any: ...


class Conn(Protocol):
    """The statements available on one connection (inside a transaction or a read snapshot)."""

    @property
    def dialect(self) -> Dialect: ...

    async def execute(self, sql: str, *params: Any) -> int:
        """Run one statement; the number of rows it changed."""
        ...

    async def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None: ...

    async def fetch(self, sql: str, *params: Any) -> Sequence[Record]: ...

    async def fetchrow(self, sql: str, *params: Any) -> Record | None: ...

    async def fetchval(self, sql: str, *params: Any) -> Any: ...

    async def script(self, statements: Iterable[str]) -> None: ...


class Engine(Protocol):
    """One process's connections to one database."""

    @property
    def dialect(self) -> Dialect: ...

    @property
    def path(self) -> str:
        """What the database is, for messages: a file path, or a URL without its password."""
        ...

    def current(self) -> Conn | None:
        """The transaction open in this task, if any."""
        ...

    def transaction(self) -> AbstractAsyncContextManager[Conn]:
        """A write transaction, committed on success; inside an open one, that same one."""
        ...

    async def run_transaction(self, work: Work[T]) -> T:
        """`work(conn)` in a write transaction of its own, committed on success; never inside an
        open one. `work` awaits only its statements (nothing else: no lock, no sleep, no other
        task), so SQLite runs all of it, BEGIN to COMMIT, in one call on its connection's thread
        (one trip instead of one per statement); PostgreSQL runs it as `transaction()` would."""
        ...

    def snapshot(self) -> AbstractAsyncContextManager[Conn]:
        """A consistent read of several statements, never waiting for writers."""
        ...

    def reader(self) -> AbstractAsyncContextManager[Conn]:
        """A connection for one-statement reads, each its own snapshot."""
        ...

    def raw(self) -> AbstractAsyncContextManager[Conn]:
        """A connection outside any transaction (migrations)."""
        ...

    async def check_writable(self) -> None: ...

    async def settings(self) -> list[dict[str, object]]: ...

    async def close(self, *, checkpoint: bool = True) -> None: ...
