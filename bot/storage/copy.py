"""Copying one ZeroQuiz database into another (SQLite → PostgreSQL, or back), verified by counts.

Both ends are opened as Stores, so both are checked and migrated to this release's schema first.
The destination must be empty: a copy never merges two histories. Rows keep their ids, so every
reference (answers → rounds → channels → teams) stays true; PostgreSQL's id sequences are then
moved past the copied ids. The tables and columns copied are read from the database, named by
the schema's steps (schema.py), which also say what is left out: state of running processes
(claims on rounds, shard leases) or of a platform (OAuth states, minutes-long).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

from bot.storage.engine import Conn, Engine
from bot.storage.progress import Progress, silent
from bot.storage.schema import SCHEMA, Schema

BATCH = 1000


class Table(NamedTuple):
    name: str
    columns: tuple[str, ...]


async def _catalogue(conn: Conn) -> dict[str, tuple[tuple[str, ...], set[str]]]:
    """Each table of the database: its columns in order, and the tables it references."""
    found: dict[str, tuple[tuple[str, ...], set[str]]] = {}
    if conn.dialect == "postgres":
        for row in await conn.fetch(
            """SELECT table_name, array_agg(column_name::text ORDER BY ordinal_position)
               FROM information_schema.columns WHERE table_schema = current_schema()
               GROUP BY table_name"""
        ):
            found[str(row[0])] = (tuple(row[1]), set())
        for row in await conn.fetch(
            """SELECT c.relname, r.relname FROM pg_constraint k
               JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class r ON r.oid = k.confrelid
               WHERE k.contype = 'f' AND c.relnamespace = current_schema()::regnamespace"""
        ):
            found[str(row[0])][1].add(str(row[1]))
        return found
    for row in await conn.fetch(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ):
        name = str(row[0])
        columns = tuple(str(r[1]) for r in await conn.fetch(f"PRAGMA table_info({name})"))
        refs = {str(r[2]) for r in await conn.fetch(f"PRAGMA foreign_key_list({name})")}
        found[name] = (columns, refs)
    return found


async def copied_tables(conn: Conn, schema: Schema = SCHEMA) -> list[Table]:
    """The tables a copy, backup or restore carries, read from the database: every one the
    steps create and the database has, with its columns, but what the steps leave out; a table
    after those it references, otherwise in the order the steps create them."""
    catalogue = await _catalogue(conn)
    left_out = schema.not_copied
    names = [t for t in dict.fromkeys(schema.tables()) if t in catalogue and t not in left_out]
    ordered: list[str] = []
    while names:
        ready = next(
            (t for t in names if catalogue[t][1] & set(names) <= {t}),
            None,
        )
        if ready is None:
            raise ValueError(f"the tables' references go round in a circle: {names}")
        ordered.append(ready)
        names.remove(ready)
    return [
        Table(t, tuple(c for c in catalogue[t][0] if f"{t}.{c}" not in left_out)) for t in ordered
    ]


class CopyRefused(Exception):
    """The copy can't be made (the destination isn't empty); nothing was written."""


class Copied(NamedTuple):
    table: str
    rows: int


async def counts(engine: Engine, schema: Schema = SCHEMA) -> dict[str, int]:
    async with engine.snapshot() as conn:
        return {
            t.name: int(await conn.fetchval(f"SELECT COUNT(*) FROM {t.name}"))
            for t in await copied_tables(conn, schema)
        }


async def copy_database(
    source: Engine,
    target: Engine,
    *,
    replace: bool = False,
    schema: Schema = SCHEMA,
    progress: Progress = silent,
) -> list[Copied]:
    """Copy every row, in one transaction on the target; CopyRefused if it has rows already,
    unless `replace`: then its rows are deleted in that same transaction (a restore). Both are
    migrated to `schema` already. `progress` hears (copying <table>, rows written, rows) after
    every batch."""
    if not replace and any((await counts(target, schema)).values()):
        raise CopyRefused(f"{target.path} already holds ZeroQuiz data: copy into an empty one")
    copied: list[Copied] = []
    async with source.snapshot() as src, target.transaction() as dst:
        tables = await copied_tables(src, schema)
        if replace:
            for table in reversed(tables):
                await dst.execute(f"DELETE FROM {table.name}")
        for table in tables:
            columns = table.columns
            rows = await src.fetch(f"SELECT {', '.join(columns)} FROM {table.name} ORDER BY 1")
            what = f"copying {table.name}"

            def written(done: int, what: str = what, total: int = len(rows)) -> None:
                progress(what, done, total)

            await _insert(
                dst, table.name, columns, (tuple(r[c] for c in columns) for r in rows), written
            )
            copied.append(Copied(table.name, len(rows)))
        if dst.dialect == "postgres":
            for name in (t.name for t in tables if "id" in t.columns):
                await dst.execute(
                    f"""SELECT setval(pg_get_serial_sequence('{name}', 'id'),
                                      COALESCE((SELECT MAX(id) FROM {name}), 0) + 1, false)"""
                )
    return copied


async def _insert(
    conn: Conn,
    table: str,
    columns: tuple[str, ...],
    rows: Iterable[tuple[object, ...]],
    written: Callable[[int], None],
) -> None:
    marks = ", ".join(f"${n + 1}" for n in range(len(columns)))
    sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
    batch: list[tuple[object, ...]] = []
    done = 0
    for row in rows:
        batch.append(row)
        if len(batch) >= BATCH:
            await conn.executemany(sql, batch)
            done += len(batch)
            written(done)
            batch = []
    if batch:
        await conn.executemany(sql, batch)
        done += len(batch)
        written(done)
