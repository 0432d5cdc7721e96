"""Limits (bot/limits.py): each refusal is a clear private reply, changes nothing, and is counted
under its limit's name. Command rates run on the injected clock; caps on open questions and
daily schedules are counted in the database, on both backends, so commands at once can't
slip past them."""

from __future__ import annotations

import asyncio
import random
from dataclasses import fields
from datetime import timedelta

import pytest
from helpers import RecordingPort
from pg_server import on_both_backends

from bot.app import build_core
from bot.bank import Bank
from bot.clock import FakeClock
from bot.commands import Context, dispatch, parse_text
from bot.limits import (
    CHANNEL_QUESTIONS,
    CHANNEL_RUNS,
    PERSON_RATE,
    TEAM_RATE,
    TEAM_ROUNDS,
    TEAM_SCHEDULES,
    VARIABLES,
    Buckets,
    Limits,
    LimitsError,
    limits_from_env,
)
from bot.model import ChannelRef, UserRef
from bot.quiz import Quiz
from bot.storage import Store
from bot.topics import NO_FILTER
from bot.views import NoticeView, QuestionView

pytestmark = on_both_backends


class Counted:
    """What the metrics would count: refusals by limit name."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def __call__(self, name: str) -> None:
        self.names.append(name)


def limited_quiz(
    store: Store, bank: Bank, clock: FakeClock, port: RecordingPort, limits: Limits, seen: Counted
) -> Quiz:
    core = build_core(
        store, bank, clock, random.Random(5), daily=True, limits=limits, on_limit=seen
    )
    core.quiz.add_port(port)
    return core.quiz


def ctx(channel: str = "C1", user: str = "UA", team: str = "T1", admin: bool = False) -> Context:
    async def is_admin() -> bool:
        return admin

    return Context(ChannelRef("test", team, channel), UserRef("test", team, user, user), is_admin)


async def say(quiz: Quiz, text: str, context: Context, receipt: str | None = None) -> NoticeView:
    reply = await dispatch(quiz, parse_text(text), context, receipt=receipt)
    assert isinstance(reply, NoticeView)
    return reply


UNLIMITED_RATES = Limits(person_burst=0, person_per_minute=0, team_burst=0, team_per_minute=0)


async def test_a_second_question_in_a_channel_says_when_the_open_one_closes(
    db: Store, bank: Bank, clock: FakeClock, port: RecordingPort
) -> None:
    seen = Counted()
    quiz = limited_quiz(db, bank, clock, port, UNLIMITED_RATES, seen)
    assert (await say(quiz, "question", ctx())).text == "Question posted."
    await clock.advance(3 * 60 + 10)  # the default window is 10 minutes
    second = await say(quiz, "question", ctx(user="UB"))
    assert not second.ok
    assert second.text == (
        "A question is already open in this channel: answer that one first. "
        "It closes in about 7 min."
    )
    started = await say(quiz, "start 3", ctx(user="UB"))  # a run would open a second one too
    assert not started.ok and "already open" in started.text
    assert len(port.posted) == 1
    assert len(await db.rounds.in_channel(ChannelRef("test", "T1", "C1"))) == 1
    assert await db.rounds.unfinished_run(1) is None  # the refused run left nothing behind
    assert (await say(quiz, "question", ctx(channel="C2"))).ok  # another channel is free
    assert (await say(quiz, "close", ctx(admin=True))).ok
    assert (await say(quiz, "question", ctx())).text == "Question posted."
    assert seen.names == [CHANNEL_QUESTIONS, CHANNEL_QUESTIONS]


async def test_a_hundred_questions_at_once_in_one_channel_open_one(
    db: Store, bank: Bank, clock: FakeClock, port: RecordingPort
) -> None:
    seen = Counted()
    quiz = limited_quiz(db, bank, clock, port, UNLIMITED_RATES, seen)
    replies = await asyncio.gather(*(say(quiz, "question", ctx(user=f"U{n}")) for n in range(100)))
    assert sum(r.ok for r in replies) == 1
    assert len(port.posted) == 1
    assert len(await db.rounds.in_channel(ChannelRef("test", "T1", "C1"))) == 1
    assert seen.names == [CHANNEL_QUESTIONS] * 99


async def test_a_team_may_have_so_many_questions_open_then_is_told_to_wait(
    db: Store, bank: Bank, clock: FakeClock, port: RecordingPort
) -> None:
    seen = Counted()
    limits = Limits(team_open_rounds=3, person_burst=0, person_per_minute=0, team_burst=0,
                    team_per_minute=0)  # fmt: skip
    quiz = limited_quiz(db, bank, clock, port, limits, seen)
    replies = await asyncio.gather(*(say(quiz, "question", ctx(channel=f"C{n}")) for n in range(6)))
    assert sum(r.ok for r in replies) == 3
    refused = [r.text for r in replies if not r.ok]
    assert (
        refused
        == [
            "This workspace already has 3 questions open, the most it may have at once. "
            "Try again when one has closed."
        ]
        * 3
    )
    assert (await say(quiz, "start 2", ctx(channel="C9"))).ok is False
    assert (await say(quiz, "question", ctx(channel="C9", team="T2"))).ok  # another team
    assert len(port.posted) == 4
    assert seen.names == [TEAM_ROUNDS] * 4


async def test_one_run_per_channel_is_counted_as_a_limit(
    db: Store, bank: Bank, clock: FakeClock, port: RecordingPort
) -> None:
    seen = Counted()
    limits = Limits(channel_open_questions=0, person_burst=0, person_per_minute=0,
                    team_burst=0, team_per_minute=0)  # fmt: skip
    quiz = limited_quiz(db, bank, clock, port, limits, seen)
    assert (await say(quiz, "start 3", ctx())).text == "A run of 3 questions has started."
    busy = await say(quiz, "start 3", ctx(user="UB"))
    assert not busy.ok and busy.text.startswith("A run is already going in this channel.")
    assert len(port.posted) == 1 and seen.names == [CHANNEL_RUNS]


async def test_a_person_over_their_command_rate_waits_and_nothing_is_done(
    db: Store, bank: Bank, clock: FakeClock, port: RecordingPort
) -> None:
    seen = Counted()
    limits = Limits(person_burst=3, person_per_minute=6, team_burst=0, team_per_minute=0)
    quiz = limited_quiz(db, bank, clock, port, limits, seen)
    for _ in range(3):
        assert (await say(quiz, "help", ctx())).ok
    refused = await say(quiz, "question", ctx())
    assert refused.text == "You're sending commands faster than I take them. Try again in 10 s."
    assert port.posted == [] and seen.names == [PERSON_RATE]
    assert (await say(quiz, "question", ctx(user="UB"))).ok  # someone else is not held
    await clock.advance(9)
    assert not (await say(quiz, "help", ctx())).ok
    await clock.advance(1)
    assert (await say(quiz, "help", ctx())).ok  # one token back after 10 s
    assert seen.names == [PERSON_RATE] * 2


async def test_a_team_over_its_command_rate_is_held_whoever_types(
    db: Store, bank: Bank, clock: FakeClock, port: RecordingPort
) -> None:
    seen = Counted()
    limits = Limits(person_burst=0, person_per_minute=0, team_burst=5, team_per_minute=30)
    quiz = limited_quiz(db, bank, clock, port, limits, seen)
    for n in range(5):
        assert (await say(quiz, "help", ctx(user=f"U{n}"))).ok
    refused = await say(quiz, "help", ctx(user="U9"))
    assert refused.text == (
        "This workspace is sending more commands than I take at once. Try again in 2 s."
    )
    assert (await say(quiz, "help", ctx(team="T2"))).ok  # another workspace is not held
    await clock.advance(2)
    assert (await say(quiz, "help", ctx(user="U9"))).ok
    assert seen.names == [TEAM_RATE]


async def test_a_team_may_have_so_many_daily_schedules(
    db: Store, bank: Bank, clock: FakeClock, port: RecordingPort
) -> None:
    seen = Counted()
    limits = Limits(team_daily_schedules=2, person_burst=0, person_per_minute=0, team_burst=0,
                    team_per_minute=0)  # fmt: skip
    quiz = limited_quiz(db, bank, clock, port, limits, seen)
    for channel in ("C1", "C2"):
        assert (await say(quiz, "daily 09:00 UTC", ctx(channel=channel, admin=True))).ok
    third = await say(quiz, "daily 09:00 UTC", ctx(channel="C3", admin=True))
    assert third.text == (
        "This workspace already has 2 daily questions, the most it may have. "
        "Turn one off first (`/zeroquiz daily off` in its channel)."
    )
    assert (await say(quiz, "daily 10:00 UTC", ctx(channel="C1", admin=True))).ok  # a change
    assert (await say(quiz, "daily off", ctx(channel="C2", admin=True))).ok
    assert (await say(quiz, "daily 09:00 UTC", ctx(channel="C3", admin=True))).ok
    assert len(await db.daily.team_schedules("test", "T1")) == 2
    assert seen.names == [TEAM_SCHEDULES]


async def test_a_replayed_command_is_done_once_and_receipts_are_swept(
    db: Store, bank: Bank, clock: FakeClock, port: RecordingPort
) -> None:
    quiz = limited_quiz(db, bank, clock, port, Limits.none(), Counted())
    assert (await say(quiz, "question", ctx(), receipt="trigger-1")).ok
    again = await say(quiz, "question", ctx(), receipt="trigger-1")
    assert again.text == "That command was carried out already." and not again.ok
    assert len(port.posted) == 1
    assert (await say(quiz, "question", ctx(), receipt="trigger-2")).ok  # its own id: done
    assert len(port.posted) == 2
    assert await db.receipts.count() == 2
    await clock.advance(2 * 3600)  # past any platform's repeat window
    assert (await say(quiz, "help", ctx(), receipt="trigger-3")).ok
    assert await db.receipts.count() == 1  # the old ones were swept by that take


async def test_an_opened_round_that_was_never_posted_is_posted_by_the_next_pass(
    db: Store, bank: Bank, clock: FakeClock, port: RecordingPort
) -> None:
    """A crash between a command's acknowledgement and its post: the round is in the database,
    open and unposted; the scheduler's next pass (at the next start) posts it, once."""
    core = build_core(db, bank, clock, random.Random(5), limits=Limits.none())
    opened = await core.quiz.rounds.open_question(ChannelRef("test", "T1", "C1"), flt=NO_FILTER)
    assert not isinstance(opened, NoticeView)
    restarted = build_core(db, bank, clock, random.Random(6), holder="next", limits=Limits.none())
    restarted.quiz.add_port(port)
    await restarted.scheduler.run_once()
    await restarted.scheduler.run_once()
    assert [view.round_id for _, view in port.posted] == [opened.id]
    row = await db.rounds.get(opened.id)
    assert row is not None and row.posted_at is not None


