"""`zeroquiz copy FROM TO`: move an existing database to another place or backend.

Typically a SQLite file into PostgreSQL before running several replicas. The source must already
be a ZeroQuiz database (only looked at until then: a typo must not copy a new empty file); both
ends are then checked and migrated; the destination must be empty; afterwards the row counts of
every table are compared, and the command says what it copied (never a URL's password).
"""

from __future__ import annotations

import sys

from adapters.exitcodes import storage_exit
from adapters.progress import for_stream
from bot.config import database_path
from bot.storage import StorageError, Store
from bot.storage.backups import check_source
from bot.storage.copy import CopyRefused


async def _open(where: str) -> Store | int:
    try:
        return await Store.open(database_path(where), progress=for_stream(sys.stderr))
    except StorageError as exc:
        print(f"zeroquiz: {exc}", file=sys.stderr)
        return storage_exit(exc)


async def cmd_copy(source: str, target: str) -> int:
    try:  # a mistyped source must not become a new empty database, copied as "0 rows"
        await check_source(str(database_path(source)))
    except StorageError as exc:
        print(f"zeroquiz: {exc}", file=sys.stderr)
        return storage_exit(exc)
    src = await _open(source)
    if isinstance(src, int):
        return src
    try:
        dst = await _open(target)
        if isinstance(dst, int):
            return dst
        try:
            copied = await src.copy_into(dst, for_stream(sys.stderr))
            before, after = await src.counts(), await dst.counts()
        except CopyRefused as exc:
            print(f"zeroquiz: {exc}", file=sys.stderr)
            return 1
        finally:
            await dst.close()
        for item in copied:
            print(f"{item.table}: {item.rows} rows")
        if before != after:
            wrong = [t for t in before if before[t] != after.get(t)]
            print(
                f"zeroquiz: the counts differ after the copy: {', '.join(wrong)}", file=sys.stderr
            )
            return 1
        print(f"copied {src.path} into {dst.path}; every table's count matches")
        return 0
    finally:
        await src.close()
