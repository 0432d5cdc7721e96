"""`zeroquiz drill` in the terminal, as real child processes on one database: the questions
missed in `zeroquiz play` come back, most recent first; those answered right leave the list."""

from __future__ import annotations

import re
from pathlib import Path

from test_console import terminal


def test_the_misses_of_play_come_back_and_right_ones_leave(tmp_path: Path) -> None:
    db = tmp_path / "q.db"
    played = terminal("play", ["--count", "8", "--topic", "stages"], "a\n" * 8, tmp_path, db)
    assert played.returncode == 0, played.stderr
    wrong = played.stdout.count("❌ Not quite")
    assert wrong >= 1  # eight questions answered "a": some are wrong
    first = terminal("drill", ["--topic", "stages"], "b\n\n" * 10, tmp_path, db)
    assert first.returncode == 0, first.stderr
    out = first.stdout
    assert "ZeroQuiz · Drill" in out
    assert f"Missed question 1 of {min(wrong, 10)}" in out.replace("\n   ", " ")
    right = out.count("✅ Correct!")
    assert out.count("❌ Not quite") + right == min(wrong, 10)
    found = re.search(r"Drill over: (\d+) missed question\(s\) left", out.replace("\n   ", " "))
    assert found and int(found.group(1)) == wrong - right
    second = terminal("drill", [], "q\n", tmp_path, db)
    assert second.returncode == 0, second.stderr
    if wrong == right:
        assert "Nothing missed" in second.stdout
    else:
        assert f"of {min(wrong - right, 10)}" in second.stdout.replace("\n   ", " ")
