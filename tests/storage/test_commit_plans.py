"""The group commit reads only what its batch names: none of its statements scans a whole table
(SQLite's plans), so a batch costs the same on a file of a thousand answers or of millions. A
row-value `(a, b) IN (VALUES …)` is answered by a scan of the table, and the cards' load, the
earlier answers of repeated clicks and the returning players' read were once written that way.

A returning player the process doesn't remember is read, not upserted, unless the click brings
a name that changes theirs: checked here too, since the read decides it now."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import CHANNEL
from helpers import player

from bot.model import UserRef
from bot.quiz import Quiz
from bot.storage import Store
from bot.storage.sqlite_thread import SqliteThread

SCAN = re.compile(r"\bSCAN (answers|cards|players|score_totals|rounds|teams)\b")


def scans(path: Path, statements: list[str]) -> list[tuple[str, str]]:
    """(statement, plan line) for every statement whose plan scans one of our tables."""
    conn = sqlite3.connect(path)
    found: list[tuple[str, str]] = []
    try:
        for sql in statements:
            if not re.match(r"\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b", sql, re.IGNORECASE):
                continue
            for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}"):
                if SCAN.search(str(row[3])):
                    found.append((" ".join(sql.split())[:120], str(row[3])))
    finally:
        conn.close()
    return found


def writer_of(store: Store) -> SqliteThread:
    """The thread that owns the store's writer connection (timed engine -> SQLite engine ->
    its writer), to trace the statements it runs."""
    engine: Any = store._engine
    thread: SqliteThread = engine._inner._writer.thread
    return thread


def names(path: Path) -> dict[str, str]:
    conn = sqlite3.connect(path)
    try:
        return dict(conn.execute("SELECT platform_user, display_name FROM players"))
    finally:
        conn.close()


async def test_a_batch_of_returning_repeated_and_new_players_scans_no_table(
    db_path: Path, make_quiz: Callable[..., Quiz]
) -> None:
    first = await Store.open(db_path)
    try:
        quiz = make_quiz(first)
        earlier = await quiz.rounds.start_round(CHANNEL)
        assert earlier is not None
        for n in range(5):
            await quiz.rounds.answer(earlier.round_id, player(n), n % 4)
        view = await quiz.rounds.start_round(CHANNEL)
        assert view is not None
        for n in (0, 1):  # two who answered this one already
            await quiz.rounds.answer(view.round_id, player(n), 0)
    finally:
        await first.close()

    store = await Store.open(db_path)  # a new process: it remembers no player
    statements: list[str] = []
    try:
        await writer_of(store).call(sqlite3.Connection.set_trace_callback, statements.append)
        quiz = make_quiz(store)
        renamed = UserRef(CHANNEL.platform, CHANNEL.team, "U2", "Renamed Two")
        handle = UserRef(CHANNEL.platform, CHANNEL.team, "U3", "u3-handle", provisional_name=True)
        results = await asyncio.gather(
            quiz.rounds.answer(
                view.round_id, player(0), 1
            ),  # repeats: their earlier answers are read
            quiz.rounds.answer(view.round_id, player(1), 1),
            quiz.rounds.answer(view.round_id, player(4), 1),  # returning, same name
            quiz.rounds.answer(view.round_id, renamed, 2),  # returning, a new name
            quiz.rounds.answer(view.round_id, handle, 3),  # returning, only a provisional name
            quiz.rounds.answer(view.round_id, player(9), 0),  # new
        )
    finally:
        await store.close()

    assert [r.status for r in results][:2] == ["already", "already"]
    assert all(r.status in ("correct", "wrong") for r in results[2:])
    assert any(re.match(r"SELECT .*\bcards\b", s, re.DOTALL) for s in statements), "cards read"
    repeat_read = re.compile(
        r"SELECT .*\bchoice\b.*\bJOIN answers|SELECT .*choice FROM answers", re.DOTALL
    )
    assert any(repeat_read.match(s) for s in statements), "the repeat's read ran"
    assert scans(db_path, statements) == []
    shown = names(db_path)
    assert shown["U2"] == "Renamed Two"
    assert shown["U3"] == player(3).display_name  # a handle never replaces a known name
    assert shown["U4"] == player(4).display_name and "U9" in shown
