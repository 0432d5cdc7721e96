"""The delivery-error contract: a refused post is reported and its round closed unseen; a
passing failure changes nothing and is retried; a question nobody saw is never revealed."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from datetime import timedelta

import pytest
from conftest import CHANNEL
from helpers import RecordingPort

from bot.app import build_core
from bot.bank import Bank
from bot.clock import FakeClock
from bot.commands import Command, Context, accept, dispatch
from bot.model import UserRef
from bot.ports import PortNotReady, Refused, Unavailable
from bot.quiz import Quiz
from bot.scheduler import Scheduler
from bot.storage import Store
from bot.views import NoticeView, QuestionView

ASKER = UserRef("test", "T1", "U1", "Ada")


async def ask(quiz: Quiz, text: str) -> str:
    async def no() -> bool:
        return False

    words = text.split()
    reply = await dispatch(quiz, Command(words[0], tuple(words[1:])), Context(CHANNEL, ASKER, no))
    assert isinstance(reply, NoticeView)  # only a notice has .text
    return reply.text


async def rounds(db: Store) -> list[tuple[object, ...]]:
    """(id, posted?, closed?, why closed, revealed?) of the channel's rounds, as stored."""
    return [
        (r.id, int(r.posted_at is not None), int(r.closed_at is not None), r.close_reason,
         int(r.revealed_at is not None))
        for r in await db.rounds.in_channel(CHANNEL)
    ]  # fmt: skip


@pytest.fixture
async def scheduled(
    db: Store, port: RecordingPort, make_quiz: Callable[..., Quiz], clock: FakeClock
) -> AsyncIterator[tuple[Quiz, Scheduler]]:
    """A quiz whose scheduler runs, as in `zeroquiz serve`."""
    quiz = make_quiz(db, port)
    sched = Scheduler(clock, quiz)
    quiz.rounds.on_change(sched.wake)
    sched.start()
    yield quiz, sched
    await sched.stop()


async def test_a_passing_failure_leaves_the_round_open_and_it_is_posted_later(
    scheduled: tuple[Quiz, Scheduler], db: Store, port: RecordingPort, clock: FakeClock
) -> None:
    quiz, sched = scheduled
    port.fail_posts = [Unavailable("network"), PortNotReady("reconnecting")]
    text = await ask(quiz, "question")
    assert "isn't answering right now" in text
    assert await rounds(db) == [(1, 0, 0, None, 0)]  # open, unposted, nothing refused
    await clock.advance(15)  # the first retry: still reconnecting
    await sched.caught_up()
    assert port.posted == [] and await rounds(db) == [(1, 0, 0, None, 0)]
    await clock.advance(30)  # backoff doubled
    await sched.caught_up()
    assert [v.round_id for _, v in port.posted] == [1]
    assert await rounds(db) == [(1, 1, 0, None, 0)]
    await clock.advance(600)  # the deadline: revealed as usual
    await sched.caught_up()
    assert [v.round_id for _, v in port.reveals] == [1]


async def test_a_retry_pass_between_the_ack_and_the_post_leaves_the_first_post_to_the_command(
    db: Store, port: RecordingPort, make_quiz: Callable[..., Quiz], clock: FakeClock
) -> None:
    """The command is acknowledged once its round is committed, and posts after: a retry pass
    that runs in between (woken by anything) must not take that first post, or the person is
    told how the pass's try went instead of their own (CI saw "Question posted." over a 503)."""
    quiz = make_quiz(db, port)

    async def no() -> bool:
        return False

    taken = await accept(quiz, Command("question", ()), Context(CHANNEL, ASKER, no))
    port.fail_posts = [Unavailable("503")]
    await quiz.process_due()  # the scheduler, between the ack and the post
    assert port.posted == [] and await rounds(db) == [(1, 0, 0, None, 0)]
    reply = await taken.finish()
    assert isinstance(reply, NoticeView) and "isn't answering right now" in reply.text
    await clock.advance(15)
    await quiz.process_due()  # now the pass retries it
    assert [v.round_id for _, v in port.posted] == [1]


async def test_a_question_that_never_reached_the_platform_is_never_revealed(
    scheduled: tuple[Quiz, Scheduler], db: Store, port: RecordingPort, clock: FakeClock
) -> None:
    quiz, sched = scheduled
    # A raw network error the port did not map: treated as passing, never as delivered.
    port.fail_posts = [ConnectionResetError("reset by peer") for _ in range(20)]
    await ask(quiz, "question")
    await clock.advance(11 * 60)  # retries fail until the deadline
    await sched.caught_up()
    assert port.posted == [] and port.reveals == []
    assert await rounds(db) == [(1, 0, 1, "undelivered", 1)]  # closed unseen, nothing to reveal
    await clock.advance(3600)
    await sched.caught_up()
    assert port.reveals == [] and port.posted == []


