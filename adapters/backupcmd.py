"""`zeroquiz backup PATH` and `zeroquiz restore BACKUP TARGET`.

A backup is one self-contained SQLite file, taken while the bot runs (SQLite: the online backup
API; PostgreSQL: every row from one REPEATABLE READ snapshot). Restoring refuses a target that
holds data unless --replace, and a SQLite target some process (a running bot) has open.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from adapters.exitcodes import EX_CONFIG, storage_exit
from adapters.progress import for_stream
from bot.config import database_path
from bot.storage import StorageError

if TYPE_CHECKING:
    from adapters.cli import Subcommands

DB_HELP = "SQLite file or postgresql:// URL (default: $ZEROQUIZ_DB or a per-user data dir)"


def add_parsers(sub: Subcommands) -> None:
    backup = sub.add_parser("backup", help="write a backup of the database (safe while it runs)")
    backup.add_argument("path", metavar="PATH", help="the backup file to write (replaced)")
    backup.add_argument("--db", help=DB_HELP)
    restore = sub.add_parser("restore", help="put a backup's data into a database")
    restore.add_argument("backup", metavar="BACKUP", help="a file `zeroquiz backup` wrote")
    restore.add_argument("target", metavar="TARGET", help="a SQLite file or a postgresql:// URL")
    restore.add_argument(
        "--replace", action="store_true", help="replace the data TARGET holds (it is lost)"
    )


def _summary(counts: dict[str, int]) -> str:
    return ", ".join(f"{table} {rows}" for table, rows in counts.items())


async def cmd_backup(db: str | None, path: str) -> int:
    from bot.storage.backups import take_backup  # here: every command builds this parser

    source = str(database_path(db))
    try:
        counts = await take_backup(source, Path(path), progress=for_stream(sys.stderr))
    except StorageError as exc:
        print(f"zeroquiz: {exc}", file=sys.stderr)
        return storage_exit(exc)
    except OSError as exc:
        print(f"zeroquiz: could not write the backup {path}: {exc.strerror}", file=sys.stderr)
        return EX_CONFIG
    print(f"backed up into {path}: {_summary(counts)}")
    return 0


async def cmd_restore(backup: str, target: str, replace: bool) -> int:
    from bot.storage.backups import TargetInUse, restore_backup
    from bot.storage.copy import CopyRefused

    where = str(database_path(target))
    try:
        counts = await restore_backup(
            Path(backup), where, replace=replace, progress=for_stream(sys.stderr)
        )
    except StorageError as exc:
        print(f"zeroquiz: {exc}", file=sys.stderr)
        return storage_exit(exc)
    except CopyRefused as exc:
        print(f"zeroquiz: {exc}", file=sys.stderr)
        return 1
    except TargetInUse:
        print(
            f"zeroquiz: {target} is open in another process (is the bot running?): stop it, "
            "then restore",
            file=sys.stderr,
        )
        return 1
    print(f"restored {backup} into {target}: {_summary(counts)}")
    return 0
