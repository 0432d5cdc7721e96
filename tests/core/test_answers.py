"""Answers: first one is final, enforced by the database under concurrency."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from conftest import CHANNEL
from helpers import RecordingPort, player, right_choice
from pg_server import on_both_backends

from bot.bank import Bank
from bot.clock import FakeClock
from bot.model import UserRef
from bot.quiz import Quiz
from bot.storage import Store

pytestmark = on_both_backends


async def answer_rows(store: Store, round_id: int) -> int:
    return await store.rounds.total_answers(round_id)


async def test_first_answer_is_final_and_explained(quiz: Quiz, bank: Bank) -> None:
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None
    question = bank.get(view.question_id)
    assert question is not None
    first = await quiz.rounds.answer(view.round_id, player(1), 0)
    assert first.status in ("correct", "wrong")
    assert first.explanation == question.explanation.en
    assert first.correct_letter is not None
    again = await quiz.rounds.answer(view.round_id, player(1), 1)
    assert again.status == "already"
    assert again.chosen_letter == "A"
    assert "already answered A" in again.headline
    assert await answer_rows(quiz.store, view.round_id) == 1


async def test_correct_letter_follows_the_round_shuffle(quiz: Quiz, bank: Bank) -> None:
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None
    right_index = right_choice(view, bank)
    fb = await quiz.rounds.answer(view.round_id, player("r"), right_index)
    assert fb.status == "correct" and fb.points == 10
    wrong_index = (right_index + 1) % len(view.options)
    fb2 = await quiz.rounds.answer(view.round_id, player("w"), wrong_index)
    assert fb2.status == "wrong" and fb2.points == 0
    assert fb2.correct_letter == view.options[right_index].letter


async def test_200_users_concurrently_record_200_answers(quiz: Quiz) -> None:
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None
    results = await asyncio.gather(
        *(quiz.rounds.answer(view.round_id, player(i), i % 4) for i in range(200))
    )
    assert all(r.recorded for r in results)
    assert await answer_rows(quiz.store, view.round_id) == 200


async def test_same_user_twenty_concurrent_clicks_record_one(quiz: Quiz) -> None:
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None
    results = await asyncio.gather(
        *(quiz.rounds.answer(view.round_id, player(1), i % 4) for i in range(20))
    )
    assert sum(r.recorded for r in results) == 1
    assert sum(r.status == "already" for r in results) == 19
    assert await answer_rows(quiz.store, view.round_id) == 1


async def test_two_processes_worth_of_connections_cannot_double_count(
    db_target: str, make_quiz: Callable[..., Quiz], port: RecordingPort
) -> None:
    """Two Quiz instances with their own connections to one file, as two running bots would."""
    db_a = await Store.open(db_target)
    db_b = await Store.open(db_target)
    try:
        quiz_a, quiz_b = make_quiz(db_a, port), make_quiz(db_b, port)
        view = await quiz_a.rounds.start_round(CHANNEL)
        assert view is not None
        clicks = [
            (quiz_a if i % 2 else quiz_b).rounds.answer(view.round_id, player(i // 2), 0)
            for i in range(100)
        ]
        results = await asyncio.gather(*clicks)
        assert sum(r.recorded for r in results) == 50
        assert await answer_rows(db_a, view.round_id) == 50
    finally:
        await db_a.close()
        await db_b.close()


async def test_answers_after_close_record_nothing(quiz: Quiz, port: RecordingPort) -> None:
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None
    await quiz.rounds.answer(view.round_id, player(1), 0)
    assert await quiz.close_round(view.round_id, "admin") is not None
    late = await asyncio.gather(
        *(quiz.rounds.answer(view.round_id, player(i), 1) for i in range(2, 30))
    )
    assert {r.status for r in late} == {"closed"}
    assert "closed" in late[0].headline
    assert await answer_rows(quiz.store, view.round_id) == 1
    # An earlier answerer clicking again after close is told they already answered.
    assert (await quiz.rounds.answer(view.round_id, player(1), 2)).status == "already"


async def test_answer_after_deadline_but_before_close_is_refused(
    quiz: Quiz, clock: FakeClock
) -> None:
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None
    await clock.advance(to=view.closes_at)
    assert (await quiz.rounds.answer(view.round_id, player(1), 0)).status == "closed"
    assert await answer_rows(quiz.store, view.round_id) == 0


async def test_unknown_round_and_bad_option(quiz: Quiz) -> None:
    assert (await quiz.rounds.answer(9999, player(1), 0)).status == "unknown"
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None
    assert (await quiz.rounds.answer(view.round_id, player(1), 7)).status == "unknown"
    assert await answer_rows(quiz.store, view.round_id) == 0


async def test_returning_players_are_held_to_the_same_rules(quiz: Quiz) -> None:
    """A known player's click takes the one-statement path; the database still decides."""
    first = await quiz.rounds.start_round(CHANNEL)
    assert first is not None
    await quiz.rounds.answer(first.round_id, player(1), 0)  # now a known player
    second = await quiz.rounds.start_round(CHANNEL)
    assert second is not None
    clicks = await asyncio.gather(
        *(quiz.rounds.answer(second.round_id, player(1), i % 4) for i in range(20))
    )
    assert sum(c.recorded for c in clicks) == 1
    assert await answer_rows(quiz.store, second.round_id) == 1
    third = await quiz.rounds.start_round(CHANNEL)
    assert third is not None
    await quiz.close_round(third.round_id, "admin")
    assert (await quiz.rounds.answer(third.round_id, player(1), 0)).status == "closed"
    assert await answer_rows(quiz.store, third.round_id) == 0


async def test_a_click_from_another_team_or_platform_changes_nothing(
    quiz: Quiz, bank: Bank
) -> None:
    """Team B's round can't be answered by a request for team A, even naming its round id."""
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None
    right = right_choice(view, bank)
    for stranger in (
        UserRef("test", "T2", "U1", "Forger"),  # another workspace
        UserRef("other", "T1", "U1", "Forger"),  # another platform, same team id
    ):
        feedback = await quiz.rounds.answer(view.round_id, stranger, right)
        assert feedback.status == "unknown" and not feedback.recorded
    assert await answer_rows(quiz.store, view.round_id) == 0
    assert (await quiz.rounds.answer(view.round_id, player(1), right)).status == "correct"
    assert await answer_rows(quiz.store, view.round_id) == 1
