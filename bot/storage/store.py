"""The one storage interface the core calls: named domain methods grouped by what they hold.

Everything returns the core's own values (records.py); SQL, rows and connections stay in this
package. `transaction()` groups several calls atomically and is re-entrant, so a method that opens
its own transaction simply joins the caller's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from bot.storage.answers import AnswerTable
from bot.storage.cards import CardTable
from bot.storage.controls import AuditTable, PeopleTable, SeasonTable, WindowTable
from bot.storage.daily import DailyTable
from bot.storage.engine import DB_TIMEOUTS, DbTimeouts, Engine
from bot.storage.insights import InsightTable
from bot.storage.installations import InstallationTable
from bot.storage.packs import PackTable
from bot.storage.progress import Progress, silent
from bot.storage.receipts import ReceiptTable
from bot.storage.reminders import ReminderTable
from bot.storage.replicas import ReplicaTable
from bot.storage.reports import ReportTable
from bot.storage.results import ResultTable
from bot.storage.rounds import RoundTable
from bot.storage.schema import SCHEMA, Schema
from bot.storage.scores import ScoreTable
from bot.storage.shards import ShardTable
from bot.storage.startup import open_engine
from bot.storage.syncs import CommandSyncTable
from bot.storage.teams import TeamTable
from bot.storage.timed import Observer, TimedEngine

if TYPE_CHECKING:  # copies and counts are for `zeroquiz copy` and backups, not a start
    from bot.storage import copy


class Store:
    def __init__(self, engine: Engine, schema: Schema = SCHEMA) -> None:
        self._timed = engine = TimedEngine(engine)
        self._schema = schema
        self._engine: Engine = engine
        self.path = engine.path
        self.teams = TeamTable(engine)
        self.rounds = RoundTable(engine)
        self.answers = AnswerTable(engine)
        self.cards = CardTable(engine)
        self.scores = ScoreTable(engine)
        self.daily = DailyTable(engine)
        self.shards = ShardTable(engine)
        self.installations = InstallationTable(engine)
        self.command_syncs = CommandSyncTable(engine)
        self.windows = WindowTable(engine)  # team controls (bot/controls/)
        self.seasons = SeasonTable(engine)
        self.audit = AuditTable(engine)
        self.people = PeopleTable(engine, self.answers.evict)
        self.insights = InsightTable(engine)
        self.receipts = ReceiptTable(engine)
        self.packs = PackTable(engine)
        self.results = ResultTable(engine)
        self.reports = ReportTable(engine)
        self.reminders = ReminderTable(engine)
        self.replicas = ReplicaTable(engine)

    @classmethod
    async def open(
        cls,
        path: str | Path,
        *,
        create_parent: bool = False,
        schema: Schema = SCHEMA,
        progress: Progress = silent,
        timeouts: DbTimeouts = DB_TIMEOUTS,
    ) -> Store:
        """Check, open (creating the file if needed) and migrate. DatabaseUnusable (a
        StorageError) names the path and what is wrong with it; DatabaseTooNewError, one kind
        of it, for a file a newer ZeroQuiz wrote. `create_parent` only for ZeroQuiz's own
        default location: an operator's directory must exist. `schema` is this release's but
        in tests of the migrations themselves. `progress` hears how an upgrade goes; `timeouts`
        bound each wait on a database server (DatabaseTimeout past them)."""
        engine = await open_engine(
            path, create_parent=create_parent, schema=schema, progress=progress, timeouts=timeouts
        )
        return cls(engine, schema)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        async with self._engine.transaction():
            yield

    async def counts(self) -> dict[str, int]:
        """Rows per table (what a copy is verified by)."""
        from bot.storage import copy

        return await copy.counts(self._engine, self._schema)

    async def copy_into(self, other: Store, progress: Progress = silent) -> list[copy.Copied]:
        """Copy every row into `other`, which must be empty (copy.CopyRefused otherwise);
        `progress` hears (copying <table>, rows written, rows) as it goes."""
        from bot.storage import copy

        return await copy.copy_database(
            self._engine, other._engine, schema=self._schema, progress=progress
        )

    async def connection_settings(self) -> list[dict[str, object]]:
        """Journal mode, foreign keys, busy timeout... of each connection, writer first."""
        return await self._engine.settings()

    def observe_time(self, observer: Observer) -> None:
        """Report each outermost transaction's, snapshot's and read's duration: (kind, seconds)."""
        self._timed.observe = observer

    def observe_timeouts(self, observer: Callable[[str], None]) -> None:
        """Report each DatabaseTimeout once, by its call ("statement", "connection")."""
        self._timed.timed_out = observer

    async def ping(self) -> None:
        """A trivial query, for readiness checks; raises whatever the database raises."""
        async with self._engine.reader() as conn:
            await conn.fetchval("SELECT 1")

    async def close(self) -> None:
        await self.answers.close()
        await self._engine.close()
