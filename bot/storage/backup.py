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

KEEP_PRE_MIGRATION = 3


def _temp_beside(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def _sqlite_copy(source: str, dest: Path) -> None:
    """The backup API, all pages in one step (one snapshot), into a file left in DELETE mode."""
    src = sqlite3.connect(f"file:{quote(source)}?mode=rw", uri=True, timeout=5)
    try:
        create_private(dest)  # a backup holds everything the database does: 0600 too
        dst = sqlite3.connect(dest, isolation_level=None)
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode = DELETE")
            ok = dst.execute("PRAGMA quick_check").fetchone()
            if ok is None or ok[0] != "ok":
                raise DatabaseUnusable(str(dest), f"failed its check after the copy ({ok})")
        finally:
            dst.close()
    finally:
        src.close()


def sqlite_backup(source: str, dest: Path) -> None:
    """Write a consistent copy of the SQLite file `source` to `dest` (replaced if it exists)."""
    tmp = _temp_beside(dest)
    try:
        _sqlite_copy(source, tmp)
        os.replace(tmp, dest)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


async def backup_sqlite(source: str, dest: Path) -> None:
    await asyncio.to_thread(sqlite_backup, source, dest)


def pre_migration_backup(path: Path, version: int) -> Path:
    """`<file>.pre-v<N>.bak` beside the file, N the version about to be applied; only the newest
    KEEP_PRE_MIGRATION of them are kept."""
    dest = path.with_name(f"{path.name}.pre-v{version}.bak")
    sqlite_backup(str(path), dest)
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
