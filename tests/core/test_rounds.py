"""Closing, reveals, runs, and question choice."""

from __future__ import annotations

from datetime import timedelta

from conftest import CHANNEL
from helpers import RecordingPort, player, right_choice

from bot.bank import Bank
from bot.clock import FakeClock
from bot.model import ChannelRef
from bot.quiz import Quiz
from bot.shuffle import permutation
from bot.views import NoticeView, QuestionView


async def test_reveal_shows_answer_spread_and_fastest(
    quiz: Quiz, port: RecordingPort, clock: FakeClock, bank: Bank
) -> None:
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None and port.posted[0][1] == view
    ok = right_choice(view, bank)
    wrong = (ok + 1) % len(view.options)
    await clock.advance(3)
    await quiz.rounds.answer(view.round_id, player(1), wrong)
    await clock.advance(2)
    await quiz.rounds.answer(view.round_id, player(2), ok)  # first correct, 5 s after opening
    await clock.advance(4)
    await quiz.rounds.answer(view.round_id, player(3), ok)
    reveal = await quiz.close_round(view.round_id, "admin")
    assert reveal is not None
    assert port.reveals == [(f"msg-{view.round_id}", reveal)]
    assert reveal.total == 3 and reveal.right == 2
    assert reveal.correct_letter == view.options[ok].letter
    assert [r.count for r in reveal.spread if r.correct] == [2]
    assert sum(r.count for r in reveal.spread) == 3
    assert abs(sum(r.share for r in reveal.spread) - 1.0) < 1e-9
    assert reveal.fastest is not None and "Player 2" in reveal.fastest and "5.0" in reveal.fastest
    question = bank.get(view.question_id)
    assert question is not None
    assert reveal.explanation == question.explanation.en
    assert "2 of 3" in reveal.summary
    # Closing again does nothing and reveals nothing more.
    assert await quiz.close_round(view.round_id, "deadline") is None
    assert len(port.reveals) == 1


async def test_option_order_is_shuffled_per_round_from_stored_seed(quiz: Quiz, bank: Bank) -> None:
    positions = set()
    for _ in range(12):
        view = await quiz.rounds.start_round(CHANNEL)
        assert view is not None
        positions.add(right_choice(view, bank))
        row = await quiz.rounds.round_row(view.round_id)
        assert row is not None
        question = bank.get(view.question_id)
        assert question is not None
        order = permutation(row.seed, len(question.options))
        assert [o.text for o in view.options] == [question.options[i].en for i in order]
    assert len(positions) >= 3  # the correct letter is not predictable from habit


async def test_no_repeats_in_a_channel_until_bank_exhausted(quiz: Quiz, bank: Bank) -> None:
    seen = []
    for _ in range(len(bank)):
        view = await quiz.rounds.start_round(CHANNEL)
        assert view is not None
        seen.append(view.question_id)
        await quiz.close_round(view.round_id, "admin")
    assert len(set(seen)) == len(bank)
    again = await quiz.rounds.start_round(CHANNEL)
    assert again is not None  # the bank starts over rather than refusing
    other = await quiz.rounds.start_round(ChannelRef("test", "T1", "C2"))
    assert other is not None  # another channel has its own history


async def test_channel_language_is_used_for_views(quiz: Quiz, bank: Bank) -> None:
    notice = await quiz.set_channel_lang(CHANNEL, "id")
    assert "Bahasa Indonesia" in notice.text
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None
    question = bank.get(view.question_id)
    assert question is not None
    assert view.prompt == question.prompt.id
    fb = await quiz.rounds.answer(view.round_id, player(1), 0)
    assert fb.explanation == question.explanation.id
    assert fb.headline.startswith(("✅ Benar", "❌ Belum tepat"))


async def test_run_moves_on_and_posts_standings(
    quiz: Quiz, port: RecordingPort, bank: Bank
) -> None:
    first = await quiz.runs.start(CHANNEL, 3, timedelta(minutes=2))
    assert isinstance(first, QuestionView) and first.title.endswith("1/3")
    busy = await quiz.runs.start(CHANNEL, 2)
    assert isinstance(busy, NoticeView) and not busy.ok
    for n in range(3):
        view = port.posted[-1][1]
        assert view.title.endswith(f"{n + 1}/3")
        await quiz.rounds.answer(view.round_id, player(1), right_choice(view, bank))
        if n < 2:
            await quiz.rounds.answer(view.round_id, player(2), right_choice(view, bank))
        await quiz.close_round(view.round_id, "admin")
    assert len(port.posted) == 3 and len(port.reveals) == 3
    assert len({v.question_id for _, v in port.posted}) == 3
    ((_, standings),) = port.notices
    assert standings.lines[0].startswith("1. Player 1 · 30 pts")
    assert standings.lines[1].startswith("2. Player 2 · 20 pts")
    again = await quiz.runs.start(CHANNEL, 2)
    assert isinstance(again, QuestionView)  # the finished run no longer blocks


async def test_run_count_is_validated(quiz: Quiz) -> None:
    for bad in (0, -1, 500):
        notice = await quiz.runs.start(CHANNEL, bad)
        assert isinstance(notice, NoticeView) and not notice.ok


async def test_admin_close_closes_latest_open_round(quiz: Quiz, port: RecordingPort) -> None:
    nothing = await quiz.close_latest(CHANNEL)
    assert not nothing.ok
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None
    done = await quiz.close_latest(CHANNEL)
    assert done.ok and len(port.reveals) == 1
    assert port.reveals[0][1].round_id == view.round_id
