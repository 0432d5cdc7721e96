"""SQLite's WAL is copied into the database file on a connection of its own, never inside a
commit that clicks wait for: every so many commits, and sooner after commits that wrote many
pages (a burst of returning players' answers), before the writer would do it itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.storage import sqlite
from bot.storage.sqlite import SqliteEngine, wal_backlog


async def _write(engine: SqliteEngine, rows: int) -> None:
    async with engine.transaction() as tx:
        await tx.executemany("INSERT INTO t (x) VALUES ($1)", [("x" * 2000,)] * rows)


async def test_a_large_commit_is_checkpointed_in_the_background(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite, "CHECKPOINT_BACKLOG", 50)
    path = tmp_path / "quiz.sqlite3"
    engine = await SqliteEngine.open(path)
    try:
        async with engine.transaction() as tx:
            await tx.execute("CREATE TABLE t (x TEXT)")
        await _write(engine, 5)  # a few pages: left in the WAL for now
        assert engine._checkpoint is None
        assert 0 < wal_backlog(str(path)) < 50
        await _write(engine, 200)  # about 100 pages: more than the backlog allowed
        assert engine._commits < sqlite.CHECKPOINT_EVERY
        assert engine._checkpoint is not None
        await engine._checkpoint
        assert wal_backlog(str(path)) == 0  # every committed page is in the file now
    finally:
        await engine.close()


def test_no_wal_index_reads_as_no_backlog(tmp_path: Path) -> None:
    assert wal_backlog(str(tmp_path / "absent.sqlite3")) == 0
