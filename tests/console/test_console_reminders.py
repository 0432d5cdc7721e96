"""A review reminder at the terminal, as real child processes on one database: set with
`/zeroquiz remind` typed at a prompt, it shows once, as a line before the next prompt, on the day
its time has come and cards are due; never twice that day."""

from __future__ import annotations

import sqlite3
import time
from datetime import UTC, datetime
from pathlib import Path

from test_console import terminal

HOUR_MS = 3_600_000


def test_the_reminder_shows_once_before_a_prompt_when_cards_are_due(tmp_path: Path) -> None:
    db = tmp_path / "q.db"
    played = terminal("play", ["--count", "6", "--topic", "stages"], "a\n" * 6, tmp_path, db)
    assert played.returncode == 0, played.stderr
    with sqlite3.connect(db) as conn:  # the cards come due: an hour ago
        conn.execute("UPDATE cards SET due_at = ?", (int(time.time() * 1000) - HOUR_MS,))
    minute = f"{datetime.now(UTC):%H:%M}"
    set_it = terminal("review", [], f"/zeroquiz remind {minute} UTC every day\nq\n", tmp_path, db)
    assert set_it.returncode == 0, set_it.stderr
    assert "Review reminder set" in set_it.stdout and "Reminder:" not in set_it.stdout
    with sqlite3.connect(db) as conn:  # as if set yesterday: today's minute, just passed, counts
        conn.execute("UPDATE reminders SET updated_at = updated_at - ?", (HOUR_MS,))
        due = conn.execute("SELECT COUNT(*) FROM cards").fetchone()[0]
    first = terminal("review", [], "q\n", tmp_path, db)
    assert first.returncode == 0, first.stderr
    assert first.stdout.count(f"Reminder: {due} review card(s) due") == 1, first.stdout
    again = terminal("review", [], "q\n", tmp_path, db)
    assert "Reminder:" not in again.stdout
    off = terminal("review", [], "/zeroquiz remind off\nq\n", tmp_path, db)
    assert "Review reminder off" in off.stdout
