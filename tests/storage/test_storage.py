"""The storage contract the core relies on: re-entrant transactions, reads beside writes,
group commit with the database deciding each answer, and durable commits. Every test runs on
both backends: a SQLite file, and a real PostgreSQL server the suite starts itself."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from conftest import CHANNEL
from pg_server import look, on_both_backends

from bot.clock import FakeClock
from bot.model import UserRef
from bot.quiz import Quiz
from bot.storage import AnswerRequest, Store
from bot.storage.answers import AnswerTable

pytestmark = on_both_backends


async def test_transactions_are_reentrant(quiz: Quiz, db: Store) -> None:
    async with db.transaction():
        await quiz.set_channel_lang(CHANNEL, "id")
        # Inside the open transaction a read sees its writes and does not wait for the lock.
        assert await asyncio.wait_for(quiz.channel_lang(CHANNEL), 2) == "id"
    assert await quiz.channel_lang(CHANNEL) == "id"


async def test_a_failure_rolls_back_everything_the_outer_transaction_did(
    quiz: Quiz, db: Store, db_target: str
) -> None:
    with pytest.raises(RuntimeError):
        async with db.transaction():
            await quiz.set_channel_lang(CHANNEL, "id")
            async with db.transaction():  # joins the outer one
                await db.teams.channel_id(CHANNEL)
            raise RuntimeError("boom")
    assert await quiz.channel_lang(CHANNEL) == "en"
    assert await look(db_target, "SELECT COUNT(*) FROM channels") == [(0,)]


async def test_reads_do_not_wait_for_an_open_write(quiz: Quiz, db: Store) -> None:
    await quiz.set_channel_lang(CHANNEL, "id")
    holding = asyncio.Event()
    release = asyncio.Event()

    async def long_write() -> None:
        async with db.transaction():
            await db.teams.set_channel_lang(CHANNEL, "en")
            holding.set()
            await release.wait()

    writer = asyncio.create_task(long_write())
    await holding.wait()
    # Another task reads the last committed state at once, on a reader connection.
    assert await asyncio.wait_for(quiz.channel_lang(CHANNEL), 2) == "id"
    release.set()
    await writer
    assert await quiz.channel_lang(CHANNEL) == "en"


async def test_answers_arriving_together_share_commits_and_each_is_decided(
    quiz: Quiz, db: Store, db_target: str
) -> None:
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None
    before = db.answers.batches
    people = [UserRef("test", "T1", f"U{n}", f"P{n}") for n in range(300)]
    clicks = [quiz.rounds.answer(view.round_id, p, n % 3) for n, p in enumerate(people)]
    clicks += [quiz.rounds.answer(view.round_id, people[0], 2)]  # a double click in the same burst
    results = await asyncio.gather(*clicks)
    assert sum(r.recorded for r in results) == 300
    assert results[-1].status == "already"
    assert results[-1].chosen_letter == results[0].chosen_letter  # the first click counted
    commits = db.answers.batches - before
    assert 1 <= commits <= 10, commits  # 301 clicks, a handful of transactions
    assert await look(db_target, "SELECT COUNT(*) FROM answers") == [(300,)]


async def test_an_answer_after_the_close_is_refused_by_the_database(
    quiz: Quiz, db: Store, clock: FakeClock, db_target: str
) -> None:
    view = await quiz.rounds.start_round(CHANNEL, window=timedelta(minutes=1))
    assert view is not None
    row = await db.rounds.get(view.round_id)
    assert row is not None
    request = AnswerRequest(
        round_id=row.id,
        team_id=row.team_id,
        user="U1",
        name="",
        option=0,
        correct=False,
        points=0,
        at=clock.now() + timedelta(minutes=2),  # clicked after the deadline
    )
    assert (await db.answers.record(request, None)).status == "closed"
    await quiz.close_round(view.round_id, "admin")
    late = await quiz.rounds.answer(view.round_id, UserRef("test", "T1", "U2"), 0)
    assert late.status == "closed"
    assert await look(db_target, "SELECT COUNT(*) FROM answers") == [(0,)]


async def test_a_provisional_name_never_replaces_a_known_one(
    quiz: Quiz, db: Store, db_target: str
) -> None:
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None
    await quiz.rounds.answer(
        view.round_id, UserRef("test", "T1", "U1", "ada", provisional_name=True), 0
    )
    await quiz.rename_players([UserRef("test", "T1", "U1", "Ada Lovelace")])
    other = await quiz.rounds.start_round(CHANNEL)
    assert other is not None
    await quiz.rounds.answer(
        other.round_id, UserRef("test", "T1", "U1", "ada", provisional_name=True), 0
    )
    assert await look(db_target, "SELECT display_name FROM players") == [("Ada Lovelace",)]


async def test_a_committed_answer_is_in_the_file_before_answer_returns(
    quiz: Quiz, db_target: str
) -> None:
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None
    feedback = await quiz.rounds.answer(view.round_id, UserRef("test", "T1", "U1"), 0)
    assert feedback.recorded
    # A separate connection (another process would see the same) finds it at once.
    assert await look(db_target, "SELECT COUNT(*) FROM answers") == [(1,)]


async def test_recording_inside_a_transaction_fails_fast_instead_of_hanging(
    quiz: Quiz, db: Store
) -> None:
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None
    with pytest.raises(RuntimeError, match="outside transactions"):
        async with db.transaction():
            await asyncio.wait_for(
                quiz.rounds.answer(view.round_id, UserRef("test", "T1", "U1"), 0), 2
            )


async def test_the_player_cache_stays_bounded_however_many_people_answer(
    quiz: Quiz, db: Store, clock: FakeClock, db_target: str
) -> None:
    """Each click a new person: the ids remembered for the next answers stop at the bound, and
    people dropped from it, or never in it, are still recorded as the same players."""
    answers = AnswerTable(db._engine, player_cache=50)
    people = [f"U{n}" for n in range(500)]

    async def burst(users: list[str]) -> list[str]:
        view = await quiz.rounds.start_round(CHANNEL)
        assert view is not None
        row = await db.rounds.get(view.round_id)
        assert row is not None
        requests = [
            AnswerRequest(row.id, row.team_id, user, f"Name {user}", 0, False, 0, clock.now())
            for user in users
        ]
        outcomes = await asyncio.gather(*(answers.record(r, None) for r in requests))
        await quiz.close_round(view.round_id, "admin")
        return [o.status for o in outcomes]

    for start in range(0, len(people), 100):
        assert await burst(people[start : start + 100]) == ["recorded"] * 100
        assert answers.cached_players == min(start + 100, 50)
    # The first 450 were dropped from the cache, the last 50 kept: all answer again as themselves.
    assert await burst(people[:10] + people[-10:]) == ["recorded"] * 20
    assert answers.cached_players == 50
    assert await look(db_target, "SELECT COUNT(*) FROM players") == [(500,)]
    assert await look(db_target, "SELECT COUNT(*) FROM answers") == [(520,)]
