"""Opening the database at start-up: every way it can be unusable ends in one DatabaseUnusable.

The order matters: first only looks (the place, then a read of the schema on a plain connection),
and only a file that passed them is switched to WAL and migrated; last, the write lock is taken
once, so a file another process keeps locked is refused now rather than at the first answer.
SQLite errors that say something about the file (locked, read-only, not a database, damaged,
can't be opened, I/O, disk full) become DatabaseUnusable; any other error is a bug and stays one.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from bot.storage.engine import DB_TIMEOUTS, DbTimeouts, Dialect, Engine
from bot.storage.errors import DatabaseUnreachable, DatabaseUnusable
from bot.storage.migrations import check_ours, migrate, schema_version
from bot.storage.place import check_place
from bot.storage.progress import Progress, silent
from bot.storage.schema import SCHEMA, Schema
from bot.storage.sqlite import BUSY_TIMEOUT_MS, SqliteEngine, inspecting
from bot.storage.urls import display_url

_LOCKED = (
    f"is locked by another process (it could not be written for {BUSY_TIMEOUT_MS / 1000:g} s): "
    "stop that process, or give ZeroQuiz a file of its own"
)
_PROBLEMS = {
    sqlite3.SQLITE_BUSY: _LOCKED,
    sqlite3.SQLITE_LOCKED: _LOCKED,
    sqlite3.SQLITE_READONLY: "is read-only: ZeroQuiz must be able to write to it and beside it",
    sqlite3.SQLITE_NOTADB: "is not a SQLite database",
    sqlite3.SQLITE_CORRUPT: "is damaged (SQLite: {error})",
    sqlite3.SQLITE_CANTOPEN: "cannot be opened (SQLite: {error})",
    sqlite3.SQLITE_PERM: "cannot be opened (SQLite: {error})",
    sqlite3.SQLITE_IOERR: "could not be read or written (SQLite: {error})",
    sqlite3.SQLITE_FULL: "cannot grow: the disk is full",
}


_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def backend_of(target: str | Path) -> tuple[Dialect, str]:
    """Which backend a `--db`/ZEROQUIZ_DB value names: a PostgreSQL URL, or a SQLite file (a path,
    or `sqlite:///relative` / `sqlite:////absolute`, as SQLAlchemy writes them)."""
    text = str(target)
    if text.startswith(("postgresql://", "postgres://")):
        _check_ports(text)
        return "postgres", text
    if text.startswith("sqlite:///"):
        return "sqlite", text.removeprefix("sqlite:///")
    if _URL.match(text) and not Path(text).exists():
        raise DatabaseUnusable(
            display_url(text), "is a URL ZeroQuiz can't use: give postgresql://… or a file path"
        )
    return "sqlite", text


def _check_ports(url: str) -> None:
    """A port that is no port (`:99999`, `:notaport`) is a setting to fix, said in one line
    without the password; the drivers would end in a traceback (OverflowError, ValueError). Hosts
    may be several, comma-separated, as libpq allows."""
    hosts = url.split("://", 1)[1].split("/", 1)[0].split("?", 1)[0].rpartition("@")[2]
    for host in hosts.split(","):
        port = host.rpartition("]")[2] if host.startswith("[") else host
        value = port.rpartition(":")[2] if ":" in port else ""
        if value and not (value.isascii() and value.isdigit() and 0 < int(value) < 65536):
            shown = value if len(value) <= 20 else value[:20] + "…"
            raise DatabaseUnusable(
                display_url(url), f"has port {shown!r}: a port is a number from 1 to 65535"
            )


async def open_engine(
    path: str | Path,
    *,
    create_parent: bool = False,
    schema: Schema = SCHEMA,
    progress: Progress = silent,
    keep_original: bool = True,
    timeouts: DbTimeouts = DB_TIMEOUTS,
) -> Engine:
    """The engine on a checked, migrated (to `schema`), writable database; DatabaseUnusable
    names what's wrong (a file's path, or a URL with its password left out). `progress` hears
    how an upgrade goes; `keep_original` False skips the pre-migration backup, for a private
    copy whose original stays untouched anyway (a restore's). `timeouts`: a server's (not a
    file's)."""
    dialect, target = backend_of(path)
    if dialect == "postgres":
        return await open_postgres(target, schema, progress, timeouts)
    if target == ":memory:":
        engine = await SqliteEngine.open(target)
        await _prepare(engine, schema, progress)
        return engine
    file = Path(target)
    check_place(file, create_parent=create_parent)
    with sqlite_faults(target):
        if file.exists() and file.stat().st_size:
            async with inspecting(target) as conn:
                await check_ours(conn, target, schema)
                version = await schema_version(conn)
            if 0 < version < schema.version and keep_original:
                # An upgrade rewrites tables in place: keep the file as it was, beside it.
                from bot.storage.backup import pre_migration_backup

                await asyncio.to_thread(pre_migration_backup, file, schema.version, progress)
        engine = await SqliteEngine.open(target)
        await _prepare(engine, schema, progress)
    return engine


async def connect_postgres(url: str, timeouts: DbTimeouts = DB_TIMEOUTS) -> Engine:
    """A pool on the server, nothing checked or written yet; its faults as DatabaseUnusable."""
    # asyncpg is imported only for a PostgreSQL URL: a SQLite bot never loads it (memory).
    from bot.storage.pgfaults import pg_problem, pg_transient
    from bot.storage.postgres import PgEngine

    try:
        return await PgEngine.open(url, timeouts=timeouts)
    except BaseException as exc:
        problem = pg_problem(exc, timeouts.connect)
        if problem is None:
            raise
        kind = DatabaseUnreachable if pg_transient(exc) else DatabaseUnusable
        raise kind(display_url(url), problem) from None


async def open_postgres(
    url: str,
    schema: Schema = SCHEMA,
    progress: Progress = silent,
    timeouts: DbTimeouts = DB_TIMEOUTS,
) -> Engine:
    from bot.storage.pgfaults import pg_problem

    shown = display_url(url)
    engine = await connect_postgres(url, timeouts)
    try:
        async with engine.raw() as conn:
            await check_ours(conn, shown, schema)
        await _prepare(engine, schema, progress)
    except DatabaseUnusable:
        raise
    except BaseException as exc:
        problem = pg_problem(exc)
        if problem is None:
            raise
        raise DatabaseUnusable(shown, problem) from None
    return engine


async def _prepare(engine: Engine, schema: Schema, progress: Progress = silent) -> None:
    try:
        await migrate(engine, schema, progress)
        await engine.check_writable()
    except BaseException:
        await engine.close(checkpoint=False)
        raise


@contextlib.contextmanager
def sqlite_faults(path: str) -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as exc:
        code = getattr(exc, "sqlite_errorcode", None)
        problem = _PROBLEMS.get(code & 0xFF) if isinstance(code, int) else None
        if problem is None:
            raise
        error = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DatabaseUnusable(path, problem.format(error=error)) from exc
