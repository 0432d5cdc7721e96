"""The schema written once still makes exactly the databases every release made, on both backends.

tests/data/schema-v9.json is the schema that fresh databases of the last release before the steps
were written once (version 9) had, dumped from both backends by tests/storage/schemadump.py;
tests/data/schema.json is this release's (rewrite it with that script when a step is added, and
read the diff). Old databases are built from the statements each version shipped with
(tests/data/shipped-migrations.json), never by the code under test, then opened by the Store.
When a release ships new steps, add their statements there: from then on they can't change.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from pg_server import PgServer
from schemadump import schema_of

from bot.storage import Store
from bot.storage.schema import POSTGRES, SCHEMA, SQLITE, Spelling

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from history import shipped_statements

DATA = Path(__file__).resolve().parents[1] / "data"
SHIPPED_V9: dict[str, Any] = json.loads((DATA / "schema-v9.json").read_text())
CURRENT: dict[str, Any] = json.loads((DATA / "schema.json").read_text())
SHIPPED_VERSIONS = range(1, 10)  # releases up to version 9
BACKENDS = ("sqlite", "postgres")


SHIPPED_TEXT: dict[str, dict[str, list[str]]] = json.loads(
    (DATA / "shipped-migrations.json").read_text()
)


@pytest.mark.parametrize("spelt", [SQLITE, POSTGRES], ids=lambda s: s.dialect)
def test_a_shipped_step_is_never_edited(spelt: Spelling) -> None:
    """Append only: each step still writes, for each backend, exactly what it shipped as."""
    shipped = SHIPPED_TEXT[spelt.dialect]
    assert [int(v) for v in shipped] == list(SHIPPED_VERSIONS)
    for step in SCHEMA.steps[: len(shipped)]:
        assert list(step.statements(spelt)) == shipped[str(step.version)], step


async def empty(backend: str, tmp_path: Path, server: PgServer, name: str = "db") -> str:
    if backend == "sqlite":
        return str(tmp_path / f"{name}.sqlite3")
    return server.url(await server.create_database())


async def build_shipped(target: str, version: int) -> None:
    """A database as a release at `version` left it: its statements, and its version where that
    release kept it (SQLite files before step 3 only in `user_version`)."""
    if target.startswith("postgresql://"):
        conn = await asyncpg.connect(target)
        try:
            for sql in shipped_statements("postgres", version):
                await conn.execute(sql)
            await conn.execute("CREATE TABLE schema_version (version BIGINT NOT NULL)")
            await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", version)
        finally:
            await conn.close()
        return
    db = sqlite3.connect(target, isolation_level=None)
    try:
        for sql in shipped_statements("sqlite", version):
            db.execute(sql)
        if version >= 3:
            db.execute("CREATE TABLE schema_version (version BIGINT NOT NULL)")
            db.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))
        db.execute(f"PRAGMA user_version = {version}")
    finally:
        db.close()


async def opened(target: str, version: int | None = None) -> dict[str, Any]:
    """The schema after the Store opened `target` (migrating it to `version`, or to this
    release's schema)."""
    schema = SCHEMA if version is None else SCHEMA.upto(version)
    await (await Store.open(target, schema=schema)).close()
    return await schema_of(target)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_fresh_database_has_this_releases_schema_and_version_9_the_shipped_one(
    backend: str, tmp_path: Path, pg_server: PgServer
) -> None:
    fresh = await opened(await empty(backend, tmp_path, pg_server))
    assert fresh == CURRENT[backend]
    at_9 = await opened(await empty(backend, tmp_path, pg_server, "v9"), 9)
    assert at_9 == SHIPPED_V9[backend]


@pytest.mark.parametrize("version", SHIPPED_VERSIONS)
@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_database_of_every_shipped_version_upgrades_to_exactly_this_schema(
    backend: str, version: int, tmp_path: Path, pg_server: PgServer
) -> None:
    target = await empty(backend, tmp_path, pg_server)
    await build_shipped(target, version)
    assert await opened(target) == CURRENT[backend]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_each_version_number_means_what_it_shipped_as(
    backend: str, tmp_path: Path, pg_server: PgServer
) -> None:
    """Migrated to N by this code, a new database equals one a release at N made: a database
    at N is never given a step it had, nor spared one it lacked."""
    for version in SHIPPED_VERSIONS:
        ours = await opened(await empty(backend, tmp_path, pg_server, f"ours{version}"), version)
        theirs_at = await empty(backend, tmp_path, pg_server, f"theirs{version}")
        await build_shipped(theirs_at, version)
        if backend == "sqlite" and version < 3:  # those releases had no version table
            ours["tables"].pop("schema_version")
        assert ours == await schema_of(theirs_at), f"version {version}"


def same_type(sqlite_type: str, pg_type: str) -> bool:
    """Equal, or the one difference the steps name (`Spelling.int`); `Spelling.id` is that
    integer with its numbering, which the column's identity shows."""
    if sqlite_type.upper() == pg_type.upper():
        return True
    return (sqlite_type, pg_type.upper()) == (SQLITE.int, POSTGRES.int)


def pg_key_columns(table: dict[str, Any], kind: str) -> list[list[str]]:
    """The column lists of a PostgreSQL table's primary key ('p') or unique constraints ('u')."""
    return sorted(
        [c.strip() for c in d.split("(", 1)[1].rstrip(")").split(",")]
        for _, k, d in table["constraints"]
        if k == kind
    )


def test_sqlite_and_postgresql_end_with_the_same_tables_and_columns() -> None:
    lite, pg = CURRENT["sqlite"], CURRENT["postgres"]
    assert lite["tables"].keys() == pg["tables"].keys()
    for name, table in lite["tables"].items():
        other = pg["tables"][name]
        assert [c[0] for c in table["columns"]] == [c[0] for c in other["columns"]], name
        keys = [c[0] for c in sorted(table["columns"], key=lambda c: c[4]) if c[4]]
        for mine, theirs in zip(table["columns"], other["columns"], strict=True):
            column = f"{name}.{mine[0]}"
            assert same_type(mine[1], theirs[1]), f"{column}: {mine[1]} vs {theirs[1]}"
            assert (mine[2] or mine[4] > 0) == theirs[2], f"{column}: nullability"
            default = theirs[3].split("::")[0] if theirs[3] else None
            assert mine[3] == default, f"{column}: default"
            numbered = keys == [mine[0]] and f"{mine[1]} PRIMARY KEY" == SQLITE.id  # the rowid
            assert numbered == (theirs[4] == "d"), f"{column}: numbered by the database"
        assert pg_key_columns(other, "p") == ([keys] if keys else []), name
        assert table["unique"] == pg_key_columns(other, "u"), name
        pg_refs = sorted(
            d.split("REFERENCES ")[1].split("(")[0] for _, k, d in other["constraints"] if k == "f"
        )
        assert sorted(f[1] for f in table["foreign_keys"]) == pg_refs, name
        assert len(table["checks"]) == sum(k == "c" for _, k, _ in other["constraints"]), name
    assert lite["indexes"].keys() == {
        n for n, i in pg["indexes"].items() if not n.endswith(("_pkey", "_key"))
    }
    for name, index in lite["indexes"].items():
        assert index["table"] == pg["indexes"][name]["table"], name