@pytest.mark.parametrize(
    ("env", "problem"),
    [
        ({"ZEROQUIZ_LIMIT_PERSON_BURST": "ten"}, "ZEROQUIZ_LIMIT_PERSON_BURST must be a whole"),
        ({"ZEROQUIZ_LIMIT_TEAM_OPEN_ROUNDS": "-1"}, "ZEROQUIZ_LIMIT_TEAM_OPEN_ROUNDS must be"),
        ({"ZEROQUIZ_LIMIT_PERSON_PER_MINUTE": "nan"}, "ZEROQUIZ_LIMIT_PERSON_PER_MINUTE must"),
        ({"ZEROQUIZ_LIMIT_TEAM_BURST": "2.5"}, "ZEROQUIZ_LIMIT_TEAM_BURST must be a whole"),
        ({"ZEROQUIZ_LIMIT_TEAM_BURST": "0"}, "are off (0) only together"),
    ],
)
def test_a_bad_limit_value_is_refused_in_one_line(env: dict[str, str], problem: str) -> None:
    with pytest.raises(LimitsError) as refused:
        limits_from_env(env)
    assert problem in str(refused.value) and "\n" not in str(refused.value)


def test_every_limit_has_its_variable() -> None:
    assert {f.name: f"ZEROQUIZ_LIMIT_{f.name.upper()}" for f in fields(Limits)} == VARIABLES


