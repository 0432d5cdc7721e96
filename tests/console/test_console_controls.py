"""The team controls in the terminal, typed at the prompt of a real `zeroquiz play` child: the
person at the terminal owns its database, so `forget me`, `season new`, `window` and `audit`
are theirs, and what they do is read back from the file."""

from __future__ import annotations

from pathlib import Path

from helpers import peek
from test_console import play


def test_forget_me_season_window_and_audit_at_the_prompt(tmp_path: Path) -> None:
    db = tmp_path / "q.db"
    first = play(["--count", "1", "--player", "ana"], "a\n", tmp_path, db)
    assert first.returncode == 0, first.stderr
    assert peek(db, "SELECT COUNT(*) FROM answers") == [(1,)]

    typed = "/forget me\n/forget me confirm\n/season new\n/window 5m\n/window\n/audit\nb\n"
    second = play(["--count", "1", "--player", "ana"], typed, tmp_path, db)
    assert second.returncode == 0, second.stderr
    out = second.stdout
    assert "This deletes your 1 answers" in out and "/zeroquiz forget me confirm" in out
    assert "Done: your 1 answers" in out
    assert "A new season began today" in out
    assert "5 min (set by an admin)" in out
    assert "ZeroQuiz · Admin actions" in out and "page 1 of 1 (2 in all)" in out
    assert out.index("/zeroquiz window 5m") < out.index("/zeroquiz season new")  # newest first
    assert out.count("Why: ") == 1  # then the game went on
    # What is stored now: only the answer given after the forget, by a new player.
    assert peek(db, "SELECT COUNT(*) FROM answers") == [(1,)]
    assert peek(db, "SELECT COUNT(*) FROM players") == [(1,)]
    assert peek(db, "SELECT window_ms FROM channel_windows") == [(5 * 60 * 1000,)]