async def test_a_refusal_is_reported_and_closes_the_round_unseen(
    db: Store, port: RecordingPort, make_quiz: Callable[..., Quiz], clock: FakeClock
) -> None:
    quiz = make_quiz(db, port)
    port.fail_posts = [Refused("invite the app to this channel")]
    assert await ask(quiz, "question") == (
        "I can't post in this channel: invite the app to this channel"
    )
    assert await rounds(db) == [(1, 0, 1, "undelivered", 1)]
    await clock.advance(3600)
    await quiz.process_due()
    assert port.reveals == [] and port.posted == []


async def test_a_run_whose_next_question_fails_passingly_goes_on_once_it_is_back(
    db: Store, port: RecordingPort, make_quiz: Callable[..., Quiz], clock: FakeClock
) -> None:
    quiz = make_quiz(db, port)
    started = await quiz.runs.start(CHANNEL, 2, timedelta(minutes=1))
    assert started is not None
    port.fail_posts = [Unavailable("network")]
    await clock.advance(61)
    await quiz.process_due()  # question 1 closes; question 2 opens but cannot be posted yet
    assert len(port.posted) == 1 and len(port.reveals) == 1
    await clock.advance(15)
    await quiz.process_due()
    assert len(port.posted) == 2  # question 2 of the run, posted on the retry
    await clock.advance(61)
    await quiz.process_due()
    assert len(port.reveals) == 2 and len(port.notices) == 1  # revealed, then the standings


async def test_a_late_click_on_a_stray_copy_turns_that_copy_into_the_reveal_once(
    quiz: Quiz, port: RecordingPort
) -> None:
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None
    own = f"msg-{view.round_id}"
    assert not await quiz.reveals.stray(view.round_id, "copy-1")  # still open: nothing to show
    await quiz.close_round(view.round_id, "admin")
    assert [ref for ref, _ in port.reveals] == [own]
    assert not await quiz.reveals.stray(view.round_id, own)  # its own message is revealed already
    assert await quiz.reveals.stray(view.round_id, "copy-1")
    assert not await quiz.reveals.stray(view.round_id, "copy-1")  # once per copy
    assert [ref for ref, _ in port.reveals] == [own, "copy-1"]
    assert port.reveals[1][1] == port.reveals[0][1]  # the same reveal in both
    assert port.posted and len(port.posted) == 1  # never a new message


async def test_a_reveal_that_keeps_failing_is_tried_six_times_then_given_up(
    scheduled: tuple[Quiz, Scheduler], db: Store, port: RecordingPort, clock: FakeClock
) -> None:
    """Refused or not, a reveal is tried again (30 s, doubling) at the scheduler's planned
    wake; after the sixth try it is given up and the round counts as revealed."""
    quiz, sched = scheduled
    port.failures["post_reveal"] = [Refused("missing access") for _ in range(10)]
    view = await quiz.rounds.start_round(CHANNEL, window=timedelta(minutes=1))
    assert view is not None
    await clock.advance(60)  # the deadline: the first try
    await sched.caught_up()
    for wait in (30, 60, 120, 240):  # tries two to five
        await clock.advance(wait - 1)
        await sched.caught_up()
        tried = 10 - len(port.failures["post_reveal"])
        await clock.advance(1)
        await sched.caught_up()
        assert 10 - len(port.failures["post_reveal"]) == tried + 1  # on time, not before
    assert await rounds(db) == [(1, 1, 1, "deadline", 0)]
    await clock.advance(480)  # the sixth try, the last
    await sched.caught_up()
    assert len(port.failures["post_reveal"]) == 4 and port.reveals == []
    assert await rounds(db) == [(1, 1, 1, "deadline", 1)]  # given up: never tried again
    assert await quiz.next_due() is None
    await clock.advance(3600)
    await sched.caught_up()
    assert len(port.failures["post_reveal"]) == 4


async def test_a_failed_live_count_or_standings_post_is_only_logged(
    db: Store, bank: Bank, port: RecordingPort, clock: FakeClock
) -> None:
    """Neither is tried again on its own: the next click edits the count anyway, and the run
    ends as usual without its standings."""
    core = build_core(db, bank, clock, random.Random(7), live_counts=timedelta(seconds=5))
    quiz, tally = core.quiz, core.tally
    assert tally is not None
    quiz.add_port(port)
    port.failures["update_question"] = [Unavailable("rate limited")]
    port.failures["post_notice"] = [Refused("missing access")]
    started = await quiz.runs.start(CHANNEL, 1, timedelta(minutes=1))
    assert isinstance(started, QuestionView)
    await quiz.rounds.answer(started.round_id, UserRef("test", "T1", "U1"), 0)
    await tally.drain()
    assert port.updates == [] and await quiz.next_due() == clock.now() + timedelta(minutes=1)
    await clock.advance(5)
    await quiz.rounds.answer(started.round_id, UserRef("test", "T1", "U2"), 0)
    await tally.drain()
    assert [view.answer_count for _, view in port.updates] == [2]
    await clock.advance(60)
    await quiz.process_due()
    assert len(port.reveals) == 1 and port.notices == []  # revealed; the standings failed
    assert await quiz.runs.current(CHANNEL) is None and await quiz.next_due() is None
    await tally.stop()
