"""A database ZeroQuiz can't use stops `zeroquiz play` and `zeroquiz serve` with exit code 2 and
one line naming the path and the problem, never a traceback, and leaves the file as it was.

Each fault is made for real (random bytes, a text file, a directory, a missing or non-directory
parent, another application's SQLite file, a file from a newer ZeroQuiz, a read-only file or
directory, a lock held by another process) and the installed `zeroquiz` runs against it as a
child process. The tests run as root, whom file permissions don't stop: read-only is made with
`chattr +i` (immutable stops root too) and with plain permissions otherwise.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from adapters.exitcodes import EX_CONFIG
from bot.storage import SCHEMA_VERSION, Store

ZEROQUIZ = Path(sys.executable).parent / "zeroquiz"
BUSY_TIMEOUT_S = 5


def env_for(db: Path | None, **extra: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DISCORD_", "ZEROQUIZ_"))
    }
    if db is not None:
        env["ZEROQUIZ_DB"] = str(db)
    return env | extra


def zeroquiz(command: str, db: Path | None, **extra: str) -> subprocess.CompletedProcess[str]:
    args = [str(ZEROQUIZ), command, *(["--count", "1"] if command == "play" else [])]
    return subprocess.run(
        args, input="a\n", capture_output=True, text=True, env=env_for(db, **extra), timeout=60
    )


def contents(folder: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and directory (None) under `folder`."""
    return {
        str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(folder.rglob("*"))
    }


def assert_refused(result: subprocess.CompletedProcess[str], db: Path, *words: str) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    [line] = lines
    assert result.returncode == EX_CONFIG, line
    assert line.startswith(f"zeroquiz: database {db} "), line
    for word in words:
        assert word in line, line
    assert "Question" not in result.stdout
    return line


def make_zeroquiz_db(path: Path) -> Path:
    async def create() -> None:
        store = await Store.open(path)
        await store.close()

    asyncio.run(create())
    return path


@contextmanager
def read_only(*paths: Path) -> Iterator[None]:
    """Paths nobody can write, root included: immutable as root, no write permission otherwise."""
    if os.geteuid() != 0:
        modes = {p: p.stat().st_mode for p in paths}
        for p in paths:
            p.chmod(modes[p] & ~0o222)
        try:
            yield
        finally:
            for p in paths:
                p.chmod(modes[p])
        return
    chattr = shutil.which("chattr")
    if chattr is None:
        pytest.skip("running as root, whom permissions don't stop, and chattr is not installed")
    done: list[Path] = []
    try:
        for p in paths:
            made = subprocess.run([chattr, "+i", str(p)], capture_output=True, text=True)
            if made.returncode != 0:
                pytest.skip(f"running as root and this filesystem refuses chattr +i: {made.stderr}")
            done.append(p)
        yield
    finally:
        for p in done:
            subprocess.run([chattr, "-i", str(p)], check=True)


@dataclass(frozen=True)
class Fault:
    make: Callable[[Path], Path]  # builds the fault under a folder; returns the database path
    words: tuple[str, ...]  # what the line must say besides the path


def random_bytes(folder: Path) -> Path:
    (folder / "random.sqlite3").write_bytes(os.urandom(4096))
    return folder / "random.sqlite3"


def text_file(folder: Path) -> Path:
    (folder / "notes.txt").write_text("ZEROQUIZ_DB=/var/lib/zeroquiz/zeroquiz.sqlite3\n")
    return folder / "notes.txt"


def directory(folder: Path) -> Path:
    (folder / "data").mkdir()
    return folder / "data"


def missing_parent(folder: Path) -> Path:
    return folder / "no-such-dir" / "zeroquiz.sqlite3"


def newline_in_missing_parent(folder: Path) -> Path:
    return folder / "two\nlines" / "zeroquiz.sqlite3"


def parent_is_a_file(folder: Path) -> Path:
    (folder / "x.txt").write_text("just text\n")
    return folder / "x.txt" / "db.sqlite3"


def another_applications_db(folder: Path) -> Path:
    path = folder / "inventory.sqlite3"
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)")
        conn.execute("INSERT INTO items (name) VALUES ('a thing')")
    conn.close()
    return path


def another_application_using_user_version(folder: Path) -> Path:
    path = another_applications_db(folder)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 3")
    conn.close()
    return path


def newer_zeroquiz(folder: Path) -> Path:
    path = make_zeroquiz_db(folder / "future.sqlite3")
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION + 1,))
    conn.close()
    return path


FAULTS = {
    "random bytes": Fault(random_bytes, ("is not a SQLite database",)),
    "a text file": Fault(text_file, ("is not a SQLite database",)),
    "a directory": Fault(directory, ("is a directory",)),
    "missing parent": Fault(missing_parent, ("no-such-dir does not exist",)),
    "newline in the path": Fault(newline_in_missing_parent, ("two\\nlines does not exist",)),
    "parent is a file": Fault(parent_is_a_file, ("x.txt is not a directory",)),
    "another application's": Fault(another_applications_db, ("is not a ZeroQuiz database",)),
    "theirs, with a user_version": Fault(
        another_application_using_user_version, ("is not a ZeroQuiz database",)
    ),
    "newer than the code": Fault(
        newer_zeroquiz, (f"schema version {SCHEMA_VERSION + 1}", "upgrade ZeroQuiz")
    ),
}


