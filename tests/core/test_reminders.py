"""Review reminders (`/zeroquiz remind`): one direct message at the set local minute on the set
days when the person has review cards due in that team, none when nothing is due, once a day
whatever the number of passes, processes or crashes; `remind` shows it, `remind off` stops it;
bad times and zones get `daily`'s replies; the team's cap holds. Both backends."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta

from conftest import CHANNEL
from helpers import RecordingPort, player, right_choice
from pg_server import on_both_backends

from bot.app import build_core
from bot.bank import Bank
from bot.clock import FakeClock
from bot.commands import Context, dispatch, parse_text
from bot.i18n import t
from bot.limits import Limits
from bot.model import UserRef
from bot.quiz import Quiz
from bot.reviewing import decode
from bot.storage import Store
from bot.views import NoticeView, QuestionView, ReviewView

pytestmark = on_both_backends


def ctx(user: UserRef) -> Context:
    async def no() -> bool:
        return False

    return Context(channel=CHANNEL, user=user, is_admin=no)


async def say(quiz: Quiz, who: UserRef, text: str) -> NoticeView:
    reply = await dispatch(quiz, parse_text(text), ctx(who))
    assert isinstance(reply, NoticeView)
    return reply


async def miss_one(quiz: Quiz, bank: Bank, who: UserRef) -> str:
    """`who` answers one question wrong: its card is due again within the day."""
    view = await quiz.rounds.start_round(CHANNEL)
    assert isinstance(view, QuestionView)
    wrong = (right_choice(view, bank) + 1) % len(view.options)
    await quiz.rounds.answer(view.round_id, who, wrong)
    await quiz.close_round(view.round_id, "admin")
    return view.question_id


async def test_a_reminder_comes_at_its_minute_when_cards_are_due_and_only_once(
    quiz: Quiz, bank: Bank, clock: FakeClock, port: RecordingPort
) -> None:
    me, idle = player(1), player(2)
    await miss_one(quiz, bank, me)
    said = await say(quiz, me, "remind 08:30 Asia/Jakarta every day")
    assert said.ok and "08:30 (Asia/Jakarta)" in said.text and "every day" in said.text
    assert "Next check: 2026-01-06 08:30 (Asia/Jakarta)" in said.text  # 09:00 UTC is 16:00 there
    assert (await say(quiz, idle, "remind 08:30 Asia/Jakarta")).ok  # mon-fri, nothing to review
    reminders = quiz.reminders

    # Tuesday 08:29 in Jakarta (01:29 UTC): not yet. 08:30: one message, with the count.
    await clock.advance(to=datetime(2026, 1, 6, 1, 29, tzinfo=UTC))
    await reminders.process_due()
    assert port.directs == []
    assert await reminders.next_due() == datetime(2026, 1, 6, 1, 30, tzinfo=UTC)
    await clock.advance(60)
    for _ in range(3):  # passes, as often as the scheduler likes: still one message
        await reminders.process_due()
    [(user, view, key)] = port.directs
    assert (user.user, user.team, view.team) == (me.user, me.team, me.team)
    assert view.due == 1 and "1 review card(s) due" in view.text
    click = decode(view.button.token)
    assert click is not None and click.kind == "n"  # "Review now": the first due card
    card = await quiz.review_click(me, view.button.token)
    assert isinstance(card, ReviewView)
    # The idle person has nothing due: no message, and the day is done for them too.
    await clock.advance(3600)
    await reminders.process_due()
    assert len(port.directs) == 1

    # The next day: a card is due again (it was never reviewed), so one more message.
    await clock.advance(to=datetime(2026, 1, 7, 1, 30, tzinfo=UTC))
    await reminders.process_due()
    assert [k for _, _, k in port.directs] == [key, key.replace("2026-01-06", "2026-01-07")]


async def test_show_off_and_bad_input_get_daily_s_replies(quiz: Quiz) -> None:
    me = player(1)
    assert "no review reminder" in (await say(quiz, me, "remind")).text
    bad_time = await say(quiz, me, "remind 25:00 UTC")
    assert not bad_time.ok and bad_time.text == t("en", "daily_bad_time", value="25:00")
    bad_zone = await say(quiz, me, "remind 08:30 Mars/Olympus")
    assert not bad_zone.ok and bad_zone.text == t("en", "daily_bad_zone", value="Mars/Olympus")
    bad_days = await say(quiz, me, "remind 08:30 UTC someday")
    assert not bad_days.ok and bad_days.text == t("en", "daily_bad_days", value="someday")
    assert not (await say(quiz, me, "remind 08:30")).ok
    assert await quiz.store.reminders.of(me) is None  # nothing bad was kept

    set_ = await say(quiz, me, "remind 7.05 europe/berlin mon,wed")
    assert "07:05 (Europe/Berlin), Mon, Wed" in set_.text
    assert "07:05 (Europe/Berlin)" in (await say(quiz, me, "remind")).text
    assert (await say(quiz, me, "remind off")).text == t("en", "remind_off")
    assert "no review reminder" in (await say(quiz, me, "remind")).text
    assert (await say(quiz, me, "remind off")).text == t("en", "remind_none")


async def test_late_beyond_the_grace_is_skipped_and_a_changed_time_waits_for_its_minute(
    quiz: Quiz, bank: Bank, clock: FakeClock, port: RecordingPort
) -> None:
    me = player(1)
    await miss_one(quiz, bank, me)
    await say(quiz, me, "remind 10:00 UTC every day")
    # Nobody ran at Tuesday 10:00: a pass at 11:30 is past the hour's grace: nothing sent.
    await clock.advance(to=datetime(2026, 1, 6, 11, 30, tzinfo=UTC))
    await quiz.reminders.process_due()
    assert port.directs == []
    # Within the grace it is sent late (a restart at 10:40 on Wednesday).
    await clock.advance(to=datetime(2026, 1, 7, 10, 40, tzinfo=UTC))
    await quiz.reminders.process_due()
    assert len(port.directs) == 1


async def test_a_spring_forward_minute_comes_at_the_next_valid_one(
    quiz: Quiz, bank: Bank, clock: FakeClock, port: RecordingPort
) -> None:
    me = player(1)
    await clock.advance(to=datetime(2026, 3, 7, 12, 0, tzinfo=UTC))
    await miss_one(quiz, bank, me)
    await say(quiz, me, "remind 02:30 America/New_York every day")
    # 2026-03-08 02:30 doesn't exist in New York: clocks go from 02:00 EST to 03:00 EDT.
    await clock.advance(to=datetime(2026, 3, 8, 6, 59, tzinfo=UTC))  # 01:59 EST
    await quiz.reminders.process_due()
    assert port.directs == []
    await clock.advance(to=datetime(2026, 3, 8, 7, 0, tzinfo=UTC))  # 03:00 EDT
    await quiz.reminders.process_due()
    assert len(port.directs) == 1


async def test_a_claim_left_by_a_dead_process_is_sent_once_by_another(
    db: Store, bank: Bank, clock: FakeClock, make_quiz: Callable[..., Quiz]
) -> None:
    a, b = RecordingPort(), RecordingPort()
    first, second = make_quiz(db, a, seed=1), make_quiz(db, b, seed=2)
    me = player(1)
    await miss_one(first, bank, me)
    await say(first, me, "remind 10:00 UTC every day")
    await clock.advance(to=datetime(2026, 1, 6, 10, 0, tzinfo=UTC))
    reminder = await db.reminders.of(me)
    assert reminder is not None
    # A process claimed Tuesday's reminder and died before sending it.
    assert await db.reminders.claim(reminder.id, date(2026, 1, 6), "dead", clock.now(), "claimed")
    await first.reminders.process_due()
    await second.reminders.process_due()
    assert a.directs == b.directs == []  # within the lease: the holder may still be sending
    assert await second.reminders.next_due() == clock.now() + timedelta(minutes=2)
    await clock.advance(121)
    await second.reminders.process_due()
    await first.reminders.process_due()
    assert len(a.directs) + len(b.directs) == 1
    # Whoever took it over told the port an earlier try may have reached the platform.
    assert (a.direct_tried + b.direct_tried) == [datetime(2026, 1, 6, 10, 0, tzinfo=UTC)]
    [(_, _, key)] = a.directs + b.directs
    assert key == f"zq-remind:{reminder.id}:2026-01-06"


async def test_two_replicas_send_one_message(
    db: Store, bank: Bank, clock: FakeClock, make_quiz: Callable[..., Quiz]
) -> None:
    ports = [RecordingPort() for _ in range(2)]
    quizzes = [make_quiz(db, p, seed=n) for n, p in enumerate(ports)]
    people = [player(n) for n in range(1, 6)]
    for who in people:
        await miss_one(quizzes[0], bank, who)
        await say(quizzes[0], who, "remind 10:00 UTC every day")
    await clock.advance(to=datetime(2026, 1, 6, 10, 0, tzinfo=UTC))
    for _ in range(2):
        for quiz in quizzes:
            await quiz.reminders.process_due()
    sent = sorted(user.user for p in ports for user, _, _ in p.directs)
    assert sent == sorted(who.user for who in people)


async def test_the_team_cap_refuses_a_new_reminder_but_not_a_change(
    db: Store, bank: Bank, clock: FakeClock
) -> None:
    limits = Limits(team_reminders=2, person_burst=0, person_per_minute=0, team_burst=0,
                    team_per_minute=0)  # fmt: skip
    quiz = build_core(db, bank, clock, random.Random(1), limits=limits).quiz
    one, two, three = player(1), player(2), player(3)
    assert (await say(quiz, one, "remind 08:00 UTC")).ok
    assert (await say(quiz, two, "remind 08:00 UTC")).ok
    refused = await say(quiz, three, "remind 08:00 UTC")
    assert not refused.ok and "already has 2 review reminders" in refused.text
    assert await db.reminders.of(three) is None
    assert (await say(quiz, two, "remind 09:00 UTC")).ok  # a change is always allowed
    await say(quiz, one, "remind off")
    assert (await say(quiz, three, "remind 08:00 UTC")).ok  # room again


async def test_forgetting_a_person_deletes_their_reminder(quiz: Quiz, bank: Bank) -> None:
    me = player(1)
    await miss_one(quiz, bank, me)
    await say(quiz, me, "remind 08:00 UTC")
    assert await quiz.store.reminders.of(me) is not None
    await say(quiz, me, "forget me confirm")
    assert await quiz.store.reminders.of(me) is None


async def test_a_restarted_replica_takes_its_own_claim_back_at_once(
    db: Store, bank: Bank, clock: FakeClock
) -> None:
    def replica(name: str) -> tuple[Quiz, RecordingPort]:
        quiz = build_core(db, bank, clock, random.Random(1), holder=name).quiz
        port = RecordingPort()
        quiz.add_port(port)
        return quiz, port

    before, _ = replica("replica-a")
    me = player(1)
    await miss_one(before, bank, me)
    await say(before, me, "remind 10:00 UTC every day")
    await clock.advance(to=datetime(2026, 1, 6, 10, 0, tzinfo=UTC))
    reminder = await db.reminders.of(me)
    assert reminder is not None
    # replica-a claimed Tuesday's reminder and was killed before sending it.
    day = date(2026, 1, 6)
    assert await db.reminders.claim(reminder.id, day, "replica-a/1", clock.now(), "claimed")
    await clock.advance(5)
    other, other_port = replica("replica-b")
    await other.reminders.process_due()
    assert other_port.directs == []  # another replica's claim: it waits for the lease
    again, port = replica("replica-a")  # the same replica, restarted
    assert await again.reminders.next_due() == clock.now()
    await again.reminders.process_due()
    assert len(port.directs) == 1 and port.direct_tried == [clock.now() - timedelta(seconds=5)]
    await clock.advance(300)
    await other.reminders.process_due()
    assert other_port.directs == []


async def test_a_silent_replicas_claim_is_taken_over_15_s_after_its_last_beat(
    db: Store, bank: Bank, clock: FakeClock
) -> None:
    """bot/liveness.py: the holder beat at the claim and then died; another replica sends the
    reminder once it has been silent 15 s, not after the 2-minute lease."""
    quiz = build_core(db, bank, clock, random.Random(1), holder="replica-b").quiz
    port = RecordingPort()
    quiz.add_port(port)
    me = player(1)
    await miss_one(quiz, bank, me)
    await say(quiz, me, "remind 10:00 UTC every day")
    await clock.advance(to=datetime(2026, 1, 6, 10, 0, tzinfo=UTC))
    reminder = await db.reminders.of(me)
    assert reminder is not None
    await db.replicas.beat("replica-a", clock.now())
    assert await db.reminders.claim(
        reminder.id, date(2026, 1, 6), "replica-a/1", clock.now(), "claimed"
    )
    await clock.advance(10)
    await quiz.reminders.process_due()
    assert port.directs == []  # silent for 10 s: it may still be sending
    assert await quiz.reminders.next_due() == clock.now() + timedelta(seconds=5)
    await clock.advance(5)
    await quiz.reminders.process_due()
    assert len(port.directs) == 1
