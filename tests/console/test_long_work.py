"""Long work says how far it has got: `copy`, `backup` and `restore` of a big, old database.

A 500,000-answer file at schema version 2 (tests/bench/history.py writes it in about 2 s) is what
made `copy` silent for 9 s: now its upgrade and every table's rows are reported as they go, with
counts, on stderr (a line per tenth when stderr is not a terminal, a bar when it is), while
stdout keeps the command's result. Restoring an old backup over a file leaves nothing hidden
beside it.
"""

from __future__ import annotations

import os
import pty
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli_errors import clean_env, run
from test_console import zeroquiz

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from history import make_v2_history

ANSWERS = 500_000
LINE = re.compile(r"^zeroquiz: (?P<what>[^:]+): (?P<done>\d+)/(?P<total>\d+) \((?P<pct>\d+)%\)$")


@pytest.fixture(scope="module")
def old_history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("history") / "v2.sqlite3"
    make_v2_history(path, answers=ANSWERS, players=2000, seed=7)
    return path


def progress_lines(stderr: str) -> dict[str, list[tuple[int, int]]]:
    """Each piece of work's reports in order: (done, total)."""
    seen: dict[str, list[tuple[int, int]]] = {}
    for line in stderr.splitlines():
        found = LINE.match(line)
        assert found, f"not a progress line: {line!r}"
        seen.setdefault(found["what"], []).append((int(found["done"]), int(found["total"])))
    return seen


def test_copy_of_500k_answers_reports_the_upgrade_and_the_rows_as_it_goes(
    old_history: Path, tmp_path: Path
) -> None:
    source = tmp_path / "source.sqlite3"
    source.write_bytes(old_history.read_bytes())
    result = run(["copy", str(source), str(tmp_path / "copy.sqlite3")], tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"answers: {ANSWERS} rows" in result.stdout  # the result stays on stdout
    seen = progress_lines(result.stderr)
    answers = seen["copying answers"]
    assert answers[-1] == (ANSWERS, ANSWERS)
    assert len(answers) == 10  # a line per tenth, growing: the work is seen moving
    assert [d for d, _ in answers] == sorted({d for d, _ in answers})
    upgrade = next(v for k, v in seen.items() if k.startswith("upgrading the schema from v2 to"))
    steps = upgrade[-1][1]
    # Begun, then growing to every step: each step, or a line per tenth when there are more.
    done = [d for d, _ in upgrade]
    assert done[0] == 0 and done[-1] == steps and done == sorted(set(done))
    assert len(done) >= min(steps, 10) + 1
    kept = seen["keeping the file as it was before the upgrade"]
    assert kept[-1][0] == kept[-1][1] > 1  # pages of the pre-upgrade backup
    order = [k for k in seen]
    assert order.index("keeping the file as it was before the upgrade") < order.index(
        "copying answers"
    )


def test_on_a_terminal_backup_draws_a_bar(tmp_path: Path) -> None:
    """stderr a terminal (a pty): the bar is redrawn in place and ends at 100% with its counts."""
    old_history = tmp_path / "v2.sqlite3"
    make_v2_history(old_history, answers=40_000, players=500, seed=5)
    env = clean_env()
    leader, follower = pty.openpty()
    try:
        child = subprocess.Popen(
            [*zeroquiz(), "backup", "--db", str(old_history), str(tmp_path / "b.sqlite3")],
            stdout=subprocess.PIPE, stderr=follower, env=env, cwd=tmp_path,
        )  # fmt: skip
        os.close(follower)
        follower = -1
        drawn = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            drawn += chunk
        out, _ = child.communicate(timeout=120)
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)
    assert child.returncode == 0, drawn
    assert b"backed up into" in out
    text = drawn.decode()
    assert "\r" in text and "Traceback" not in text
    assert re.search(r"writing the backup: \[#{30}\] 100% (\d+)/\1", text), text
    # The backup only read the old file: the upgrade ran on a private copy, reported too.
    assert re.search(r"upgrading the schema from v2 to v\d+: \[#{30}\] 100%", text), text
    assert sqlite3.connect(old_history).execute("PRAGMA user_version").fetchone() == (2,)


def test_restore_replace_of_an_old_backup_leaves_nothing_hidden_beside_the_target(
    tmp_path: Path,
) -> None:
    old = tmp_path / "old-backup.sqlite3"
    make_v2_history(old, answers=300, players=20, seed=3, rounds=40)
    target = tmp_path / "live" / "zeroquiz.sqlite3"
    target.parent.mkdir()
    first = run(["restore", str(old), str(target)], tmp_path)
    assert first.returncode == 0, first.stderr
    for _ in range(2):
        again = run(["restore", "--replace", str(old), str(target)], tmp_path)
        assert again.returncode == 0, again.stderr
        assert "restored" in again.stdout
    assert sorted(p.name for p in target.parent.iterdir()) == ["zeroquiz.sqlite3"]
    conn = sqlite3.connect(target)
    try:
        assert conn.execute("SELECT COUNT(*) FROM answers").fetchone() == (300,)
    finally:
        conn.close()
    assert sqlite3.connect(old).execute("PRAGMA user_version").fetchone() == (2,)
