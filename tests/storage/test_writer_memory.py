"""The SQLite writer's memory: a page cache that follows the file, and Python's cyclic collector
held off only while a transaction runs on the writer's thread."""

from __future__ import annotations

import gc
import sqlite3
from pathlib import Path

import pytest
from conftest import CHANNEL

from bot.model import UserRef
from bot.quiz import Quiz
from bot.storage import Store
from bot.storage.engine import Conn
from bot.storage.sqlite import DEFAULT_CACHE_KIB, WRITER_CACHE_MAX_KIB, SqliteEngine


async def cache_sizes(store: Store) -> tuple[int, list[int]]:
    """The writer's and the readers' `PRAGMA cache_size` (negative: KiB)."""
    engine = getattr(store._engine, "_inner", store._engine)  # under the metrics' timing
    assert isinstance(engine, SqliteEngine)
    async with engine.raw() as writer:
        mine = int(await writer.fetchval("PRAGMA cache_size"))
    readers = [int(await r.fetchval("PRAGMA cache_size")) for r in engine._all_readers]
    return mine, readers


def grow(path: Path, mib: int) -> None:
    """Make the database file about `mib` MiB, as a long history would."""
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE ballast (b BLOB)")
    conn.executemany("INSERT INTO ballast VALUES (randomblob(1048576))", [()] * mib)
    conn.commit()
    conn.close()


async def test_a_new_file_keeps_sqlites_default_cache(tmp_path: Path) -> None:
    store = await Store.open(tmp_path / "new.sqlite3")
    try:
        writer, readers = await cache_sizes(store)
    finally:
        await store.close()
    assert writer == -DEFAULT_CACHE_KIB
    assert readers and all(r == -DEFAULT_CACHE_KIB for r in readers)


async def test_the_writers_cache_is_a_quarter_of_a_large_file(tmp_path: Path) -> None:
    path = tmp_path / "large.sqlite3"
    await (await Store.open(path)).close()
    grow(path, 40)
    store = await Store.open(path)
    try:
        writer, readers = await cache_sizes(store)
    finally:
        await store.close()
    size_kib = path.stat().st_size // 1024
    assert -writer == pytest.approx(size_kib / 4, rel=0.05)
    assert -writer <= WRITER_CACHE_MAX_KIB
    assert all(r == -DEFAULT_CACHE_KIB for r in readers)  # the readers keep the default


async def click(quiz: Quiz, user: str) -> bool:
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None
    return (await quiz.rounds.answer(view.round_id, UserRef("test", "T1", user, user), 0)).recorded


async def test_the_collector_runs_again_after_a_transaction_and_after_a_failed_one(
    quiz: Quiz, db: Store
) -> None:
    assert await click(quiz, "U1")
    assert gc.isenabled()

    async def fails(tx: Conn) -> None:
        await tx.execute("INSERT INTO no_such_table VALUES (1)")

    with pytest.raises(sqlite3.OperationalError):
        await db._engine.run_transaction(fails)
    assert gc.isenabled()
    gc.disable()  # someone else's choice is left as it was
    try:
        assert await click(quiz, "U2")
        assert not gc.isenabled()
    finally:
        gc.enable()
