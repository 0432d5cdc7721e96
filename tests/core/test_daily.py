"""Daily questions: local time across DST, exactly once across restarts and instances, grace."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from conftest import CHANNEL
from helpers import HangingPort, RecordingPort, right_choice
from pg_server import on_both_backends

from bot.app import build_core
from bot.bank import Bank
from bot.clock import FakeClock
from bot.commands import Context, dispatch, parse_text
from bot.daily.service import DailySchedules
from bot.daily.timing import due_at
from bot.model import UserRef
from bot.quiz import Quiz
from bot.scheduler import Scheduler
from bot.storage import Store
from bot.views import NoticeView

pytestmark = on_both_backends

NEW_YORK = ZoneInfo("America/New_York")
ADMIN = UserRef("test", "T1", "UADMIN", "Admin")


@dataclass
class Stack:
    db: Store
    quiz: Quiz
    daily: DailySchedules
    sched: Scheduler
    port: RecordingPort

    async def close(self) -> None:
        await self.sched.stop()
        await self.db.close()


async def boot(
    db_target: str, clock: FakeClock, bank: Bank, seed: int = 1, holder: str | None = None
) -> Stack:
    db = await Store.open(db_target)
    port = RecordingPort()
    core = build_core(db, bank, clock, random.Random(seed), daily=True, holder=holder)
    quiz, daily, sched = core.quiz, core.daily, core.scheduler
    assert daily is not None
    quiz.add_port(port)
    sched.start()
    await sched.caught_up()
    return Stack(db, quiz, daily, sched, port)


async def admin(stack: Stack, text: str, is_admin: bool = True) -> NoticeView:
    async def check() -> bool:
        return is_admin

    reply = await dispatch(stack.quiz, parse_text(text), Context(CHANNEL, ADMIN, check))
    assert isinstance(reply, NoticeView)
    await stack.sched.caught_up()
    return reply


async def walk(stack: Stack, clock: FakeClock, until: datetime, step: timedelta) -> None:
    """Move time forward in steps, letting the scheduler act at each one."""
    while clock.now() < until:
        await clock.advance(to=min(until, clock.now() + step))
        await stack.sched.caught_up()


def post_times(port: RecordingPort) -> list[datetime]:
    return [view.opened_at for _, view in port.posted]


async def scheduled_at_nine(db_target: str, clock: FakeClock, bank: Bank) -> Stack:
    """A running instance where an admin set `daily 09:00 UTC` at 08:00 on Monday 2026-01-05."""
    await clock.advance(to=datetime(2026, 1, 5, 8, 0, tzinfo=UTC))
    stack = await boot(db_target, clock, bank)
    assert (await admin(stack, "daily 09:00 UTC")).ok
    return stack


async def planned(clock: FakeClock, when: datetime) -> None:
    """Bounded wait until the scheduler's timer is set for `when` (real I/O, not time)."""
    for _ in range(200):
        if clock.next_wake == when:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"scheduler planned {clock.next_wake}, not {when}")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2026, 1, 1, 0, 0, tzinfo=UTC))


@pytest.fixture
async def stack(db_target: str, clock: FakeClock, bank: Bank) -> AsyncIterator[Stack]:
    s = await boot(db_target, clock, bank)
    yield s
    await s.close()


async def test_jakarta_weekdays_post_at_0200_utc(stack: Stack, clock: FakeClock) -> None:
    await clock.advance(to=datetime(2026, 1, 4, 12, 0, tzinfo=UTC))  # Sunday
    reply = await admin(stack, "daily 09:00 Asia/Jakarta")
    assert reply.ok and "09:00 (Asia/Jakarta)" in reply.text and "2026-01-05 09:00" in reply.text
    await walk(stack, clock, datetime(2026, 1, 11, 12, 0, tzinfo=UTC), timedelta(minutes=30))
    expected = [datetime(2026, 1, d, 2, 0, tzinfo=UTC) for d in range(5, 10)]  # Mon..Fri
    assert post_times(stack.port) == expected
    assert {v.title for _, v in stack.port.posted} == {"ZeroQuiz · Daily question"}
    assert len({v.question_id for _, v in stack.port.posted}) == 5  # no repeats
    # Each closes after the default 8-hour window through the normal reveal path.
    assert len(stack.port.reveals) == 5
    assert all(v.closes_at - v.opened_at == timedelta(hours=8) for _, v in stack.port.posted)


