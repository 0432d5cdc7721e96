"""`zeroquiz pack add|list|remove|export` as real child processes: a pack is scoped to its
platform and team, a broken one prints validate's lines and stores nothing, and a pack survives
`backup`/`restore` and `copy` into PostgreSQL. `validate` checks what `serve` would load."""

from __future__ import annotations

import subprocess
from pathlib import Path

from pg_server import PgServer
from test_cli_errors import clean_env
from test_console import run_zeroquiz

PACK = """\
language: en
name: our-cluster
questions:
  - id: nodes
    prompt: "How many GPUs does one node of our cluster hold?"
    options:
      - "4"
      - text: "8"
        correct: true
    explanation: "Every node of our cluster has 8 GPUs."
"""


def zq(tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return run_zeroquiz(list(args), tmp_path, clean_env(), stdin)


def team(db: str, name: str = "T1") -> list[str]:
    return ["--db", db, "--platform", "slack", "--team", name]


def test_a_pack_is_added_listed_exported_and_removed_for_one_team_only(tmp_path: Path) -> None:
    db = str(tmp_path / "q.sqlite3")
    (tmp_path / "ours.yaml").write_text(PACK)
    added = zq(tmp_path, "pack", "add", "ours.yaml", *team(db))
    assert added.returncode == 0, added.stderr
    assert "our-cluster" in added.stdout and "version 1" in added.stdout
    listed = zq(tmp_path, "pack", "list", *team(db))
    assert listed.stdout == "our-cluster\tversion 1\t1 question(s)\n"
    assert zq(tmp_path, "pack", "list", *team(db, "T2")).stdout == ""
    assert (
        zq(tmp_path, "pack", "list", "--db", db, "--platform", "discord", "--team", "T1").stdout
        == ""
    )
    assert zq(tmp_path, "pack", "export", "our-cluster", *team(db)).stdout == PACK
    other = zq(tmp_path, "pack", "export", "our-cluster", *team(db, "T2"))
    assert other.returncode == 1 and "has no pack our-cluster" in other.stderr
    # From stdin, under another name: a second pack.
    piped = zq(tmp_path, "pack", "add", "-", "--name", "second", *team(db), stdin=PACK)
    assert piped.returncode == 0, piped.stderr
    removed = zq(tmp_path, "pack", "remove", "our-cluster", *team(db))
    assert removed.returncode == 0
    assert zq(tmp_path, "pack", "list", *team(db)).stdout == "second\tversion 1\t1 question(s)\n"
    again = zq(tmp_path, "pack", "remove", "our-cluster", *team(db))
    assert again.returncode == 1 and "Traceback" not in again.stderr


def test_a_broken_pack_prints_validates_lines_and_stores_nothing(tmp_path: Path) -> None:
    db = str(tmp_path / "q.sqlite3")
    broken = PACK.replace("correct: true", "correct: maybe")
    (tmp_path / "ours.yaml").write_text(broken)
    added = zq(tmp_path, "pack", "add", "ours.yaml", *team(db))
    validated = zq(tmp_path, "validate", "--no-bundled", "ours.yaml")
    assert added.returncode == validated.returncode == 1
    assert added.stdout == ""
    assert "ours.yaml:9: 'correct' must be true or false" in added.stderr.splitlines()
    assert added.stderr == validated.stderr  # exactly as `zeroquiz validate` prints them
    assert zq(tmp_path, "pack", "list", *team(db)).stdout == ""


def test_a_pack_survives_backup_restore_and_copy(tmp_path: Path, pg_server: PgServer) -> None:
    import asyncio

    db = str(tmp_path / "q.sqlite3")
    (tmp_path / "ours.yaml").write_text(PACK)
    assert zq(tmp_path, "pack", "add", "ours.yaml", *team(db)).returncode == 0
    backup = zq(tmp_path, "backup", "--db", db, str(tmp_path / "b.sqlite3"))
    assert backup.returncode == 0, backup.stderr
    restored = str(tmp_path / "restored.sqlite3")
    result = zq(tmp_path, "restore", str(tmp_path / "b.sqlite3"), restored)
    assert result.returncode == 0, result.stderr
    assert zq(tmp_path, "pack", "export", "our-cluster", *team(restored)).stdout == PACK
    url = pg_server.url(asyncio.run(pg_server.create_database()))
    copied = zq(tmp_path, "copy", db, url)
    assert copied.returncode == 0, copied.stderr
    assert zq(tmp_path, "pack", "export", "our-cluster", *team(url)).stdout == PACK
    assert (
        zq(tmp_path, "pack", "list", *team(url)).stdout == "our-cluster\tversion 1\t1 question(s)\n"
    )


def test_validate_checks_what_serve_will_load(tmp_path: Path) -> None:
    """An id the bundled bank has: serve refuses it beside the bundled bank, so validate does."""
    clash = tmp_path / "team.yaml"
    clash.write_text(PACK.replace("id: nodes", "id: orig-01"))
    beside = zq(tmp_path, "validate", "team.yaml")
    assert beside.returncode == 1
    assert beside.stderr.startswith("team.yaml:4: duplicate id 'orig-01' (first defined at ")
    alone = zq(tmp_path, "validate", "--no-bundled", "team.yaml")
    assert alone.returncode == 0 and alone.stdout == "OK: 1 questions in 1 file(s), all valid\n"
    env = clean_env() | {"ZEROQUIZ_QUESTIONS": str(clash)}
    from_env = run_zeroquiz(["validate"], tmp_path, env)
    assert from_env.returncode == 1 and "duplicate id 'orig-01'" in from_env.stderr
    lonely = zq(tmp_path, "validate", "--no-bundled")
    assert lonely.returncode == 2 and "--no-bundled" in lonely.stderr
