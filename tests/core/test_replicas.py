"""Replicas on one database share the work exactly once: two Quiz instances with their own
connections (as two `zeroquiz serve` processes would have) and their own ports, both told to
do the same thing at the same moment. Runs on SQLite and on the real PostgreSQL server."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from datetime import datetime, timedelta

import pytest
from conftest import CHANNEL
from helpers import RecordingPort, player
from pg_server import on_both_backends

from bot.app import Core, build_core
from bot.bank import Bank
from bot.clock import FakeClock
from bot.model import ChannelRef
from bot.quiz import Quiz
from bot.rounds import CLAIM_LEASE
from bot.storage import Store
from bot.tally import DEFAULT_INTERVAL
from bot.views import QuestionView, RevealView

pytestmark = on_both_backends


class SlowPort(RecordingPort):
    """A platform that takes a moment to answer, so both replicas are mid-way at once; a test
    can also hold a reveal mid-way (`hold`) until it lets it go."""

    def __init__(self) -> None:
        super().__init__()
        self.hold: asyncio.Event | None = None
        self.revealing = asyncio.Event()

    async def post_reveal(self, channel: ChannelRef, ref: str | None, view: RevealView) -> None:
        self.revealing.set()
        if self.hold is not None:
            await self.hold.wait()
        await asyncio.sleep(0.05)
        await super().post_reveal(channel, ref, view)

    async def post_question(
        self,
        channel: ChannelRef,
        view: QuestionView,
        *,
        dedupe_key: str | None = None,
        tried_since: datetime | None = None,
    ) -> str | None:
        await asyncio.sleep(0.05)
        return await super().post_question(
            channel, view, dedupe_key=dedupe_key, tried_since=tried_since
        )


Pair = tuple[tuple[Quiz, SlowPort], tuple[Quiz, SlowPort]]


@contextlib.asynccontextmanager
async def two_replicas(
    db_target: str, bank: Bank, clock: FakeClock, live_counts: timedelta | None = None
) -> AsyncIterator[list[tuple[Core, SlowPort]]]:
    stores = [await Store.open(db_target) for _ in range(2)]
    ports = [SlowPort(), SlowPort()]
    cores = []
    for n, (store, port) in enumerate(zip(stores, ports, strict=True)):
        core = build_core(
            store, bank, clock, random.Random(n), holder=f"replica-{n}", live_counts=live_counts
        )
        core.quiz.add_port(port)
        cores.append(core)
    yield list(zip(cores, ports, strict=True))
    for store in stores:
        await store.close()


@pytest.fixture
async def replicas(db_target: str, bank: Bank, clock: FakeClock) -> AsyncIterator[Pair]:
    async with two_replicas(db_target, bank, clock) as [(a, port_a), (b, port_b)]:
        yield (a.quiz, port_a), (b.quiz, port_b)


async def test_a_reveal_under_way_on_one_replica_is_not_made_again_by_the_other(
    replicas: Pair,
) -> None:
    (a, port_a), (b, port_b) = replicas
    view = await a.rounds.start_round(CHANNEL)
    assert view is not None
    port_a.hold = asyncio.Event()
    closing = asyncio.create_task(a.close_round(view.round_id, "admin"))
    await port_a.revealing.wait()  # a closed the round and is revealing it, slowly
    await b.process_due()  # b sees a closed round without its reveal
    port_a.hold.set()
    await closing
    assert len(port_a.reveals) == 1 and port_b.reveals == []


async def test_a_round_due_on_both_is_closed_and_revealed_once(
    replicas: Pair, clock: FakeClock
) -> None:
    (a, port_a), (b, port_b) = replicas
    view = await a.rounds.start_round(CHANNEL)
    assert view is not None
    await a.rounds.answer(view.round_id, player(1), 0)
    await clock.advance(11 * 60)
    await asyncio.gather(a.process_due(), b.process_due(), a.process_due(), b.process_due())
    assert len(port_a.reveals) + len(port_b.reveals) == 1
    row = await a.rounds.round_row(view.round_id)
    assert row is not None and row.closed_at is not None and row.revealed_at is not None


async def test_a_question_left_unposted_is_posted_once_by_whichever_replica(
    replicas: Pair, clock: FakeClock
) -> None:
    (a, port_a), (b, port_b) = replicas
    port_a.fail_posts.append(ConnectionError("the network blinked"))  # the first try fails
    with pytest.raises(Exception):  # noqa: B017 - Unavailable, as the asker is told
        await a.rounds.start_round(CHANNEL)
    await clock.advance(20)
    await asyncio.gather(a.process_due(), b.process_due(), a.process_due(), b.process_due())
    assert len(port_a.posted) + len(port_b.posted) == 1


async def test_a_crashed_replicas_claim_is_taken_over_after_its_lease(
    replicas: Pair, clock: FakeClock, db_target: str
) -> None:
    (a, port_a), (b, port_b) = replicas
    view = await a.rounds.start_round(CHANNEL)
    assert view is not None
    await clock.advance(10 * 60)
    # Replica a closed the round and claimed its reveal, then died before revealing it.
    assert await a.rounds.close(view.round_id, "deadline")
    assert await a.store.rounds.claim(view.round_id, "replica-0", clock.now(), CLAIM_LEASE)
    await b.process_due()
    assert port_b.reveals == []  # a's claim still holds
    await clock.advance(CLAIM_LEASE.total_seconds())
    await b.process_due()
    assert len(port_b.reveals) == 1 and port_a.reveals == []


async def test_live_counts_are_edited_once_per_interval_across_replicas(
    db_target: str, bank: Bank, clock: FakeClock
) -> None:
    async with two_replicas(db_target, bank, clock, DEFAULT_INTERVAL) as pair:
        [(core_a, port_a), (core_b, port_b)] = pair
        a, b = core_a.quiz, core_b.quiz
        tallies = [core.tally for core in (core_a, core_b) if core.tally is not None]
        assert len(tallies) == 2
        view = await a.rounds.start_round(CHANNEL)
        assert view is not None
        await asyncio.gather(
            *((a if n % 2 else b).rounds.answer(view.round_id, player(n), 0) for n in range(20))
        )
        for tally in tallies:
            await tally.drain()
        assert len(port_a.updates) + len(port_b.updates) == 1  # not one per replica
        await clock.advance(5)
        for tally in tallies:
            await tally.drain()
        edits = port_a.updates + port_b.updates
        assert len(edits) == 2 and edits[-1][1].answer_count == 20  # the last count is shown
        for tally in tallies:
            await tally.stop()
