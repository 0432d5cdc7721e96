"""Bringing a database to the schema (schema.py): an older one a step per transaction, a new one
in one; refusing a newer one.

An existing database is upgraded one step per transaction, as it always was. A new one (version 0)
gets every step's statements, in order, in ONE transaction: the same SQL, so the same schema, but
one commit (one sync to disk) instead of one per step, which is most of a first start's cost
(issue 25). Killed half-way, it leaves no schema at all, and the next start creates it again.
The applied version is kept in `schema_version`, and mirrored in SQLite's `user_version`, which is
what releases before the version table read, so an older ZeroQuiz refuses a newer file too.
Every function takes the `Schema` to hold the database to: this release's unless a test builds
another (a step more, or fewer).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from bot.storage.engine import Conn, Engine
from bot.storage.errors import DatabaseTooNewError, DatabaseUnusable
from bot.storage.progress import Progress, silent
from bot.storage.schema import SCHEMA, Schema, Step, spelling

SCHEMA_VERSION = SCHEMA.version
MIGRATION_LOCK = 0x5A51  # "ZQ": the advisory lock PostgreSQL replicas take to migrate


async def _version(conn: Conn) -> int:
    if conn.dialect == "postgres":
        legacy = 0
        has_table = await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
    else:
        legacy = int(await conn.fetchval("PRAGMA user_version") or 0)
        has_table = await conn.fetchval(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
        )
    table = (
        int(await conn.fetchval("SELECT MAX(version) FROM schema_version") or 0)
        if (has_table)
        else 0
    )
    return max(legacy, table)


async def schema_version(conn: Conn) -> int:
    """The schema version a database has (0: none yet)."""
    return await _version(conn)


# Created by migration 1 and never dropped: every ZeroQuiz file from any release has them.
OUR_TABLES = frozenset({"teams", "channels", "players", "rounds", "answers"})


def _too_new(path: str, version: int, schema: Schema) -> DatabaseTooNewError:
    return DatabaseTooNewError(
        path,
        f"has schema version {version}, but this ZeroQuiz only knows up to {schema.version}: "
        "upgrade ZeroQuiz or point --db at another file",
    )


async def check_ours(conn: Conn, path: str, schema: Schema = SCHEMA) -> None:
    """Refuse, before anything is written, a file that is another application's database (our
    tables would be added to it) or one a newer ZeroQuiz wrote. A file without tables is new."""
    listing = (
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        if conn.dialect == "postgres"
        else "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    )
    tables = {str(row[0]) for row in await conn.fetch(listing)}
    current = await _version(conn)
    if tables and not (tables >= OUR_TABLES and current > 0):
        raise DatabaseUnusable(
            path,
            f"is not a ZeroQuiz database (it has {len(tables)} table(s), but not ZeroQuiz's "
            "and no ZeroQuiz schema version): ZeroQuiz won't add its tables to another "
            "application's database; give the path of a new file",
        )
    if current > schema.version:
        raise _too_new(path, current, schema)


async def migrate(engine: Engine, schema: Schema = SCHEMA, progress: Progress = silent) -> None:
    """Bring the database to `schema`'s version (a new one in one transaction, an older one a
    transaction per step); refuse a newer one.

    PostgreSQL replicas starting together take turns: the whole migration runs under a session
    advisory lock, and the version is read only once it is held. (SQLite's write lock orders
    processes already.)"""
    if engine.dialect != "postgres":
        await _migrate(engine, schema, progress)
        return
    async with engine.raw() as conn:
        await conn.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
        try:
            await _migrate(engine, schema, progress)
        finally:
            await conn.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)


async def _migrate(engine: Engine, schema: Schema, progress: Progress) -> None:
    async with engine.raw() as conn:
        current = await _version(conn)
    if current > schema.version:
        raise _too_new(engine.path, current, schema)
    due = [step for step in schema.steps if step.version > current]
    # A new database: all of it at once, unless another process got to it first (then the
    # steps below take it from wherever that one left it, each re-reading the version).
    if current == 0 and due and await engine.run_transaction(partial(_apply, steps=due)):
        return
    what = f"upgrading the schema from v{current} to v{schema.version}"
    report = progress if current else silent  # a new database's tables take no time to create
    if due:
        report(what, 0, len(due))
    for done, step in enumerate(due, start=1):
        async with engine.transaction() as tx:
            await _apply(tx, [step])
        report(what, done, len(due))


async def _apply(tx: Conn, steps: Sequence[Step]) -> bool:
    """`steps` (consecutive) in the transaction `tx`; False, doing nothing, if the database
    already has the first of them. It awaits nothing but `tx`'s statements (so SQLite can run
    it in one trip: `Engine.run_transaction`)."""
    # Re-read under the write lock: another process may have migrated meanwhile.
    if await _version(tx) >= steps[0].version:
        return False
    await tx.execute("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)")
    for step in steps:
        await tx.script(step.statements(spelling(tx.dialect)))
        if step.backfill is not None:
            await step.backfill(tx)
    version = steps[-1].version
    await tx.execute("DELETE FROM schema_version")
    await tx.execute("INSERT INTO schema_version (version) VALUES ($1)", version)
    if tx.dialect == "sqlite":
        await tx.execute(f"PRAGMA user_version = {int(version)}")
    return True