async def test_scheduler_replans_when_a_schedule_changes(stack: Stack, clock: FakeClock) -> None:
    """No polling: the scheduler sleeps until the next due moment and re-plans on a change."""
    await clock.advance(to=datetime(2026, 1, 4, 12, 0, tzinfo=UTC))  # Sunday
    await stack.sched.caught_up()
    assert clock.next_wake is None  # nothing scheduled: no timer at all

    async def yes() -> bool:
        return True

    ctx = Context(CHANNEL, ADMIN, yes)
    await dispatch(stack.quiz, parse_text("daily 09:00 Asia/Jakarta"), ctx)
    await planned(clock, datetime(2026, 1, 5, 2, 0, tzinfo=UTC))
    assert clock.sleepers == 1
    await dispatch(stack.quiz, parse_text("daily 07:30 Asia/Jakarta"), ctx)
    await planned(clock, datetime(2026, 1, 5, 0, 30, tzinfo=UTC))
    assert clock.sleepers == 1


@pytest.mark.parametrize(
    ("day", "utc_hour"),
    [
        (date(2026, 3, 6), 14),  # EST: 09:00 = 14:00 UTC
        (date(2026, 3, 9), 13),  # EDT after March 8
        (date(2026, 10, 30), 13),  # EDT
        (date(2026, 11, 2), 14),  # EST after November 1
    ],
)
def test_new_york_due_times_follow_dst(day: date, utc_hour: int) -> None:
    assert due_at(day, time(9, 0), "America/New_York") == datetime.combine(
        day, time(utc_hour, 0), tzinfo=UTC
    )


def test_nonexistent_and_repeated_local_times() -> None:
    # 02:30 does not exist on 2026-03-08 in New York: due at the next valid minute, 03:00 EDT.
    assert due_at(date(2026, 3, 8), time(2, 30), "America/New_York") == datetime(
        2026, 3, 8, 7, 0, tzinfo=UTC
    )
    # 01:30 happens twice on 2026-11-01: due at the first, 01:30 EDT.
    assert due_at(date(2026, 11, 1), time(1, 30), "America/New_York") == datetime(
        2026, 11, 1, 5, 30, tzinfo=UTC
    )


async def test_new_york_schedule_across_both_changes(stack: Stack, clock: FakeClock) -> None:
    await clock.advance(to=datetime(2026, 3, 6, 0, 0, tzinfo=UTC))
    assert (await admin(stack, "daily 09:00 America/New_York every day")).ok
    await walk(stack, clock, datetime(2026, 3, 11, 0, 0, tzinfo=UTC), timedelta(minutes=30))
    spring = post_times(stack.port)
    assert [t.hour for t in spring] == [14, 14, 13, 13, 13]  # Mar 6, 7, then EDT from Mar 8
    assert all(t.astimezone(NEW_YORK).hour == 9 for t in spring)
    await clock.advance(to=datetime(2026, 10, 30, 0, 0, tzinfo=UTC))
    await stack.sched.caught_up()
    before = len(stack.port.posted)
    await walk(stack, clock, datetime(2026, 11, 4, 0, 0, tzinfo=UTC), timedelta(minutes=30))
    autumn = post_times(stack.port)[before:]
    assert [t.hour for t in autumn] == [13, 13, 14, 14, 14]  # Oct 30, 31, then EST from Nov 1
    assert all(t.astimezone(NEW_YORK).hour == 9 for t in autumn)


async def test_repeated_hour_posts_once(stack: Stack, clock: FakeClock) -> None:
    await clock.advance(to=datetime(2026, 10, 31, 12, 0, tzinfo=UTC))
    assert (await admin(stack, "daily 01:30 America/New_York every day")).ok
    await walk(stack, clock, datetime(2026, 11, 1, 12, 0, tzinfo=UTC), timedelta(minutes=15))
    assert post_times(stack.port) == [datetime(2026, 11, 1, 5, 30, tzinfo=UTC)]


async def test_thirty_restarts_in_a_day_post_once(
    db_target: str, clock: FakeClock, bank: Bank
) -> None:
    await clock.advance(to=datetime(2026, 1, 5, 0, 0, tzinfo=UTC))  # Monday
    first = await boot(db_target, clock, bank)
    assert (await admin(first, "daily 09:00 UTC")).ok
    await first.close()
    posted: list[RecordingPort] = []
    for i in range(30):  # a restart every 48 minutes, each instance running for a while
        stack = await boot(db_target, clock, bank, seed=i)
        await walk(stack, clock, clock.now() + timedelta(minutes=48), timedelta(minutes=16))
        posted.append(stack.port)
        await stack.close()
    assert sum(len(p.posted) for p in posted) == 1
    assert sum(len(p.reveals) for p in posted) == 1


