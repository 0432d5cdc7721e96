"""Review cards: every recorded answer reschedules the person's card for that question (FSRS),
and their stats show how many cards are due now and this week, by the injected clock."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from conftest import CHANNEL
from helpers import RecordingPort, player, right_choice
from hypothesis import given, settings
from hypothesis import strategies as st
from pg_server import on_both_backends

from bot.app import build_quiz
from bot.bank import Bank
from bot.clock import FakeClock
from bot.quiz import Quiz
from bot.review import fsrs_next_card, next_card
from bot.storage import Store
from bot.views import QuestionView

pytestmark = on_both_backends


async def open_round(quiz: Quiz) -> QuestionView:
    view = await quiz.rounds.start_round(CHANNEL)
    assert isinstance(view, QuestionView)
    return view


async def due(quiz: Quiz, n: int | str) -> tuple[int, int]:
    stats = await quiz.stats(player(n), lang="en")
    return stats.due_now, stats.due_week


async def test_an_answer_creates_a_card_due_later(quiz: Quiz, bank: Bank, clock: FakeClock) -> None:
    assert await due(quiz, 1) == (0, 0)
    view = await open_round(quiz)
    await quiz.rounds.answer(view.round_id, player(1), right_choice(view, bank))
    card_due = await quiz.store.cards.due_at(player(1), view.question_id)
    assert card_due is not None and card_due > clock.now()
    assert await due(quiz, 1) == (0, 1)  # not yet, but within the week
    assert await due(quiz, 2) == (0, 0)  # someone else's cards are their own
    await clock.advance(to=card_due)
    assert await due(quiz, 1) == (1, 1)
    stats = await quiz.stats(player(1), lang="en")
    assert ("Review cards due now", "1") in stats.lines
    assert ("Kartu ulasan jatuh tempo minggu ini", "1") in (
        await quiz.stats(player(1), lang="id")
    ).lines


async def test_a_wrong_answer_is_due_sooner_than_a_right_one(
    quiz: Quiz, bank: Bank, clock: FakeClock
) -> None:
    view = await open_round(quiz)
    right = right_choice(view, bank)
    await quiz.rounds.answer(view.round_id, player("r"), right)
    await quiz.rounds.answer(view.round_id, player("w"), (right + 1) % len(view.options))
    right_due = await quiz.store.cards.due_at(player("r"), view.question_id)
    wrong_due = await quiz.store.cards.due_at(player("w"), view.question_id)
    assert right_due is not None and wrong_due is not None
    assert clock.now() < wrong_due < right_due
    await clock.advance(to=wrong_due)
    assert (await due(quiz, "w"))[0] == 1 and (await due(quiz, "r"))[0] == 0


async def test_only_the_first_answer_in_a_round_counts(
    quiz: Quiz, bank: Bank, clock: FakeClock
) -> None:
    view = await open_round(quiz)
    right = right_choice(view, bank)
    await quiz.rounds.answer(view.round_id, player(1), right)
    first = await quiz.store.cards.due_at(player(1), view.question_id)
    await clock.advance(60)
    again = await quiz.rounds.answer(view.round_id, player(1), (right + 1) % len(view.options))
    assert again.status == "already"
    assert await quiz.store.cards.due_at(player(1), view.question_id) == first


async def test_repeated_right_answers_push_the_due_date_out(
    db: Store, bank: Bank, clock: FakeClock
) -> None:
    one = Bank([bank.questions[0]])  # every round asks the same question
    quiz = build_quiz(db, one, clock, random.Random(3))
    quiz.add_port(RecordingPort())
    gaps: list[timedelta] = []
    for _ in range(4):
        view = await open_round(quiz)
        await quiz.rounds.answer(view.round_id, player(1), right_choice(view, one))
        card_due = await quiz.store.cards.due_at(player(1), view.question_id)
        assert card_due is not None
        gaps.append(card_due - clock.now())
        await quiz.close_round(view.round_id, "admin")
        await clock.advance(to=card_due)
    assert gaps == sorted(gaps) and gaps[-1] > gaps[0] and gaps[-1] >= timedelta(days=1)
    # A miss brings it back soon.
    view = await open_round(quiz)
    wrong = (right_choice(view, one) + 1) % len(view.options)
    await quiz.rounds.answer(view.round_id, player(1), wrong)
    card_due = await quiz.store.cards.due_at(player(1), view.question_id)
    assert card_due is not None and card_due - clock.now() < gaps[-1]


async def test_run_answers_reschedule_cards(quiz: Quiz, bank: Bank) -> None:
    view = await quiz.runs.start(CHANNEL, 3)
    assert isinstance(view, QuestionView)
    await quiz.rounds.answer(view.round_id, player(1), 0)
    assert await quiz.store.cards.due_at(player(1), view.question_id) is not None
    assert (await due(quiz, 1))[1] == 1


async def test_cards_survive_a_restart(
    db_target: str, bank: Bank, clock: FakeClock, make_quiz: Callable[..., Quiz]
) -> None:
    store = await Store.open(db_target)
    quiz = make_quiz(store, RecordingPort())
    view = await open_round(quiz)
    await quiz.rounds.answer(view.round_id, player(1), right_choice(view, bank))
    before = await store.cards.due_at(player(1), view.question_id)
    await store.close()
    store = await Store.open(db_target)
    try:
        quiz = make_quiz(store, RecordingPort())
        assert await store.cards.due_at(player(1), view.question_id) == before
        assert await due(quiz, 1) == (0, 1)
        view2 = await open_round(quiz)  # another question: a second card, the first one kept
        await quiz.rounds.answer(view2.round_id, player(1), 0)
        assert await due(quiz, 1) == (0, 2)
    finally:
        await store.close()


@settings(max_examples=300, deadline=None)
@given(
    at=st.datetimes(
        min_value=datetime(2000, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)
    ),
    correct=st.booleans(),
)
def test_a_first_review_is_exactly_what_fsrs_gives(at: datetime, correct: bool) -> None:
    assert next_card(None, correct, at) == fsrs_next_card(None, correct, at)
