"""The floor of "acknowledged means recorded", shared by the bare baselines (bare_discord.py,
bare_bolt.py) when BARE_RECORD=PATH: one row per click committed to a SQLite file in WAL mode
with synchronous=FULL, as ZeroQuiz's database runs, in one trip to one writer thread (BEGIN,
INSERT, COMMIT and its fsync), before the platform is told OK. Nothing less can acknowledge a
click durably, so ZeroQuiz's CPU per click can't go below an app that does only this.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from concurrent.futures import ThreadPoolExecutor


class Recorder:
    """One row per click, committed durably on one writer thread before the answer."""

    def __init__(self, path: str) -> None:
        self.writer = ThreadPoolExecutor(1, thread_name_prefix="record")
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode = WAL").close()
        self.conn.execute("PRAGMA synchronous = FULL").close()
        self.conn.execute("CREATE TABLE IF NOT EXISTS clicks (id TEXT PRIMARY KEY, user TEXT)")
        sys.setswitchinterval(0.0005)  # as `zeroquiz serve`: the writer waits less for the GIL

    def _commit(self, click: str, user: str) -> None:
        self.conn.execute("BEGIN IMMEDIATE").close()
        self.conn.execute("INSERT INTO clicks VALUES (?, ?)", (click, user)).close()
        self.conn.execute("COMMIT").close()

    async def record(self, click: str, user: str) -> None:
        await asyncio.get_running_loop().run_in_executor(self.writer, self._commit, click, user)
