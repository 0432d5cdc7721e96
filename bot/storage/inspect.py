"""What `zeroquiz check` says about the database `serve` would open, found by looking only.

The same checks as start-up (startup.py) up to the first write: the place, the file's kind, the
tables and the schema version, or a PostgreSQL server's answer. Nothing is created, migrated or
locked, so it is safe beside a running bot. What only a write can find (a lock held by another
process, a server's missing rights) is left to start-up.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from bot.storage.errors import DatabaseUnusable
from bot.storage.migrations import check_ours, schema_version
from bot.storage.place import check_place
from bot.storage.schema import SCHEMA, Schema
from bot.storage.sqlite import inspecting
from bot.storage.startup import backend_of, connect_postgres, sqlite_faults
from bot.storage.urls import display_url


class Found(NamedTuple):
    shown: str  # the path, or the URL with its password hidden
    backend: str  # "SQLite" or "PostgreSQL"
    version: int  # 0: no ZeroQuiz tables yet
    current: int  # the version this release migrates to
    exists: bool = True  # False: a SQLite file serve would create

    def describe(self) -> str:
        if not self.exists:
            return f"{self.shown} ({self.backend}: a new file, created at start)"
        if not self.version:
            return f"{self.shown} ({self.backend}: empty, ZeroQuiz's tables created at start)"
        if self.version < self.current:
            return (
                f"{self.shown} ({self.backend}, schema v{self.version}: upgraded to "
                f"v{self.current} at start)"
            )
        return f"{self.shown} ({self.backend}, schema v{self.version}, current)"


async def inspect_database(
    where: str | Path, *, create_parent: bool = False, schema: Schema = SCHEMA
) -> Found:
    """The database as start-up would find it; DatabaseUnusable (or DatabaseUnreachable) with
    the very line start-up would print when it would refuse it."""
    dialect, target = backend_of(where)
    if dialect == "postgres":
        return await _postgres(target, schema)
    if target == ":memory:":
        return Found(target, "SQLite", 0, schema.version, exists=False)
    file = Path(target)
    if create_parent and not file.parent.exists():
        return Found(target, "SQLite", 0, schema.version, exists=False)  # ZeroQuiz's own dir
    check_place(file)
    if not file.exists():
        return Found(target, "SQLite", 0, schema.version, exists=False)
    if not file.stat().st_size:
        return Found(target, "SQLite", 0, schema.version)
    with sqlite_faults(target):
        async with inspecting(target) as conn:
            await check_ours(conn, target, schema)
            version = await schema_version(conn)
    return Found(target, "SQLite", version, schema.version)


async def _postgres(url: str, schema: Schema) -> Found:
    from bot.storage.pgfaults import pg_problem

    shown = display_url(url)
    engine = await connect_postgres(url)
    try:
        async with engine.raw() as conn:
            await check_ours(conn, shown, schema)
            version = await schema_version(conn)
    except DatabaseUnusable:
        raise
    except BaseException as exc:
        problem = pg_problem(exc)
        if problem is None:
            raise
        raise DatabaseUnusable(shown, problem) from None
    finally:
        await engine.close()
    return Found(shown, "PostgreSQL", version, schema.version)
