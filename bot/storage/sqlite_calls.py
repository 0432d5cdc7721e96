"""The calls both SQLite connections make on a connection's own thread, in one trip each.

SQL is written once with `$1`-style placeholders (as PostgreSQL takes them) and rewritten to
SQLite's `?` here. `SqliteConn` (sqlite.py) sends these to the connection's thread one statement
at a time; `DirectConn` (sqlite_trip.py) runs them where it already is, inside run_transaction's
one call.
"""

from __future__ import annotations

import functools
import re
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

_PLACEHOLDER = re.compile(r"\$(\d+)")


@functools.lru_cache(maxsize=512)
def _translated(sql: str) -> tuple[str, tuple[int, ...] | None]:
    """`sql` with plain `?` for its `$1` placeholders, and the parameters' positions in the
    order they appear (None when that is $1, $2, ...). Never SQLite's numbered `?N`: Python 3.12
    warns when a sequence is bound to them (3.14 refuses), and SQLite prepares long lists of
    them in quadratic time."""
    numbers = [int(n) for n in _PLACEHOLDER.findall(sql)]
    text = _PLACEHOLDER.sub("?", sql)
    if numbers == list(range(1, len(numbers) + 1)):
        return text, None
    return text, tuple(n - 1 for n in numbers)


def sqlite_sql(sql: str, params: Sequence[Any]) -> tuple[str, Sequence[Any]]:
    """The statement and its parameters as SQLite takes them (a `$n` used twice, or out of
    order, is passed at each place it appears)."""
    text, order = _translated(sql)
    return (text, params) if order is None else (text, [params[i] for i in order])


def sqlite_rows(sql: str, rows: Iterable[Sequence[Any]]) -> tuple[str, Iterable[Sequence[Any]]]:
    """`sqlite_sql` for executemany's rows."""
    text, order = _translated(sql)
    return (text, rows) if order is None else (text, ([row[i] for i in order] for row in rows))


class FromRows:
    """fetchval and script in terms of fetchrow and execute, for both SQLite connections."""

    async def execute(self, sql: str, *params: Any) -> int:
        raise NotImplementedError

    async def fetchrow(self, sql: str, *params: Any) -> sqlite3.Row | None:
        raise NotImplementedError

    async def fetchval(self, sql: str, *params: Any) -> Any:
        row = await self.fetchrow(sql, *params)
        return row[0] if row is not None else None

    async def script(self, statements: Iterable[str]) -> None:
        for statement in statements:
            await self.execute(statement)


# Run on a connection's own thread. Each closes its cursor before returning: a statement left
# open (a PRAGMA's row not read) would hold its lock.
def rowcount(conn: sqlite3.Connection, sql: str, params: Sequence[Any]) -> int:
    cursor = conn.execute(sql, params)
    try:
        return int(cursor.rowcount)
    finally:
        cursor.close()


def fetchall(conn: sqlite3.Connection, sql: str, params: Sequence[Any]) -> list[sqlite3.Row]:
    cursor = conn.execute(sql, params)
    try:
        return list(cursor.fetchall())
    finally:
        cursor.close()


def executemany(conn: sqlite3.Connection, sql: str, rows: Iterable[Sequence[Any]]) -> None:
    conn.executemany(sql, rows).close()


def rollback_if_open(conn: sqlite3.Connection, sql: str, params: Sequence[Any]) -> None:
    if conn.in_transaction:
        conn.execute("ROLLBACK").close()


def fetchone(conn: sqlite3.Connection, sql: str, params: Sequence[Any]) -> sqlite3.Row | None:
    cursor = conn.execute(sql, params)
    try:
        row: sqlite3.Row | None = cursor.fetchone()
        return row
    finally:
        cursor.close()
