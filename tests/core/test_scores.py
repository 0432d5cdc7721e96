"""Leaderboards by period in the team's time zone, tie-breaks, and personal stats."""

from __future__ import annotations

from datetime import UTC, datetime

from conftest import CHANNEL
from helpers import player, right_choice

from bot.bank import Bank
from bot.clock import FakeClock
from bot.model import TeamRef
from bot.quiz import Quiz

TEAM = TeamRef("test", "T1")


async def play_round(quiz: Quiz, bank: Bank, answers: dict[int, bool]) -> None:
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None
    ok = right_choice(view, bank)
    for n, correct in answers.items():
        await quiz.rounds.answer(
            view.round_id, player(n), ok if correct else (ok + 1) % len(view.options)
        )
    await quiz.close_round(view.round_id, "admin")


async def test_leaderboard_periods_follow_team_time_zone(
    quiz: Quiz, clock: FakeClock, bank: Bank
) -> None:
    await quiz.store.teams.set_team_tz(
        TEAM, "Asia/Jakarta", quiz.clock.now()
    )  # UTC+7, weeks start Monday 00:00 local
    # Sunday 2026-03-01 16:30 UTC = Sunday 23:30 in Jakarta: the week before, same month.
    await clock.advance(to=datetime(2026, 3, 1, 16, 30, tzinfo=UTC))
    await play_round(quiz, bank, {1: True})
    # Sunday 17:30 UTC = Monday 00:30 in Jakarta: this week
    await clock.advance(to=datetime(2026, 3, 1, 17, 30, tzinfo=UTC))
    await play_round(quiz, bank, {2: True, 1: False})
    week = await quiz.leaderboard(TEAM, "week", lang="en", user=player(1))
    assert [(r.name, r.points) for r in week.rows] == [("Player 2", 10), ("Player 1", 0)]
    assert week.me is not None and week.me.rank == 2
    month = await quiz.leaderboard(TEAM, "month", lang="en")
    assert [(r.name, r.points, r.answered) for r in month.rows] == [
        ("Player 2", 10, 1),
        ("Player 1", 10, 2),
    ]  # same points: fewer answers (better accuracy) ranks first
    everything = await quiz.leaderboard(TEAM, "all", lang="en", user=player(9))
    assert everything.me is None and everything.me_line == "You have no score for all time yet."
    assert everything.lines[0] == "1. Player 2 · 10 pts · 1 right"


async def test_month_boundary_in_local_time(quiz: Quiz, clock: FakeClock, bank: Bank) -> None:
    await quiz.store.teams.set_team_tz(TEAM, "America/New_York", quiz.clock.now())
    # 2026-04-01 03:00 UTC is still March 31 in New York.
    await clock.advance(to=datetime(2026, 4, 1, 3, 0, tzinfo=UTC))
    await play_round(quiz, bank, {1: True})
    await clock.advance(to=datetime(2026, 4, 1, 5, 0, tzinfo=UTC))  # April 1, 01:00 in New York
    month = await quiz.leaderboard(TEAM, "month", lang="en")
    assert month.rows == ()
    assert month.empty_text == "No scores yet for this month."


async def test_ties_are_broken_by_who_got_there_first(
    quiz: Quiz, clock: FakeClock, bank: Bank
) -> None:
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None
    ok = right_choice(view, bank)
    await quiz.rounds.answer(view.round_id, player(3), ok)
    await clock.advance(1)
    await quiz.rounds.answer(view.round_id, player(1), ok)
    board = await quiz.leaderboard(TEAM, "all", lang="en")
    assert [r.name for r in board.rows] == ["Player 3", "Player 1"]
    assert [r.rank for r in board.rows] == [1, 2]


async def test_leaderboard_top_n_and_own_rank(quiz: Quiz, bank: Bank) -> None:
    await play_round(quiz, bank, {n: n % 3 != 0 for n in range(15)})
    board = await quiz.leaderboard(TEAM, "all", lang="en", user=player(0), limit=5)
    assert len(board.rows) == 5
    assert board.me is not None and board.me.rank > 5 and board.me.points == 0


async def test_stats_count_accuracy_and_streaks(quiz: Quiz, bank: Bank) -> None:
    for correct in (True, True, True, False, True, True):
        await play_round(quiz, bank, {1: correct})
    stats = await quiz.stats(player(1), lang="en")
    assert (stats.answered, stats.correct, stats.points) == (6, 5, 50)
    assert (stats.current_streak, stats.best_streak) == (2, 3)
    assert round(stats.accuracy, 3) == round(5 / 6, 3)
    assert ("Accuracy", "83%") in stats.lines
    empty = await quiz.stats(player(99), lang="id")
    assert empty.answered == 0 and empty.lines[0] == ("Dijawab", "0")
