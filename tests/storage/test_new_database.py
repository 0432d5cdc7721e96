"""A new database is created in one transaction (issue 25: a first start paid a commit per step):
it ends exactly as one built step by step, a kill during its creation leaves nothing half-made,
and replicas starting on it together all start. An older database still upgrades a step per
transaction: a kill during a later step keeps the steps before it."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from pg_server import PgServer, look, open_at_once
from schemadump import schema_of

from bot.storage import SCHEMA_VERSION, Store
from bot.storage.schema import SCHEMA

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parents[1] / "data"
BACKENDS = ("sqlite", "postgres")
ROUNDS = 10  # racing openers: one round in ~15 caught the WAL switch's refusal (CI)
HELD_S = 0.05  # another process's write lock on a new file, far shorter than the busy timeout
OPEN_TIMEOUT = 60.0  # a guard against a lock left held, not a measure: opening takes a second


async def new_target(backend: str, tmp_path: Path, server: PgServer, name: str) -> str:
    if backend == "sqlite":
        return str(tmp_path / f"{name}.sqlite3")
    return server.url(await server.create_database())


async def tables(target: str) -> list[str]:
    sql = (
        "SELECT table_name FROM information_schema.tables"
        " WHERE table_schema = current_schema() ORDER BY 1"
        if target.startswith("postgresql://")
        else "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY 1"
    )
    return [str(row[0]) for row in await look(target, sql)]


async def everything(target: str) -> dict[str, Any]:
    """The schema dump, the version row(s), and for SQLite the catalogue in its stored order."""
    dump = await schema_of(target)
    dump["schema_version"] = await look(target, "SELECT version FROM schema_version")
    if not target.startswith("postgresql://"):
        dump["sqlite_master"] = await look(
            target, "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid"
        )
    return dump


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_new_database_ends_exactly_as_one_built_step_by_step(
    backend: str, tmp_path: Path, pg_server: PgServer
) -> None:
    at_once = await new_target(backend, tmp_path, pg_server, "at_once")
    await (await Store.open(at_once)).close()

    # Step 1 alone, then every later step in a transaction of its own, as an upgrade goes.
    by_steps = await new_target(backend, tmp_path, pg_server, "by_steps")
    await (await Store.open(by_steps, schema=SCHEMA.upto(1))).close()
    heard: list[tuple[str, int, int]] = []
    store = await Store.open(by_steps, progress=lambda *report: heard.append(report))
    await store.close()
    steps = [(done, of) for what, done, of in heard if what.startswith("upgrading the schema")]
    assert steps == [(n, SCHEMA_VERSION - 1) for n in range(SCHEMA_VERSION)]  # 0, then each step

    made = await everything(at_once)
    assert made == await everything(by_steps)
    assert made["schema_version"] == [(SCHEMA_VERSION,)]
    if backend == "sqlite":
        assert made["user_version"] == SCHEMA_VERSION


async def spawn_creation(target: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        str(ROOT / "tests" / "storage" / "creation_target.py"),
        target,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests'}"},
    )


async def kill_in_the_last_step(target: str) -> None:
    """A process opening `target` with a step more than this release, SIGKILLed inside it."""
    proc = await spawn_creation(target)
    try:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), OPEN_TIMEOUT)
        assert line == b"in the last step\n"
    finally:
        proc.kill()
        await proc.wait()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_a_kill_while_a_new_database_is_created_leaves_no_schema_and_the_next_start_works(
    backend: str, tmp_path: Path, pg_server: PgServer
) -> None:
    target = await new_target(backend, tmp_path, pg_server, "killed")
    await kill_in_the_last_step(target)
    assert await tables(target) == []  # not this release's steps without the last one

    store = await asyncio.wait_for(Store.open(target), OPEN_TIMEOUT)
    await store.close()
    fresh = await new_target(backend, tmp_path, pg_server, "fresh")
    await (await Store.open(fresh)).close()
    assert await everything(target) == await everything(fresh)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_an_older_database_still_upgrades_a_step_per_transaction(
    backend: str, tmp_path: Path, pg_server: PgServer
) -> None:
    target = await new_target(backend, tmp_path, pg_server, "v9")
    await (await Store.open(target, schema=SCHEMA.upto(9))).close()
    await kill_in_the_last_step(target)
    # Steps 10 to this release's were each committed before the one killed half-way.
    assert await look(target, "SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]
    assert "later" not in await tables(target)
    await (await asyncio.wait_for(Store.open(target), OPEN_TIMEOUT)).close()


async def test_processes_starting_on_one_new_sqlite_file_at_once_all_start(
    tmp_path: Path,
) -> None:
    for n in range(ROUNDS):
        target = str(tmp_path / f"shared{n}.sqlite3")
        await open_at_once(target, 4)
        fresh = str(tmp_path / f"fresh{n}.sqlite3")
        await (await Store.open(fresh)).close()
        assert await everything(target) == await everything(fresh)


async def test_a_new_sqlite_file_another_process_is_writing_is_waited_for_not_refused(
    tmp_path: Path,
) -> None:
    """Switching a new file to WAL needs its exclusive lock; SQLite refuses it at once (no busy
    wait) while another connection writes, so ZeroQuiz has to wait itself (CI saw replicas
    starting together refused: "locked ... for 5 s" after a few milliseconds)."""
    target = tmp_path / "busy.sqlite3"
    other = sqlite3.connect(target, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    release = asyncio.get_running_loop().call_later(HELD_S, other.execute, "ROLLBACK")
    try:
        store = await asyncio.wait_for(Store.open(str(target)), OPEN_TIMEOUT)
        await store.close()
    finally:
        release.cancel()
        other.close()
    assert await look(str(target), "SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]


def test_a_database_file_made_in_one_transaction_is_one_sqlite_accepts(tmp_path: Path) -> None:
    target = tmp_path / "new.sqlite3"
    asyncio.run(_open_close(target))
    conn = sqlite3.connect(target)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        conn.close()


async def _open_close(target: Path) -> None:
    await (await Store.open(target)).close()