async def test_two_instances_on_one_database_post_once(
    db_target: str, clock: FakeClock, bank: Bank
) -> None:
    await clock.advance(to=datetime(2026, 1, 5, 8, 0, tzinfo=UTC))
    a = await boot(db_target, clock, bank, seed=1)
    b = await boot(db_target, clock, bank, seed=2)
    try:
        assert (await admin(a, "daily 09:00 UTC")).ok
        b.sched.wake()
        for day in range(3):
            await clock.advance(to=datetime(2026, 1, 5 + day, 9, 0, tzinfo=UTC))
            await asyncio.gather(a.sched.caught_up(), b.sched.caught_up())
        assert len(a.port.posted) + len(b.port.posted) == 3
    finally:
        await a.close()
        await b.close()


async def test_claim_left_by_a_crash_is_completed_with_the_same_dedupe_key(
    db_target: str, clock: FakeClock, bank: Bank
) -> None:
    await (await scheduled_at_nine(db_target, clock, bank)).close()

    db = await Store.open(db_target)
    core = build_core(db, bank, clock, random.Random(3), daily=True)
    hanging = HangingPort()
    core.quiz.add_port(hanging)
    daily = core.daily
    assert daily is not None
    await clock.advance(to=datetime(2026, 1, 5, 9, 0, tzinfo=UTC))
    crashing = asyncio.create_task(daily.process_due())
    for _ in range(100):
        if hanging.dedupe_keys:
            break
        await asyncio.sleep(0.01)  # bounded wait for the send to start (real I/O, not time)
    crashing.cancel()  # the process dies mid-send
    await asyncio.gather(crashing, return_exceptions=True)
    await db.close()

    await clock.advance(180)  # restart after the claim's lease ran out
    restarted = await boot(db_target, clock, bank, seed=4)
    try:
        assert len(restarted.port.posted) == 1
        assert restarted.port.dedupe_keys == hanging.dedupe_keys  # Discord drops a real repeat
        # The first try had nothing to look for; the one after the crash may find its message
        # (Slack reads the channel back from the round's opening on).
        assert hanging.tried_since == [None]
        assert restarted.port.tried_since == [datetime(2026, 1, 5, 9, 0, tzinfo=UTC)]
        await walk(restarted, clock, clock.now() + timedelta(hours=9), timedelta(hours=1))
        assert len(restarted.port.posted) == 1 and len(restarted.port.reveals) == 1
    finally:
        await restarted.close()


@pytest.mark.parametrize("restarted_as", ["replica-a", "replica-b"])
async def test_a_restarted_replica_posts_its_own_claim_at_once_another_after_the_lease(
    db_target: str, clock: FakeClock, bank: Bank, restarted_as: str
) -> None:
    """Killed between claiming the day's post and sending it: the same replica (the same
    ZEROQUIZ_REPLICA_ID) started again takes its claim back at once; another one waits out
    the lease (the holder might still be sending)."""
    await (await scheduled_at_nine(db_target, clock, bank)).close()
    db = await Store.open(db_target)
    core = build_core(db, bank, clock, random.Random(3), daily=True, holder="replica-a")
    hanging = HangingPort()
    core.quiz.add_port(hanging)
    assert core.daily is not None
    await clock.advance(to=datetime(2026, 1, 5, 9, 0, tzinfo=UTC))
    crashing = asyncio.create_task(core.daily.process_due())
    for _ in range(100):
        if hanging.dedupe_keys:
            break
        await asyncio.sleep(0.01)  # bounded wait for the send to start (real I/O, not time)
    crashing.cancel()  # killed mid-send
    await asyncio.gather(crashing, return_exceptions=True)
    await db.close()

    await clock.advance(5)  # started again at once
    again = await boot(db_target, clock, bank, seed=4, holder=restarted_as)
    try:
        if restarted_as == "replica-a":
            assert len(again.port.posted) == 1
            assert again.port.dedupe_keys == hanging.dedupe_keys
        else:
            assert again.port.posted == []
            await walk(again, clock, clock.now() + timedelta(minutes=3), timedelta(seconds=30))
            assert len(again.port.posted) == 1
    finally:
        await again.close()


