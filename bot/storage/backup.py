"""Backups that are one self-contained SQLite file, taken while the bot runs, and restoring them.

Copying a live `zeroquiz.sqlite3` is not a backup: in WAL mode the newest commits live in the
`-wal` file beside it. SQLite's online backup API copies the pages of one read snapshot (WAL
readers never block the writer, so clicks keep being recorded meanwhile), and the copy is switched
out of WAL mode, so it is one file. A PostgreSQL database is backed up the same way into a SQLite
file: its rows are copied from one REPEATABLE READ snapshot by copy.py (a server-level backup
remains `pg_dump`'s job). A backup is written beside its destination and renamed into place, so a
half-written backup never carries the final name.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
from pathlib import Path
from urllib.parse import quote

from bot.storage.errors import DatabaseUnusable
from bot.storage.place import create_private
from bot.storage.progress import Progress, silent

KEEP_PRE_MIGRATION = 3
STEP_PAGES = 1024  # pages copied per backup step (4 MiB at SQLite's default page size)


def _temp_beside(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def _sqlite_copy(source: str, dest: Path, progress: Progress, what: str) -> None:
    """The backup API into a file left in DELETE mode, STEP_PAGES at a time (reported), all from
    one snapshot: the source's read transaction stays open across the steps, so a writer
    meanwhile neither restarts the copy nor gets into it."""
    src = sqlite3.connect(
        f"file:{quote(source)}?mode=rw", uri=True, timeout=5, isolation_level=None
    )
    try:
        create_private(dest)  # a backup holds everything the database does: 0600 too
        src.execute("BEGIN")
        src.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # the snapshot starts here
        dst = sqlite3.connect(dest, isolation_level=None)
        try:

            def step(status: int, remaining: int, total: int) -> None:
                progress(what, total - remaining, total)

            src.backup(dst, pages=STEP_PAGES, progress=step)
            dst.execute("PRAGMA journal_mode = DELETE")
            ok = dst.execute("PRAGMA quick_check").fetchone()
            if ok is None or ok[0] != "ok":
                raise DatabaseUnusable(str(dest), f"failed its check after the copy ({ok})")
        finally:
            dst.close()
    finally:
        src.close()


def sqlite_backup(
    source: str, dest: Path, progress: Progress = silent, what: str = "writing the backup"
) -> None:
    """Write a consistent copy of the SQLite file `source` to `dest` (replaced if it exists);
    `progress` hears (what, pages copied, pages)."""
    tmp = _temp_beside(dest)
    try:
        _sqlite_copy(source, tmp, progress, what)
        os.replace(tmp, dest)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


async def backup_sqlite(
    source: str, dest: Path, progress: Progress = silent, what: str = "writing the backup"
) -> None:
    await asyncio.to_thread(sqlite_backup, source, dest, progress, what)


def pre_migration_backup(path: Path, version: int, progress: Progress = silent) -> Path:
    """`<file>.pre-v<N>.bak` beside the file, N the version about to be applied; only the newest
    KEEP_PRE_MIGRATION of them are kept."""
    dest = path.with_name(f"{path.name}.pre-v{version}.bak")
    sqlite_backup(str(path), dest, progress, "keeping the file as it was before the upgrade")
    older = sorted(
        path.parent.glob(f"{glob_escape(path.name)}.pre-v*.bak"),
        key=lambda p: p.stat().st_mtime_ns,
        reverse=True,
    )
    for stale in older[KEEP_PRE_MIGRATION:]:
        with contextlib.suppress(FileNotFoundError):
            stale.unlink()
    return dest


def glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[]" else c for c in name)


class TargetInUse(Exception):
    """Another process (a running bot) has the SQLite file open: it can't be replaced now."""


def replace_sqlite(restored: Path, target: Path) -> None:
    """Move `restored` over `target` atomically, only if no process has `target` open: leaving
    WAL mode needs every other connection closed, so it is tried without waiting, and the file
    stays exclusively locked until the rename."""
    if target.exists():
        conn = sqlite3.connect(target, timeout=0, isolation_level=None)
        try:
            try:
                mode = conn.execute("PRAGMA journal_mode = DELETE").fetchone()
                conn.execute("BEGIN EXCLUSIVE")
            except sqlite3.OperationalError as exc:
                raise TargetInUse(str(exc)) from None
            if mode is None or str(mode[0]).lower() == "wal":
                raise TargetInUse("still in WAL mode")
            for suffix in ("-wal", "-shm"):  # gone with WAL mode; never pair them with the new file
                with contextlib.suppress(FileNotFoundError):
                    target.with_name(target.name + suffix).unlink()
            os.replace(restored, target)
        finally:
            conn.close()
    else:
        os.replace(restored, target)