def test_limits_come_from_the_environment_with_defaults_for_the_rest() -> None:
    assert limits_from_env({}) == Limits()
    chosen = limits_from_env(
        {"ZEROQUIZ_LIMIT_CHANNEL_OPEN_QUESTIONS": "2", "ZEROQUIZ_LIMIT_PERSON_PER_MINUTE": "1.5"}
    )
    assert chosen == Limits(channel_open_questions=2, person_per_minute=1.5)
    off = limits_from_env({"ZEROQUIZ_LIMIT_TEAM_BURST": "0", "ZEROQUIZ_LIMIT_TEAM_PER_MINUTE": "0"})
    assert off.team_burst == 0 and off.team_per_minute == 0


def test_buckets_stay_bounded_and_refill_on_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    monkeypatch.setattr("bot.limits.MAX_KEYS", 100)
    buckets = Buckets(clock, burst=2, per_minute=60)
    for n in range(1000):
        buckets.spend(n)
    assert len(buckets._buckets) == 100
    buckets.spend("a")
    buckets.spend("a")
    assert buckets.wait("a") == pytest.approx(1.0)
    clock._now += timedelta(seconds=1)
    assert buckets.wait("a") == 0


async def test_reports_count_against_the_persons_command_rate(
    db: Store, bank: Bank, clock: FakeClock, port: RecordingPort
) -> None:
    """A flood of reports is held like a flood of commands: nothing stored past the rate."""
    limits = Limits(person_burst=2, person_per_minute=6, team_burst=0, team_per_minute=0)
    quiz = limited_quiz(db, bank, clock, port, limits, Counted())
    who = UserRef("test", "T1", "UA", "Ada")
    view = await quiz.rounds.start_round(ChannelRef("test", "T1", "C1"))
    assert isinstance(view, QuestionView)
    await quiz.rounds.answer(view.round_id, who, 0)
    assert (await quiz.report(who, view.question_id, "typo", "", "en")).ok
    assert not (await quiz.report(who, view.question_id, "key", "", "en")).ok  # already
    held = await quiz.report(who, view.question_id, "key", "", "en")
    assert not held.ok and "faster than I take them" in held.text
