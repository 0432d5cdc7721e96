"""Team controls against the real database, on both backends: `forget` deletes one person's
answers, cards, totals and name (read back from the database itself) and nothing of anyone
else's, a reveal already posted is never touched, and the person (even clicking through another
replica that still remembers their old id) starts afresh; a season starts every leaderboard
afresh and keeps the totals from before; the window and the audit log."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta

from conftest import CHANNEL
from helpers import RecordingPort, player, right_choice
from pg_server import look, on_both_backends

from bot.app import build_quiz
from bot.bank import Bank
from bot.clock import FakeClock
from bot.commands import Context, dispatch, parse_text
from bot.model import TeamRef, UserRef
from bot.quiz import Quiz
from bot.storage import Store
from bot.views import PERIODS, NoticeView, QuestionView

pytestmark = on_both_backends

ADA, BOB = player("ada"), player("bob")
TEAM = TeamRef(CHANNEL.platform, CHANNEL.team)


async def yes() -> bool:
    return True


async def no() -> bool:
    return False


async def say(quiz: Quiz, text: str, user: UserRef = ADA, admin: bool = True) -> NoticeView:
    reply = await dispatch(quiz, parse_text(text), Context(CHANNEL, user, yes if admin else no))
    assert isinstance(reply, NoticeView), reply
    return reply


async def posted(quiz: Quiz, port: RecordingPort) -> QuestionView:
    assert (await say(quiz, "question")).ok
    return port.posted[-1][1]


async def held(target: str, user: str) -> dict[str, int]:
    """Rows of `user` in each table, read on a connection of its own."""
    player_of = "SELECT id FROM players WHERE platform_user = $1"
    counts: dict[str, int] = {}
    for table in ("answers", "cards", "score_totals"):
        [(n,)] = await look(
            target, f"SELECT COUNT(*) FROM {table} WHERE player_id IN ({player_of})", user
        )
        counts[table] = int(str(n))
    [(n,)] = await look(target, "SELECT COUNT(*) FROM players WHERE platform_user = $1", user)
    counts["players"] = int(str(n))
    return counts


async def test_forget_deletes_one_persons_rows_and_keeps_everyone_elses(
    quiz: Quiz, port: RecordingPort, bank: Bank, clock: FakeClock, db_target: str
) -> None:
    view = await posted(quiz, port)
    for who in (ADA, BOB):
        await quiz.rounds.answer(view.round_id, who, right_choice(view, bank))
    await quiz.close_round(view.round_id, "deadline")
    [(_, reveal)] = port.reveals
    assert reveal.total == 2
    await quiz.rename_players([ADA, BOB])
    before = await held(db_target, BOB.user)
    assert before == {"answers": 1, "cards": 1, "score_totals": 3, "players": 1}

    refused = await say(quiz, f"forget <@{BOB.user}> confirm", ADA, admin=False)
    assert not refused.ok and "Only admins" in refused.text
    asked = await say(quiz, f"forget <@{BOB.user}|bob>", ADA)
    assert "1 answers, 1 review cards" in asked.text and "confirm" in asked.text
    assert await held(db_target, BOB.user) == before  # nothing yet: it asks first

    done = await say(quiz, f"forget <@{BOB.user}|bob> confirm", ADA)
    assert done.ok and "deleted" in done.text
    assert await held(db_target, BOB.user) == {
        "answers": 0, "cards": 0, "score_totals": 0, "players": 0
    }  # fmt: skip
    assert (await held(db_target, ADA.user))["answers"] == 1  # Ada's are untouched
    names = await look(db_target, "SELECT display_name FROM players")
    assert names == [(ADA.display_name,)]  # Bob's name is gone
    assert len(port.reveals) == 1 and port.updates == []  # the posted reveal is not edited
    board = await quiz.leaderboard(TEAM, "all", lang="en", user=BOB)
    assert [row.user for row in board.rows] == [ADA.user] and board.me is None
    again = await say(quiz, f"forget <@{BOB.user}> confirm", ADA)
    assert not again.ok and again.text == "Nothing is stored for that person in this team."

    # Bob plays again: a new player, counted afresh.
    await clock.advance(60)
    second = await posted(quiz, port)
    feedback = await quiz.rounds.answer(second.round_id, BOB, right_choice(second, bank))
    assert feedback.status == "correct"
    stats = await quiz.stats(BOB, lang="en")
    assert stats.answered == 1


async def test_forget_me_needs_no_admin_and_a_replica_that_remembers_the_old_id_records_afresh(
    quiz: Quiz, port: RecordingPort, bank: Bank, db: Store, db_target: str, clock: FakeClock
) -> None:
    other_store = await Store.open(db_target)  # a second replica on the same database
    try:
        other = build_quiz(other_store, bank, clock, random.Random(3))
        other.add_port(RecordingPort())
        view = await posted(quiz, port)
        # The other replica records Bob's first answer: it now holds his player id in memory.
        assert (await other.rounds.answer(view.round_id, BOB, 0)).recorded

        asked = await say(quiz, "forget me", BOB, admin=False)
        assert asked.ok and "your 1 answers" in asked.text
        done = await say(quiz, "forget me confirm", BOB, admin=False)
        assert done.ok and "your 1 answers" in done.text
        assert (await held(db_target, BOB.user))["players"] == 0

        # His next click reaches the other replica, whose remembered id no longer exists.
        later = await posted(quiz, port)
        feedback = await other.rounds.answer(later.round_id, BOB, right_choice(later, bank))
        assert feedback.status == "correct"  # recorded, as a new player, not refused
        assert await held(db_target, BOB.user) == {
            "answers": 1, "cards": 1, "score_totals": 3, "players": 1
        }  # fmt: skip
        # Nobody but themselves: forgetting yourself is not an admin action in the log.
        entries, total = await db.audit.recent(TEAM, limit=10)
        assert total == 0 and entries == []
    finally:
        await other_store.close()


async def test_a_new_season_starts_every_board_afresh_and_keeps_the_old_totals(
    quiz: Quiz, port: RecordingPort, bank: Bank, clock: FakeClock, db_target: str
) -> None:
    view = await posted(quiz, port)
    await quiz.rounds.answer(view.round_id, ADA, right_choice(view, bank))
    await quiz.close_round(view.round_id, "deadline")
    assert (await say(quiz, "season")).text.startswith("No season has been started")

    await clock.advance(60)
    started = await say(quiz, "season new")
    assert started.ok and "A new season began today" in started.text
    for period in PERIODS:
        board = await quiz.leaderboard(TEAM, period, lang="en", user=ADA)
        assert board.rows == () and board.me is None, period
        assert "season since " + clock.now().strftime("%Y-%m-%d") in board.title

    await clock.advance(60)
    second = await posted(quiz, port)
    await quiz.rounds.answer(second.round_id, BOB, right_choice(second, bank))
    for period in PERIODS:
        board = await quiz.leaderboard(TEAM, period, lang="en", user=ADA)
        assert [(r.user, r.points) for r in board.rows] == [(BOB.user, 10)], period
    # History kept: Ada's totals from before the season are still stored, and her answer.
    rows = await look(
        db_target,
        """SELECT s.period, s.points FROM score_totals s JOIN players p ON p.id = s.player_id
           WHERE p.platform_user = $1 ORDER BY s.period""",
        ADA.user,
    )
    assert sorted(rows) == [("all", 10), ("month", 10), ("week", 10)]
    assert (await quiz.stats(ADA, lang="en")).answered == 1
    shown = await say(quiz, "season")
    assert shown.text.startswith("The current season began on")

    # A new time zone recounts the week and month from the answers: still from the season on.
    await quiz.store.teams.set_team_tz(TEAM, "Asia/Jakarta", quiz.clock.now())
    for period in PERIODS:
        board = await quiz.leaderboard(TEAM, period, lang="en", user=ADA)
        assert [(r.user, r.points) for r in board.rows] == [(BOB.user, 10)], period


async def test_the_window_is_per_channel_bounded_and_used_by_questions_runs_and_daily(
    quiz: Quiz, port: RecordingPort, make_quiz: Callable[..., Quiz], db: Store
) -> None:
    assert "10 min (the default)" in (await say(quiz, "window")).text
    for bad in ("0m", "25h", "soon", "30m 2h", "90s"):
        refused = await say(quiz, f"window {bad}")
        assert not refused.ok and "is not an answer window" in refused.text, bad
    assert "10 min (the default)" in (await say(quiz, "window")).text  # nothing changed
    refused = await say(quiz, "window 30m", BOB, admin=False)
    assert refused.text == "Only admins can do that."

    assert (await say(quiz, "window 1h30m")).ok
    assert "1 h 30 min (set by an admin)" in (await say(quiz, "window")).text
    view = await posted(quiz, port)
    assert view.closes_at - view.opened_at == timedelta(minutes=90)
    await quiz.close_round(view.round_id, "admin")
    assert (await say(quiz, "start 2")).ok
    run = port.posted[-1][1]
    assert run.closes_at - run.opened_at == timedelta(minutes=90)
    await quiz.runs.abandon(CHANNEL)

    daily_quiz = make_quiz(db, port, daily=True)
    assert (await say(daily_quiz, "daily 09:00 UTC")).ok
    assert "open for 1.5 h" in (await say(daily_quiz, "daily")).text
    assert (await say(daily_quiz, "daily 09:00 UTC 2h")).ok  # its own window wins
    assert "open for 2 h" in (await say(daily_quiz, "daily")).text

    assert "back to the default window: 10 min" in (await say(quiz, "window default")).text
    fresh = await posted(quiz, port)
    assert fresh.closes_at - fresh.opened_at == timedelta(minutes=10)


async def test_the_audit_log_keeps_admin_actions_newest_first_in_pages(
    quiz: Quiz, port: RecordingPort
) -> None:
    assert (await say(quiz, "audit")).text == "No admin action has been taken in this team yet."
    assert (await say(quiz, "window")).ok  # shows only: not logged
    for n in range(1, 13):
        assert (await say(quiz, f"window {n}m")).ok
    await say(quiz, "window nonsense")  # refused: not logged
    assert (await say(quiz, "lang id")).ok
    assert (await say(quiz, "lang en")).ok
    refused = await say(quiz, "audit", BOB, admin=False)
    assert refused.text == "Only admins can do that."

    first = await say(quiz, "audit")
    assert first.title == "ZeroQuiz · Admin actions"
    assert "page 1 of 2 (14 in all)" in first.text and "`/zeroquiz audit 2`" in first.text
    assert len(first.lines) == 10
    assert first.lines[0].endswith("/zeroquiz lang en") and "Player ada (Uada)" in first.lines[0]
    assert first.lines[2].endswith("/zeroquiz window 12m")
    second = await say(quiz, "audit 2")
    assert [line.rsplit(" ", 1)[-1] for line in second.lines] == ["4m", "3m", "2m", "1m"]
    assert "older" not in second.text.lower()
    assert not (await say(quiz, "audit 3")).ok
    assert all(len(line) <= 200 for line in first.lines + second.lines)
