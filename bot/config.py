"""Where state lives: --db, then ZEROQUIZ_DB, then a per-user data directory."""

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
    return Path(user_data_dir("zeroquiz", appauthor=False)) / "zeroquiz.sqlite3"
