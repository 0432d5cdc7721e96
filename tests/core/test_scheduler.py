"""Deadlines close rounds at the right moment, driven by the fake clock; failed reveals retry."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from datetime import timedelta

import pytest
from conftest import CHANNEL
from helpers import RecordingPort

from bot.clock import FakeClock
from bot.model import ChannelRef, UserRef
from bot.quiz import Quiz
from bot.scheduler import Scheduler
from bot.storage import Store


@pytest.fixture
async def scheduler(quiz: Quiz, clock: FakeClock) -> AsyncIterator[Scheduler]:
    sched = Scheduler(clock, quiz)
    quiz.rounds.on_change(sched.wake)
    sched.start()
    await sched.caught_up()
    yield sched
    await sched.stop()


async def test_deadline_closes_and_reveals_once(
    quiz: Quiz, port: RecordingPort, clock: FakeClock, scheduler: Scheduler
) -> None:
    view = await quiz.rounds.start_round(CHANNEL, window=timedelta(minutes=5))
    assert view is not None
    await scheduler.caught_up()
    await clock.advance(299)
    await scheduler.caught_up()
    assert port.reveals == []
    await clock.advance(1)
    await scheduler.caught_up()
    assert [v.round_id for _, v in port.reveals] == [view.round_id]
    await clock.advance(3600)
    await scheduler.caught_up()
    assert len(port.reveals) == 1


async def test_scheduler_sleeps_until_the_next_deadline(
    quiz: Quiz, clock: FakeClock, scheduler: Scheduler
) -> None:
    await quiz.rounds.start_round(CHANNEL, window=timedelta(minutes=30))
    await scheduler.caught_up()
    assert clock.sleepers == 1  # one timer for the earliest deadline, no polling
    await quiz.rounds.start_round(CHANNEL, window=timedelta(minutes=1))
    await scheduler.caught_up()
    assert clock.sleepers == 1  # re-planned for the earlier deadline


async def test_run_advances_at_each_deadline(
    quiz: Quiz, port: RecordingPort, clock: FakeClock, scheduler: Scheduler
) -> None:
    await quiz.runs.start(CHANNEL, 3, timedelta(minutes=1))
    for _ in range(3):
        await clock.advance(60)
        await scheduler.caught_up()
    assert len(port.posted) == 3 and len(port.reveals) == 3 and len(port.notices) == 1


async def test_failed_reveal_is_retried_and_answers_are_kept(
    quiz: Quiz, port: RecordingPort, clock: FakeClock, scheduler: Scheduler
) -> None:
    port.fail_reveals = 2
    view = await quiz.rounds.start_round(CHANNEL, window=timedelta(minutes=1))
    assert view is not None
    await quiz.rounds.answer(view.round_id, UserRef("test", "T1", "U1", "One"), 0)
    await clock.advance(60)
    await scheduler.caught_up()
    assert port.reveals == []
    await clock.advance(30)
    await scheduler.caught_up()
    assert port.reveals == []
    await clock.advance(60)
    await scheduler.caught_up()
    assert len(port.reveals) == 1 and port.reveals[0][1].total == 1


async def test_rounds_of_platforms_not_served_here_stay_open(
    db: Store, make_quiz: Callable[..., Quiz], clock: FakeClock
) -> None:
    """A process without the Discord adapter must not close and 'reveal' Discord rounds unseen."""
    elsewhere = RecordingPort(platform="other")
    poster = make_quiz(db, elsewhere)
    view = await poster.rounds.start_round(
        ChannelRef("other", "T9", "C9"), window=timedelta(minutes=1)
    )
    assert view is not None
    here = make_quiz(db, RecordingPort())  # serves only the "test" platform
    sched = Scheduler(clock, here)
    sched.start()
    try:
        await clock.advance(120)
        await sched.caught_up()
        row = await here.rounds.round_row(view.round_id)
        assert row is not None and row.closed_at is None
        assert await here.next_due() is None  # nothing to do: no busy loop on that round
    finally:
        await sched.stop()
    await poster.process_due()
    assert [v.round_id for _, v in elsewhere.reveals] == [view.round_id]
