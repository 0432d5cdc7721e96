"""A replica that dies holding claims delays them by seconds (bot/liveness.py): another replica
takes over the daily post of one silent for 15 s, with the same dedupe key, and not while it still
beats; a clean stop hands its claims over at once; a round's post or reveal claim likewise. On
both backends."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime, timedelta

import pytest
from conftest import CHANNEL
from helpers import HangingPort, RecordingPort
from pg_server import on_both_backends

from bot.app import Core, build_core
from bot.bank import Bank
from bot.clock import FakeClock
from bot.commands import Context, dispatch, parse_text
from bot.liveness import DEAD_AFTER
from bot.model import UserRef
from bot.storage import Store
from bot.views import NoticeView

pytestmark = on_both_backends

ADMIN = UserRef("test", "T1", "UADMIN", "Admin")
NINE = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2026, 1, 5, 7, 0, tzinfo=UTC))


async def admin_says(core: Core, text: str) -> NoticeView:
    async def yes() -> bool:
        return True

    reply = await dispatch(core.quiz, parse_text(text), Context(CHANNEL, ADMIN, yes))
    assert isinstance(reply, NoticeView) and reply.ok, reply
    return reply


async def killed_while_posting(db_target: str, clock: FakeClock, bank: Bank) -> list[str | None]:
    """Replica A, beating, claims the 09:00 post and is SIGKILLed while Slack holds it: its
    dedupe key. Its last beat is at 09:00:00."""
    await clock.advance(to=datetime(2026, 1, 5, 8, 0, tzinfo=UTC))
    db = await Store.open(db_target)
    core = build_core(db, bank, clock, random.Random(3), daily=True, holder="replica-a")
    hanging = HangingPort()
    core.quiz.add_port(hanging)
    await admin_says(core, "daily 09:00 UTC")
    await clock.advance(to=NINE)
    await db.replicas.beat("replica-a", clock.now())
    assert core.daily is not None
    sending = asyncio.create_task(core.daily.process_due())
    for _ in range(200):
        if hanging.dedupe_keys:
            break
        await asyncio.sleep(0.01)  # bounded wait for the send to start (real I/O, not time)
    sending.cancel()  # killed mid-send: no clean stop, no more beats
    await asyncio.gather(sending, return_exceptions=True)
    await db.close()
    return hanging.dedupe_keys


async def replica_b(db_target: str, clock: FakeClock, bank: Bank) -> tuple[Core, RecordingPort]:
    db = await Store.open(db_target)
    core = build_core(db, bank, clock, random.Random(4), daily=True, holder="replica-b")
    port = RecordingPort()
    core.quiz.add_port(port)
    core.heartbeat.start()
    core.scheduler.start()
    await core.scheduler.caught_up()
    return core, port


async def stop(core: Core) -> None:
    await core.scheduler.stop()
    await core.heartbeat.stop()
    await core.quiz.store.close()


async def test_a_dead_replicas_daily_post_is_taken_over_once_it_is_silent_15_s(
    db_target: str, clock: FakeClock, bank: Bank
) -> None:
    keys = await killed_while_posting(db_target, clock, bank)
    await clock.advance(5)
    b, port = await replica_b(db_target, clock, bank)
    try:
        assert port.posted == []  # A beat 5 s ago: it may still be sending
        assert clock.next_wake is not None and clock.next_wake <= NINE + DEAD_AFTER
        await clock.advance(to=NINE + DEAD_AFTER)
        await b.scheduler.caught_up()
        assert len(port.posted) == 1  # 15 s after the minute, not after a 2-minute lease
        assert port.dedupe_keys == keys  # Discord drops a repeat; Slack finds the first
        await clock.advance(60)
        await b.scheduler.caught_up()
        assert len(port.posted) == 1
    finally:
        await stop(b)


async def test_a_replica_that_still_beats_keeps_its_claim(
    db_target: str, clock: FakeClock, bank: Bank
) -> None:
    await killed_while_posting(db_target, clock, bank)
    b, port = await replica_b(db_target, clock, bank)
    try:
        for _ in range(4):  # A is slow, not dead: it beats every 5 s (Slack holds its post)
            await clock.advance(5)
            await b.quiz.store.replicas.beat("replica-a", clock.now())
            await b.scheduler.caught_up()
        assert port.posted == []
    finally:
        await stop(b)


async def test_a_clean_stop_hands_the_claims_over_at_once(
    db_target: str, clock: FakeClock, bank: Bank
) -> None:
    await killed_while_posting(db_target, clock, bank)
    db = await Store.open(db_target)
    a = build_core(db, bank, clock, random.Random(5), holder="replica-a")
    a.heartbeat.start()
    await a.heartbeat.stop()  # "gone": A's unfinished claims are anyone's
    await db.close()
    await clock.advance(1)
    b, port = await replica_b(db_target, clock, bank)
    try:
        assert len(port.posted) == 1
    finally:
        await stop(b)


@pytest.mark.parametrize("a_beats", [False, True])
async def test_a_rounds_claim_is_taken_from_a_silent_holder_before_its_lease(
    db_target: str, clock: FakeClock, bank: Bank, a_beats: bool
) -> None:
    """A round's post or reveal claim (60 s lease): another replica gets it 15 s after its
    holder's last beat, unless the holder still beats."""
    db = await Store.open(db_target)
    try:
        core = build_core(db, bank, clock, random.Random(6))
        core.quiz.add_port(HangingPort())
        await clock.advance(to=NINE)
        row = await core.quiz.rounds.open_round(CHANNEL)
        assert row is not None
        lease = timedelta(seconds=60)
        await db.replicas.beat("replica-a", clock.now())
        assert await db.rounds.claim(row.id, "replica-a", clock.now(), lease)
        await clock.advance(10)
        silent_since = clock.now() - DEAD_AFTER
        assert not await db.rounds.claim(row.id, "replica-b", clock.now(), lease, silent_since)
        await clock.advance(6)
        if a_beats:
            await db.replicas.beat("replica-a", clock.now())
        silent_since = clock.now() - DEAD_AFTER
        took = await db.rounds.claim(row.id, "replica-b", clock.now(), lease, silent_since)
        assert took is not a_beats
    finally:
        await db.close()