@pytest.mark.parametrize("command", ["play", "serve"])
@pytest.mark.parametrize("fault", FAULTS.values(), ids=FAULTS.keys())
def test_an_unusable_database_is_one_line_and_left_alone(
    fault: Fault, command: str, tmp_path: Path
) -> None:
    db = fault.make(tmp_path)
    before = contents(tmp_path)
    result = zeroquiz(command, db)
    shown = str(db).replace("\n", "\\n")
    assert_refused(result, Path(shown), *fault.words)
    assert contents(tmp_path) == before  # same bytes, and no -wal, -shm or directory made


@pytest.mark.parametrize("command", ["play", "serve"])
def test_a_read_only_database_file_is_refused(command: str, tmp_path: Path) -> None:
    db = make_zeroquiz_db(tmp_path / "quiz.sqlite3")
    before = contents(tmp_path)
    with read_only(db):
        result = zeroquiz(command, db)
    assert_refused(result, db, "is read-only")
    assert contents(tmp_path) == before


@pytest.mark.parametrize("command", ["play", "serve"])
def test_a_database_in_a_read_only_directory_is_refused(command: str, tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    db = make_zeroquiz_db(folder / "quiz.sqlite3")
    before = contents(tmp_path)
    with read_only(folder):
        existing = zeroquiz(command, db)
        new = zeroquiz(command, folder / "new.sqlite3")
    # WAL needs to create quiz.sqlite3-wal and -shm beside the file.
    assert_refused(existing, db, f"read-only directory {folder}", "-wal")
    assert_refused(new, folder / "new.sqlite3", f"directory {folder} is not writable")
    assert contents(tmp_path) == before


HOLD_LOCK = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN EXCLUSIVE")
print("held", flush=True)
sys.stdin.read()
"""


def play_at_once(dbs: list[Path]) -> tuple[list[subprocess.CompletedProcess[str]], float]:
    """`zeroquiz play --count 1` on each database, all started together; their results and the
    seconds until the last one ended."""
    start = time.monotonic()
    bots = [
        subprocess.Popen(
            [str(ZEROQUIZ), "play", "--count", "1"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env_for(db),
        )
        for db in dbs
    ]
    results = []
    for bot in bots:
        out, err = bot.communicate(timeout=60)
        results.append(subprocess.CompletedProcess(bot.args, bot.returncode, out, err))
    return results, time.monotonic() - start


def test_a_database_another_process_keeps_locked_is_refused_in_bounded_time(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """An exclusive lock held by a process that isn't ZeroQuiz: on a rollback-journal file (it
    blocks even reading) and on a WAL file (it blocks writing); both bots run at once, so the
    test waits for the busy timeout only once. What two bots cost without any lock, measured
    the same way just before, is taken off: on a loaded machine a start alone takes seconds."""
    free = tmp_path_factory.mktemp("unlocked")
    _, unlocked = play_at_once([make_zeroquiz_db(free / f"{n}.sqlite3") for n in "ab"])
    rollback = make_zeroquiz_db(tmp_path / "rollback.sqlite3")
    conn = sqlite3.connect(rollback)
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.close()
    wal = make_zeroquiz_db(tmp_path / "wal.sqlite3")
    before = contents(tmp_path)
    holders = [
        subprocess.Popen(
            [sys.executable, "-c", HOLD_LOCK, str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for db in (rollback, wal)
    ]
    try:
        for holder in holders:
            assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        results, elapsed = play_at_once([rollback, wal])
    finally:
        for holder in holders:
            if holder.stdin is not None:
                holder.stdin.close()
            holder.wait(timeout=10)
    for result, db in zip(results, (rollback, wal), strict=True):
        assert_refused(result, db, "is locked by another process", f"{BUSY_TIMEOUT_S} s")
    # The busy timeout once, not once more when closing.
    assert elapsed - unlocked < 2 * BUSY_TIMEOUT_S - 1, (elapsed, unlocked)
    assert contents(tmp_path) == before


def test_a_good_database_still_works_and_only_the_default_directory_is_created(
    tmp_path: Path,
) -> None:
    db = tmp_path / "quiz.sqlite3"
    for _ in range(2):  # a new file, then the same file again
        result = zeroquiz("play", db)
        assert result.returncode == 0, result.stderr
        assert "Final score: " in result.stdout and result.stderr == ""
    served = zeroquiz("serve", db)  # past the database, on to the (absent) chat adapters
    assert served.returncode == EX_CONFIG and "no chat adapter is configured" in served.stderr
    assert "database" not in served.stderr

    data_home = tmp_path / "xdg" / "data"  # missing: the default location is ZeroQuiz's own
    result = zeroquiz("play", None, XDG_DATA_HOME=str(data_home))
    assert result.returncode == 0, result.stderr
    assert (data_home / "zeroquiz" / "zeroquiz.sqlite3").is_file()
