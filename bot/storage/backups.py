"""`zeroquiz backup` and `zeroquiz restore` for either backend; the file format is always SQLite.

A SQLite database is backed up with SQLite's online backup API (backup.py); a PostgreSQL one by
copying its rows from one REPEATABLE READ snapshot into a new SQLite file (copy.py). Restoring
opens the backup as a Store (so an older backup is migrated, on a private copy: the backup file
itself is never changed), then either renames it over a SQLite target that no process has open, or
copies its rows into a PostgreSQL database in one transaction.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

from bot.storage import copy
from bot.storage.backup import TargetInUse, _temp_beside, backup_sqlite, replace_sqlite
from bot.storage.engine import Engine
from bot.storage.errors import DatabaseUnusable, one_line
from bot.storage.migrations import check_ours, schema_version
from bot.storage.place import SQLITE_HEADER, check_place, header
from bot.storage.progress import Progress, silent
from bot.storage.schema import SCHEMA, Schema
from bot.storage.sqlite import inspecting
from bot.storage.startup import backend_of, connect_postgres, open_engine, sqlite_faults
from bot.storage.urls import display_url

__all__ = ["TargetInUse", "check_source", "restore_backup", "take_backup"]


@contextlib.asynccontextmanager
async def _engine(
    where: str | Path, schema: Schema, progress: Progress = silent, *, private: bool = False
) -> AsyncIterator[Engine]:
    """An engine on `where`; `private`: a copy of ours, so an upgrade keeps no pre-migration
    backup beside it (the file it was copied from is the original, untouched)."""
    engine = await open_engine(where, schema=schema, progress=progress, keep_original=not private)
    try:
        yield engine
    finally:
        await engine.close()


_NO_DATA = "holds no ZeroQuiz database: give the database ZeroQuiz has been using"


async def check_source(where: str, *, schema: Schema = SCHEMA) -> None:
    """DatabaseUnusable unless `where` already is a ZeroQuiz database. It is only looked at, so a
    mistyped source of `copy`, `backup` or `restore` is refused before anything is created."""
    dialect, target = backend_of(where)
    if dialect == "sqlite":
        await _existing_sqlite(target, schema)
        return
    engine = await connect_postgres(target)
    try:
        async with engine.raw() as conn:
            await check_ours(conn, display_url(target), schema)
            version = await schema_version(conn)
    finally:
        await engine.close()
    if not version:
        raise DatabaseUnusable(display_url(target), _NO_DATA)


async def _existing_sqlite(path: str, schema: Schema) -> None:
    """DatabaseUnusable unless `path` is an existing ZeroQuiz SQLite file (looked at only)."""
    file = Path(path)
    if file.is_dir():
        raise DatabaseUnusable(path, "is a directory: give the path of a ZeroQuiz file")
    if not file.is_file() or not file.stat().st_size:
        raise DatabaseUnusable(path, "does not exist or is empty: give the path of a ZeroQuiz file")
    if header(file) != SQLITE_HEADER:
        raise DatabaseUnusable(path, "is not a SQLite database: give the path of a ZeroQuiz file")
    with sqlite_faults(path):
        async with inspecting(path) as conn:
            await check_ours(conn, path, schema)
            version = await schema_version(conn)
    if not version:
        raise DatabaseUnusable(path, _NO_DATA)


def _check_dest(dest: Path) -> None:
    """OSError (one line) for a backup file that can't be written, before the source is read."""
    folder = dest.parent
    if dest.is_dir():
        raise OSError(errno.EISDIR, "it is a directory: give the path of a file to write")
    if not folder.is_dir():
        raise OSError(errno.ENOENT, f"directory {one_line(str(folder))} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OSError(errno.EACCES, f"directory {one_line(str(folder))} is not writable")


async def take_backup(
    source: str, dest: Path, *, schema: Schema = SCHEMA, progress: Progress = silent
) -> dict[str, int]:
    """Write a backup of `source` (a SQLite path or postgresql:// URL) to `dest`; its counts.
    `progress` hears the pages (SQLite) or rows (PostgreSQL) copied."""
    _check_dest(dest)
    dialect, target = backend_of(source)
    if dialect == "sqlite" and _same_file(dest, Path(target)):
        # Renamed over the database, the backup would take its place while a running bot writes
        # on in the old, unlinked file: what it commits after its next checkpoint is lost.
        raise OSError(errno.EINVAL, "it is the database itself: give another file to write")
    await check_source(source, schema=schema)
    if dialect == "sqlite":
        await backup_sqlite(target, dest, progress)
    else:
        work = _private_copy_dir()
        try:
            rows = work / "rows.sqlite3"
            async with (
                _engine(target, schema, progress) as src,
                _engine(rows, schema, private=True) as dst,
            ):
                await copy.copy_database(src, dst, schema=schema, progress=progress)
            await backup_sqlite(str(rows), dest)  # one file in DELETE mode, renamed into place
        finally:
            _remove(work)
    return await _counts_of(dest, schema, progress)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them doesn't exist (check_source then names a missing source)
        return False


def _remove(work: Path) -> None:
    for item in work.iterdir():
        item.unlink()
    work.rmdir()


def _private_copy_dir() -> Path:
    return Path(tempfile.mkdtemp(prefix="zeroquiz-"))


async def _counts_of(backup: Path, schema: Schema, progress: Progress) -> dict[str, int]:
    """Counts of a backup file, read from a private migrated copy (the file stays as it is)."""
    work = _private_copy_dir()
    try:
        private = work / "backup.sqlite3"
        await backup_sqlite(str(backup), private, progress, "checking the backup")
        async with _engine(private, schema, progress, private=True) as engine:
            return await copy.counts(engine, schema)
    finally:
        for item in work.iterdir():
            item.unlink()
        work.rmdir()


async def _has_rows(target: str, schema: Schema) -> bool:
    """Whether the SQLite file at `target` holds any ZeroQuiz rows (refused if not ours)."""
    path = Path(target)
    if not path.exists() or not path.stat().st_size:
        return False
    async with inspecting(target) as conn:
        await check_ours(conn, target, schema)
        for table in await copy.copied_tables(conn, schema):
            if await conn.fetchval(f"SELECT 1 FROM {table.name} LIMIT 1"):
                return True
    return False


async def restore_backup(
    backup: Path,
    target: str,
    *,
    replace: bool,
    schema: Schema = SCHEMA,
    progress: Progress = silent,
) -> dict[str, int]:
    """Put the backup's data into `target`; copy.CopyRefused if it holds data and not `replace`,
    TargetInUse if a SQLite target is open in another process. The restored counts. `progress`
    hears the pages and rows copied and any schema upgrade of an older backup."""
    await _existing_sqlite(str(backup), schema)
    dialect, where = backend_of(target)
    if dialect == "sqlite":
        check_place(Path(where))  # a directory, a missing one: refused before anything is written
    if dialect == "postgres":
        work = _private_copy_dir()
        try:
            private = work / "backup.sqlite3"
            await backup_sqlite(str(backup), private, progress, "reading the backup")
            async with (
                _engine(private, schema, progress, private=True) as src,
                _engine(where, schema, progress) as dst,
            ):
                await copy.copy_database(
                    src, dst, replace=replace, schema=schema, progress=progress
                )
                return await copy.counts(dst, schema)
        finally:
            _remove(work)
    file = Path(where)
    if not replace and await _has_rows(where, schema):
        raise copy.CopyRefused(
            f"{where} already holds ZeroQuiz data: restore into a new file, or add --replace"
        )
    tmp = _temp_beside(file)
    try:
        await backup_sqlite(str(backup), tmp, progress, "restoring the backup")
        # Migrates an older backup, checks it's ours; the backup file is the original, so no
        # `.pre-v<N>.bak` of this private copy is kept beside the target.
        async with _engine(tmp, schema, progress, private=True) as engine:
            counts = await copy.counts(engine, schema)
        replace_sqlite(tmp, file)
    finally:
        for leftover in (tmp, *(tmp.with_name(tmp.name + s) for s in ("-wal", "-shm"))):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()
    return counts
