"""What every surface shares in one process: the core, its scheduler and its live counts.

`zeroquiz serve` builds one Runtime and hands it to each configured surface (Slack, Discord), so
all of them share one asyncio loop, one store (a writer and readers on the database) and one
scheduler.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from adapters.errors import ConfigError, SurfaceUnavailable
from adapters.health import Health
from adapters.metrics import Metrics, RateLimited
from adapters.timeouts import Timeouts
from bot.app import build_core
from bot.bank import Bank
from bot.clock import Clock
from bot.daily.service import DailySchedules
from bot.fanout import Fanout
from bot.limits import Limits
from bot.liveness import Heartbeat
from bot.ports import ChatPort
from bot.quiz import Quiz
from bot.scheduler import Scheduler
from bot.storage import Store
from bot.storage.progress import Progress, silent
from bot.tally import DEFAULT_INTERVAL, LiveTally

__all__ = ["ConfigError", "Runtime", "Surface", "SurfaceUnavailable"]


class Surface(Protocol):
    """A running chat adapter."""

    name: str

    async def start(self) -> None:
        """Connect and begin taking commands and clicks."""
        ...

    async def stop(self) -> None:
        """Stop taking new events, finish those acknowledged, close the platform client."""
        ...

    async def ready(self) -> bool:
        """Whether it is connected and taking events now (False before start and once lost)."""
        ...


@dataclass
class Runtime:
    store: Store
    quiz: Quiz
    scheduler: Scheduler
    tally: LiveTally
    daily: DailySchedules
    clock: Clock
    heartbeat: Heartbeat
    fanout: Fanout
    metrics: Metrics = field(default_factory=Metrics)
    timeouts: Timeouts = field(default_factory=Timeouts)  # for the surfaces' outbound calls
    health: Health = field(init=False)
    # Set by a surface whose connection ended for good after it started: `serve` then stops the
    # others cleanly and exits with the "restart me" code.
    lost: asyncio.Event = field(default_factory=asyncio.Event)
    lost_reason: str = ""

    def __post_init__(self) -> None:
        self.health = Health(self.store, self.metrics)
        self.store.observe_time(self.metrics.observe_db)
        self.store.observe_timeouts(self.metrics.db_timed_out)

    def surface_lost(self, name: str, reason: str) -> None:
        if not self.lost.is_set():
            self.lost_reason = f"{name}: {reason}"
            self.lost.set()

    @classmethod
    async def open(
        cls,
        db_path: str | Path,
        bank: Bank,
        clock: Clock,
        rng: random.Random,
        *,
        create_parent: bool = False,
        replica: str | None = None,
        limits: Limits | None = None,
        progress: Progress = silent,
        timeouts: Timeouts | None = None,
    ) -> Runtime:
        """StorageError, one line naming the path and the problem, if the database is unusable.
        `limits`: what people and teams may do (the defaults when not given; serve reads them
        from the environment), each refusal counted in the metrics; `progress` hears how a
        schema upgrade goes (serve logs it); `timeouts` bound every outbound call (the defaults
        when not given)."""
        timeouts = timeouts or Timeouts()
        store = await Store.open(
            db_path, create_parent=create_parent, progress=progress, timeouts=timeouts.db
        )
        metrics = Metrics()
        core = build_core(
            store, bank, clock, rng,
            holder=replica, daily=True, live_counts=DEFAULT_INTERVAL, on_lag=metrics.observe_lag,
            limits=limits or Limits(), on_limit=metrics.count_limited,
        )  # fmt: skip
        assert core.daily is not None and core.tally is not None
        return cls(
            store=store,
            quiz=core.quiz,
            scheduler=core.scheduler,
            tally=core.tally,
            daily=core.daily,
            clock=clock,
            heartbeat=core.heartbeat,
            fanout=core.fanout,
            metrics=metrics,
            timeouts=timeouts,
        )

    def add_port(self, port: ChatPort, rate_limited: RateLimited) -> None:
        """Give the core a platform's port, its posts and edits counted in the metrics."""
        self.quiz.add_port(self.metrics.port(port, rate_limited))

    def start(self) -> None:
        self.heartbeat.start()
        self.scheduler.start()

    async def close(self) -> None:
        await self.scheduler.stop()
        await self.fanout.close()
        await self.heartbeat.stop()
        await self.tally.stop()
        await self.store.close()