async def test_down_past_posting_time_posts_late_within_grace(
    db_target: str, clock: FakeClock, bank: Bank
) -> None:
    s = await scheduled_at_nine(db_target, clock, bank)
    await clock.advance(to=datetime(2026, 1, 5, 8, 30, tzinfo=UTC))
    await s.close()  # down from 08:30
    await clock.advance(to=datetime(2026, 1, 5, 9, 40, tzinfo=UTC))
    s = await boot(db_target, clock, bank)  # back at 09:40
    try:
        assert post_times(s.port) == [datetime(2026, 1, 5, 9, 40, tzinfo=UTC)]
    finally:
        await s.close()


async def test_down_beyond_grace_skips_and_logs(
    db_target: str, clock: FakeClock, bank: Bank, caplog: pytest.LogCaptureFixture
) -> None:
    s = await scheduled_at_nine(db_target, clock, bank)
    await clock.advance(to=datetime(2026, 1, 5, 8, 30, tzinfo=UTC))
    await s.close()
    await clock.advance(to=datetime(2026, 1, 5, 11, 0, tzinfo=UTC))
    with caplog.at_level(logging.WARNING):
        s = await boot(db_target, clock, bank)
    try:
        assert s.port.posted == []
        assert any(
            "skipped" in r.getMessage() and "2026-01-05" in r.getMessage() for r in caplog.records
        )
        await walk(s, clock, datetime(2026, 1, 6, 9, 30, tzinfo=UTC), timedelta(minutes=30))
        assert post_times(s.port) == [datetime(2026, 1, 6, 9, 0, tzinfo=UTC)]  # next day is normal
    finally:
        await s.close()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("daily 25:00 UTC", "is not a time"),
        ("daily 9am UTC", "is not a time"),
        ("daily 09:00 Mars/Olympus", "is not a time zone"),
        ("daily 09:00 UTC funday", "is not a set of days"),
        ("daily 09:00 UTC mon-fri 30h", "is not an answer window"),
        ("daily 09:00", "Usage"),
    ],
)
async def test_invalid_schedules_change_nothing(stack: Stack, text: str, message: str) -> None:
    assert (await admin(stack, "daily 10:15 Asia/Jakarta mon,wed,fri 2h")).ok
    reply = await admin(stack, text)
    assert not reply.ok and message in reply.text
    shown = await admin(stack, "daily")
    assert "10:15 (Asia/Jakarta)" in shown.text and "Mon, Wed, Fri" in shown.text
    assert "2 h" in shown.text


async def test_non_admin_is_refused_and_off_stops(stack: Stack, clock: FakeClock) -> None:
    refused = await admin(stack, "daily 09:00 UTC", is_admin=False)
    assert not refused.ok and refused.text == "Only admins can do that."
    assert "no daily question" in (await admin(stack, "daily")).text
    assert (await admin(stack, "daily 09:00 UTC every day")).ok
    assert (await admin(stack, "daily off")).text == "Daily question stopped for this channel."
    await walk(stack, clock, clock.now() + timedelta(days=2), timedelta(hours=1))
    assert stack.port.posted == []


async def test_reveal_mentions_daily_streaks(stack: Stack, clock: FakeClock, bank: Bank) -> None:
    await clock.advance(to=datetime(2026, 1, 5, 8, 0, tzinfo=UTC))
    assert (await admin(stack, "daily 09:00 UTC every day 1h")).ok
    for day in range(3):
        await walk(stack, clock, datetime(2026, 1, 5 + day, 9, 0, tzinfo=UTC), timedelta(hours=1))
        view = stack.port.posted[-1][1]
        right = right_choice(view, bank)
        await stack.quiz.rounds.answer(view.round_id, UserRef("test", "T1", "U1", "Sari"), right)
        if day != 1:
            await stack.quiz.rounds.answer(
                view.round_id, UserRef("test", "T1", "U2", "Budi"), right
            )
        await walk(stack, clock, clock.now() + timedelta(hours=1), timedelta(hours=1))
    last = stack.port.reveals[-1][1]
    assert last.streaks is not None and "Sari (3)" in last.streaks and "Budi" not in last.streaks
    assert stack.port.reveals[0][1].streaks is None
