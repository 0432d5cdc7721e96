"""Drill my misses: `/zeroquiz drill` asks exactly the person's missed questions (answered wrong,
not answered right since), most recently missed first, up to 10; one answered right leaves the
list, one answered wrong again stays; it updates review cards and never the leaderboards; an
old database's wrong round answers count as missed once it is upgraded. Both backends."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import asyncpg
from conftest import CHANNEL
from helpers import RecordingPort, player, right_choice
from pg_server import on_both_backends

from bot.bank import Bank
from bot.clock import FakeClock
from bot.commands import Context, dispatch, parse_text
from bot.drills import DRILL_MAX
from bot.model import TeamRef, UserRef
from bot.quiz import Quiz
from bot.storage import Store
from bot.storage.schema import SCHEMA, spelling
from bot.views import NoticeView, QuestionView, ReviewResult, ReviewView

pytestmark = on_both_backends


def ctx(user: UserRef) -> Context:
    async def no() -> bool:
        return False

    return Context(channel=CHANNEL, user=user, is_admin=no)


async def round_of(quiz: Quiz, bank: Bank, who: dict[UserRef, bool]) -> str:
    view = await quiz.rounds.start_round(CHANNEL)
    assert isinstance(view, QuestionView)
    right = right_choice(view, bank)
    for person, ok in who.items():
        await quiz.rounds.answer(
            view.round_id, person, right if ok else (right + 1) % len(view.options)
        )
    await quiz.close_round(view.round_id, "admin")
    return view.question_id


async def drill(quiz: Quiz, who: UserRef, text: str = "drill") -> ReviewView | NoticeView:
    reply = await dispatch(quiz, parse_text(text), ctx(who))
    assert isinstance(reply, ReviewView | NoticeView)
    return reply


def button(view: ReviewView, bank: Bank, *, right: bool) -> str:
    question = bank.get(view.question_id)
    assert question is not None
    key = question.options[question.answer].get(view.lang)
    index = [o.text for o in view.options].index(key)
    return view.buttons[index if right else (index + 1) % len(view.buttons)].token


async def test_a_drill_asks_exactly_the_misses_most_recent_first_and_they_leave_when_right(
    quiz: Quiz, bank: Bank, clock: FakeClock
) -> None:
    me, other = player(1), player(2)
    asked: list[tuple[str, bool]] = []
    for n in range(5):
        ok = n in (1, 3)  # rounds 0, 2 and 4 missed
        asked.append((await round_of(quiz, bank, {me: ok, other: not ok}), ok))
        await clock.advance(60)
    missed = [qid for qid, ok in reversed(asked) if not ok]
    board = await quiz.leaderboard(TeamRef("test", "T1"), "all", lang="en", user=me)

    shown = await drill(quiz, me)
    assert isinstance(shown, ReviewView) and shown.question_id == missed[0]
    assert "Missed question 1 of 3" in shown.due_line
    first = await quiz.review_click(me, button(shown, bank, right=True))
    assert isinstance(first, ReviewResult) and first.correct and first.rescheduled
    assert "2 more in this drill" in first.footer
    second_view = await quiz.review_click(me, first.buttons[0].token)  # Next
    assert isinstance(second_view, ReviewView) and second_view.question_id == missed[1]
    second = await quiz.review_click(me, button(second_view, bank, right=False))
    assert isinstance(second, ReviewResult) and not second.correct and second.mistake is not None
    third_view = await quiz.review_click(me, second.buttons[0].token)
    assert isinstance(third_view, ReviewView) and third_view.question_id == missed[2]
    third = await quiz.review_click(me, button(third_view, bank, right=True))
    assert isinstance(third, ReviewResult) and third.buttons == ()
    assert "2 more" not in third.footer and "1 missed question(s) left" in third.footer

    # What is left: the one answered wrong again, now the most recent miss.
    again = await drill(quiz, me)
    assert isinstance(again, ReviewView) and again.question_id == missed[1]
    assert "of 1" in again.due_line
    # The other player's misses are theirs; nothing counted for the leaderboards.
    theirs = await drill(quiz, other)
    assert isinstance(theirs, ReviewView) and theirs.question_id in {q for q, ok in asked if ok}
    assert await quiz.leaderboard(TeamRef("test", "T1"), "all", lang="en", user=me) == board


async def test_a_repeated_click_changes_nothing_and_nothing_missed_says_so(
    quiz: Quiz, bank: Bank
) -> None:
    me = player(1)
    qid = await round_of(quiz, bank, {me: False})
    shown = await drill(quiz, me)
    assert isinstance(shown, ReviewView) and shown.question_id == qid
    token = button(shown, bank, right=True)
    first = await quiz.review_click(me, token)
    assert isinstance(first, ReviewResult) and first.rescheduled
    due = await quiz.store.cards.due_at(me, qid)
    twice = await quiz.review_click(me, token)
    assert isinstance(twice, ReviewResult) and not twice.rescheduled
    assert await quiz.store.cards.due_at(me, qid) == due
    done = await drill(quiz, me)
    assert isinstance(done, NoticeView) and "Nothing missed" in done.text and "review" in done.text
    nobody = await drill(quiz, player(9))
    assert isinstance(nobody, NoticeView) and "Nothing missed" in nobody.text


async def test_at_most_ten_are_asked_and_a_filter_keeps_to_its_topic(
    quiz: Quiz, bank: Bank, clock: FakeClock
) -> None:
    me = player(1)
    for _ in range(DRILL_MAX + 2):
        await round_of(quiz, bank, {me: False})
        await clock.advance(10)
    shown: ReviewView | ReviewResult | NoticeView | None = await drill(quiz, me)
    count = 0
    while isinstance(shown, ReviewView):
        count += 1
        result = await quiz.review_click(me, button(shown, bank, right=False))
        assert isinstance(result, ReviewResult)
        if not result.buttons:
            break
        shown = await quiz.review_click(me, result.buttons[0].token)
    assert count == DRILL_MAX  # twelve missed, ten asked
    questions = [bank.get(q) for q, _, _ in await quiz.store.cards.missed(me)]
    topic = next(t for q in questions if q is not None for t in q.tags)
    only = await drill(quiz, me, f"drill {topic}")
    assert isinstance(only, ReviewView)
    asked = bank.get(only.question_id)
    assert asked is not None and topic in asked.tags


async def change(target: str, *statements: str) -> None:
    """Write to the database behind the Store's back, as an older release left it."""
    if target.startswith("postgresql://"):
        conn = await asyncpg.connect(target)
        try:
            for statement in statements:
                await conn.execute(statement)
        finally:
            await conn.close()
        return
    db = sqlite3.connect(target)
    try:
        with db:
            for statement in statements:
                db.execute(statement)
    finally:
        db.close()


async def test_an_upgraded_database_counts_its_wrong_round_answers_as_missed(
    db_target: str, bank: Bank, clock: FakeClock, make_quiz: Callable[..., Quiz]
) -> None:
    """Cards made before drills existed had no missed time: the upgrade step (17) marks the
    ones whose last change was a wrong answer in a round."""
    me = player(1)
    store = await Store.open(db_target)
    try:
        quiz = make_quiz(store, RecordingPort())
        wrong = await round_of(quiz, bank, {me: False})
        await clock.advance(60)
        await round_of(quiz, bank, {me: True})
    finally:
        await store.close()
    backfill = SCHEMA.steps[16].statements(spelling("sqlite"))[1]
    await change(db_target, "UPDATE cards SET missed_at = NULL", backfill)
    store = await Store.open(db_target)
    try:
        assert [q for q, _, _ in await store.cards.missed(me)] == [wrong]
    finally:
        await store.close()
