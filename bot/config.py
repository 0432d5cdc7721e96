"""Where state lives: --db, then ZEROQUIZ_DB, then a per-user data directory.

A value with a scheme (`postgresql://…`, `sqlite:///…`) is a URL and stays the string it is
(storage/startup.py decides the backend); anything else is a file path.

Only the per-user directory is ZeroQuiz's to create; the directory of a path the operator gave
must exist (a typo there would otherwise start an empty leaderboard somewhere new).
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

from platformdirs import user_cache_dir, user_data_dir


def database_path(explicit: str | None = None) -> Path | str:
    given = explicit or os.environ.get("ZEROQUIZ_DB")
    if not given:
        return default_database_path()
    if "://" in given:
        return given  # a URL: Path() would fold its "//"
    return Path(given).expanduser()


def default_database_path() -> Path:
    return Path(user_data_dir("zeroquiz", appauthor=False)) / "zeroquiz.sqlite3"


def cache_dir() -> Path:
    """Where a start keeps what it may compute again (the checked bank: bot/bank/cache.py)."""
    return Path(user_cache_dir("zeroquiz", appauthor=False))


def is_default_location(path: Path | str) -> bool:
    """Whether `path` is the per-user default, whose directory ZeroQuiz may create."""
    return path == default_database_path()


def replica_id() -> str:
    """Which replica this process is, in the database's claims: ZEROQUIZ_REPLICA_ID, else the
    host name. Replicas on one host must each set their own; a restart keeps it."""
    return os.environ.get("ZEROQUIZ_REPLICA_ID", "").strip() or socket.gethostname()
