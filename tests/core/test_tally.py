"""Live answer counts are coalesced: a burst of clicks becomes a bounded number of edits."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta

from conftest import CHANNEL
from helpers import RecordingPort

from bot.app import build_core
from bot.bank import Bank
from bot.clock import FakeClock
from bot.model import UserRef
from bot.quiz import Quiz
from bot.storage import Store
from bot.tally import LiveTally


def counted(db: Store, bank: Bank, clock: FakeClock, port: RecordingPort) -> tuple[Quiz, LiveTally]:
    """A quiz with live counts edited at most every 5 seconds, as `zeroquiz serve` runs it."""
    core = build_core(db, bank, clock, random.Random(7), live_counts=timedelta(seconds=5))
    core.quiz.add_port(port)
    assert core.tally is not None
    return core.quiz, core.tally


async def test_burst_of_clicks_gives_bounded_edits(
    db: Store, bank: Bank, port: RecordingPort, clock: FakeClock
) -> None:
    quiz, tally = counted(db, bank, clock, port)
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None

    async def wave(first: int) -> None:
        await asyncio.gather(
            *(
                quiz.rounds.answer(view.round_id, UserRef("test", "T1", f"U{i}"), i % 4)
                for i in range(first, first + 50)
            )
        )

    await wave(0)
    await tally.drain()
    assert len(port.updates) == 1
    assert port.updates[0][1].answer_count == 50
    await wave(50)  # within the interval: no edit yet
    await tally.drain()
    assert len(port.updates) == 1
    await clock.advance(5)
    await tally.drain()
    assert len(port.updates) == 2
    await clock.advance(60)
    await tally.drain()
    assert len(port.updates) == 2  # 100 clicks -> one edit now, one after the interval
    assert port.updates[-1][1].answer_count == 100
    assert port.updates[-1][0] == f"msg-{view.round_id}"
    await tally.stop()


async def test_no_edit_after_close_or_on_old_messages(
    db: Store, bank: Bank, port: RecordingPort, clock: FakeClock
) -> None:
    quiz, tally = counted(db, bank, clock, port)
    port.live_update_max_age = timedelta(hours=1)
    view = await quiz.rounds.start_round(CHANNEL, window=timedelta(hours=8))
    assert view is not None
    await clock.advance(2 * 3600)
    await quiz.rounds.answer(view.round_id, UserRef("test", "T1", "U1"), 0)
    await tally.drain()
    assert port.updates == []  # an old message is not edited per click
    other = await quiz.rounds.start_round(CHANNEL)
    assert other is not None
    await quiz.rounds.answer(other.round_id, UserRef("test", "T1", "U1"), 0)
    await tally.drain()
    assert len(port.updates) == 1
    await quiz.rounds.answer(other.round_id, UserRef("test", "T1", "U2"), 0)
    await quiz.close_round(other.round_id, "admin")
    await clock.advance(10)
    await tally.drain()
    assert len(port.updates) == 1  # the pending refresh saw the round closed and kept the reveal
    await tally.stop()
