"""The terminal adapter, driven exactly as the README's first command is: letters piped on stdin."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def zeroquiz() -> list[str]:
    script = Path(sys.executable).parent / "zeroquiz"
    return [str(script)] if script.exists() else [sys.executable, "-m", "adapters.cli"]


def play(args: list[str], stdin: str, cwd: Path, db: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ZEROQUIZ_DB"}
    env["ZEROQUIZ_DB"] = str(db)
    return subprocess.run(
        [*zeroquiz(), "play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
    )


def test_eight_letters_play_eight_questions_from_any_directory(tmp_path: Path) -> None:
    result = play([], "a\nb\nc\nd\na\nb\nc\nd\n", tmp_path, tmp_path / "q.sqlite3")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for n in range(1, 9):
        assert f"Question {n}/8" in out
    assert out.count("Why: ") == 8
    assert "Final score: " in out and " of 8 right" in out
    assert "Local leaderboard" in out and "1. you" in out
    assert (tmp_path / "q.sqlite3").exists()


def test_invalid_letters_reprompt_and_eof_ends_cleanly(tmp_path: Path) -> None:
    result = play(["--count", "3", "--player", "ana"], "x\n\nZZ\nb\n", tmp_path, tmp_path / "q.db")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("Type one of the letters") == 3
    assert "Question 2/3" in result.stdout
    assert "Final score: " in result.stdout and "of 1 right" in result.stdout
    assert "ana" in result.stdout


def test_indonesian_and_scores_accumulate_across_sessions(tmp_path: Path) -> None:
    db = tmp_path / "q.db"
    first = play(["--lang", "id", "--count", "2", "--player", "budi"], "a\na\n", tmp_path, db)
    assert first.returncode == 0, first.stderr
    assert "Soal 1/2" in first.stdout and "Penjelasan: " in first.stdout
    assert "Skor akhir" in first.stdout
    second = play(["--count", "2", "--player", "budi", "--db", str(db)], "b\nb\n", tmp_path, db)
    assert second.returncode == 0
    assert "· 2 right" in second.stdout or "4 right" in second.stdout or "right" in second.stdout
    # Questions are not repeated across sessions until the bank is exhausted.
    prompts_1 = [ln for ln in first.stdout.splitlines() if ln.startswith("Soal ")]
    assert len(prompts_1) == 2
