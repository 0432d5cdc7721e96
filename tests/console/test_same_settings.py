"""Every command that reads the bank takes it as `serve` does: `--questions` and `--no-bundled`,
or ZEROQUIZ_QUESTIONS and ZEROQUIZ_NO_BUNDLED from the environment. A team file given only
through the environment is played, validated, named in insights and results; and insights over
answers whose questions are not loaded says so instead of "no answers"."""

from __future__ import annotations

import csv
import io
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

TEAM_FILE = """\
language: en
questions:
  - id: ours-nodes
    tags: [ours]
    prompt: "How many GPUs does one node of our cluster hold?"
    options:
      - text: "4"
        why: "That was the old cluster; the new nodes hold twice as many."
      - text: "8"
        correct: true
    explanation: "Every node of our cluster has 8 GPUs."
"""


def zeroquiz(
    args: list[str], cwd: Path, env: dict[str, str], stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "adapters.cli", *args], input=stdin, capture_output=True,
        text=True, cwd=cwd, env=env, timeout=120,
    )  # fmt: skip


def test_the_environments_team_questions_reach_every_command(tmp_path: Path) -> None:
    team = tmp_path / "team.yaml"
    team.write_text(TEAM_FILE)
    base = {k: v for k, v in os.environ.items() if not k.startswith("ZEROQUIZ_")}
    base |= {"XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    db = tmp_path / "q.db"
    env = base | {"ZEROQUIZ_QUESTIONS": str(team), "ZEROQUIZ_DB": str(db)}
    local = ["--platform", "console", "--team", "local"]

    validated = zeroquiz(["validate"], tmp_path, env)
    assert validated.returncode == 0 and "in 15 file(s)" in validated.stdout, validated.stderr
    alone = zeroquiz(["validate"], tmp_path, env | {"ZEROQUIZ_NO_BUNDLED": "1"})
    assert alone.returncode == 0 and alone.stdout.startswith("OK: 1 questions"), alone.stdout
    played = zeroquiz(["play", "--topic", "ours", "--count", "1"], tmp_path, env, "a\n")
    assert played.returncode == 0, played.stderr
    assert "How many GPUs does one node of our cluster hold?" in played.stdout
    picked = re.search(r"^  A\) (\d)$", played.stdout, re.MULTILINE)
    assert picked is not None  # the letters are shuffled: what A was this time
    if picked.group(1) == "4":
        assert "Why A is not right: That was the old cluster" in played.stdout
    else:
        assert "✅ Correct!" in played.stdout
    insights = zeroquiz(["insights", *local, "--topic", "ours", "--period", "all"], tmp_path, env)
    assert insights.returncode == 0, insights.stderr
    results = zeroquiz(["results", *local], tmp_path, env)
    [row] = list(csv.DictReader(io.StringIO(results.stdout)))
    assert row["question"] == "ours-nodes" and row["topic"] == "ours"
    assert row["letter"] == "A" and row["option"] == picked.group(1)

    # Without the team's file the answer's question is unknown: said so, not "no answers".
    without = zeroquiz(
        ["insights", *local, "--period", "all"], tmp_path, base | {"ZEROQUIZ_DB": str(db)}
    )
    assert without.returncode == 0
    text = " ".join(without.stdout.split())
    assert "1 answer(s) all time are to questions this bank doesn't hold" in text
    assert "No answers yet" not in text
