"""Each SQLite connection's own thread (bot/storage/sqlite_thread.py): a closed store, or one
that failed to open, leaves none of them running, and a call's error reaches its caller."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from bot.storage import Store
from bot.storage.sqlite import inspecting
from bot.storage.sqlite_thread import SqliteThread


def sqlite_threads(path: Path) -> list[threading.Thread]:
    """The running connection threads of the file at `path` (named after it)."""
    return [t for t in threading.enumerate() if t.name == f"zeroquiz-sqlite {path}"]


async def test_a_closed_store_leaves_no_connection_thread_running(tmp_path: Path) -> None:
    path = tmp_path / "quiz.sqlite3"
    store = await Store.open(path)
    opened = sqlite_threads(path)
    assert len(opened) == 4  # the writer, two readers, the checkpointer
    await store.close()
    assert sqlite_threads(path) == []
    assert not any(t.is_alive() for t in opened)


async def test_a_connection_that_fails_to_open_leaves_no_thread(tmp_path: Path) -> None:
    path = tmp_path / "missing.sqlite3"
    with pytest.raises(sqlite3.OperationalError):
        async with inspecting(str(path)):
            pass
    assert [t for t in threading.enumerate() if str(path) in t.name] == []


async def test_a_calls_error_reaches_its_caller_and_the_thread_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    conn = await SqliteThread.open(str(path))
    try:
        with pytest.raises(sqlite3.OperationalError, match="no such table"):
            await conn.call(sqlite3.Connection.execute, "SELECT * FROM nowhere")
        assert await conn.call(lambda c: c.execute("SELECT 41 + 1").fetchone()) == (42,)
    finally:
        await conn.close()
    with pytest.raises(sqlite3.ProgrammingError):
        await conn.call(sqlite3.Connection.execute, "SELECT 1")
    assert sqlite_threads(path) == []
