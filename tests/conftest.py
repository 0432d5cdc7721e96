"""Shared fixtures; the fakes of Slack and Discord are fixture plugins (`fake`, `slack`,
`fake_discord`, `bots`), so a test names the fixture and imports nothing for it."""

from __future__ import annotations

import os
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from helpers import RecordingPort
from hypothesis import HealthCheck, settings

from bot.app import build_quiz
from bot.bank import Bank, load_bank
from bot.clock import FakeClock
from bot.model import ChannelRef
from bot.quiz import Quiz
from bot.storage import Store

pytest_plugins = ["fake_slack", "fake_discord", "serve_process", "pg_server"]

# Property tests: explore freely on a developer's machine; in CI the same examples every run (a
# failure there is reproducible, never a coin toss), and no per-example deadline on a shared box.
settings.register_profile(
    "dev", deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
settings.register_profile("ci", parent=settings.get_profile("dev"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

CHANNEL = ChannelRef("test", "T1", "C1")


@pytest.fixture(scope="session")
def bank() -> Bank:
    return load_bank()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "quiz.sqlite3"


@pytest.fixture
async def db_target(request: pytest.FixtureRequest, db_path: Path) -> str:
    """The test's database: a SQLite file, or (in modules that run on both backends, with
    `pytestmark = on_both_backends`) a fresh database on a real PostgreSQL server."""
    from pg_server import backend_target  # a plugin of this conftest: imported once it's loaded

    return await backend_target(getattr(request, "param", "sqlite"), request, db_path)


@pytest.fixture
async def db(db_target: str) -> AsyncIterator[Store]:
    store = await Store.open(db_target)
    yield store
    await store.close()


@pytest.fixture
def port() -> RecordingPort:
    return RecordingPort()


@pytest.fixture
def make_quiz(bank: Bank, clock: FakeClock) -> Callable[..., Quiz]:
    def build(store: Store, *ports: RecordingPort, seed: int = 7, daily: bool = False) -> Quiz:
        quiz = build_quiz(store, bank, clock, random.Random(seed), daily=daily)
        for p in ports:
            quiz.add_port(p)
        return quiz

    return build


@pytest.fixture
def quiz(db: Store, port: RecordingPort, make_quiz: Callable[..., Quiz]) -> Quiz:
    return make_quiz(db, port)
