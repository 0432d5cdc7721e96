"""Under umask 022 (files 0644, directories 0755 by default) what ZeroQuiz creates is its
user's alone: the database and its -wal and -shm files, backups (the pre-migration ones too),
restored files and the data directory."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.storage import Store
from bot.storage.backups import restore_backup, take_backup
from bot.storage.place import check_place

ROOT = Path(__file__).resolve().parents[2]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


async def test_the_database_its_journal_files_and_backups_are_0600(
    tmp_path: Path, umask_022: None
) -> None:
    db = tmp_path / "quiz.sqlite3"
    store = await Store.open(db)
    try:
        wal, shm = db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")
        assert wal.exists() and shm.exists()  # WAL mode: both beside the open database
        assert (mode(db), mode(wal), mode(shm)) == (0o600, 0o600, 0o600)
        backup = tmp_path / "backup.sqlite3"
        await take_backup(str(db), backup)
        assert mode(backup) == 0o600
    finally:
        await store.close()
    restored = tmp_path / "restored.sqlite3"
    await restore_backup(backup, str(restored), replace=False)
    assert mode(restored) == 0o600
    # What umask 022 gives anything else, for contrast: the test's umask is in force.
    (tmp_path / "other").write_text("x")
    assert mode(tmp_path / "other") == 0o644


def test_the_default_data_directory_is_created_0700(tmp_path: Path, umask_022: None) -> None:
    folder = tmp_path / "share" / "zeroquiz"
    check_place(folder / "zeroquiz.sqlite3", create_parent=True)
    assert mode(folder) == 0o700


def test_a_real_child_under_umask_022_makes_its_data_directory_and_files_private(
    tmp_path: Path,
) -> None:
    """`zeroquiz play` with no --db, its data directory under XDG_DATA_HOME, and
    `zeroquiz backup` of it: every file and the directory private."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZEROQUIZ_")}
    env |= {"XDG_DATA_HOME": str(tmp_path / "xdg"), "PYTHONPATH": str(ROOT)}

    def run(*args: str, stdin: str = "") -> None:
        done = subprocess.run(
            [sys.executable, "-m", "adapters.cli", *args], input=stdin, capture_output=True,
            text=True, cwd=tmp_path, env=env, timeout=60, preexec_fn=lambda: os.umask(0o022),
        )  # fmt: skip
        assert done.returncode == 0, done.stderr

    run("play", "--count", "1", stdin="a\n")
    folder = tmp_path / "xdg" / "zeroquiz"
    assert mode(folder) == 0o700
    created = list(folder.iterdir())
    assert created and all(mode(p) == 0o600 for p in created), [(p, oct(mode(p))) for p in created]
    run("backup", "--db", str(folder / "zeroquiz.sqlite3"), str(tmp_path / "b.sqlite3"))
    assert mode(tmp_path / "b.sqlite3") == 0o600
