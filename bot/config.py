"""Where state lives: --db, then ZEROQUIZ_DB, then a per-user data directory.

Only the per-user directory is ZeroQuiz's to create; the directory of a path the operator gave
must exist (a typo there would otherwise start an empty leaderboard somewhere new).
"""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_data_dir


def database_path(explicit: str | None = None) -> Path:
    if explicit:
        return Path(explicit).expanduser()
    env = os.environ.get("ZEROQUIZ_DB")
    if env:
        return Path(env).expanduser()
    return default_database_path()


def default_database_path() -> Path:
    return Path(user_data_dir("zeroquiz", appauthor=False)) / "zeroquiz.sqlite3"


def is_default_location(path: Path) -> bool:
    """Whether `path` is the per-user default, whose directory ZeroQuiz may create."""
    return path == default_database_path()
