"""The shared /zeroquiz command set: parsing, admin checks, and what each command answers."""

from __future__ import annotations

from datetime import datetime

from conftest import CHANNEL
from helpers import RecordingPort

from bot.commands import Command, Context, dispatch, parse_text
from bot.model import ChannelRef, UserRef
from bot.ports import DeliveryError
from bot.quiz import Quiz
from bot.views import LeaderboardView, NoticeView, QuestionView, StatsView

ALICE = UserRef("test", "T1", "UA", "Alice")


def ctx(admin: bool, asked: list[bool] | None = None) -> Context:
    async def is_admin() -> bool:
        if asked is not None:
            asked.append(True)
        return admin

    return Context(channel=CHANNEL, user=ALICE, is_admin=is_admin)


def test_parse_text() -> None:
    assert parse_text("") == Command("help")
    assert parse_text("  START 5 ") == Command("start", ("5",))
    assert parse_text("leaderboard week") == Command("leaderboard", ("week",))


async def test_question_posts_and_replies_privately(quiz: Quiz, port: RecordingPort) -> None:
    asked: list[bool] = []
    reply = await dispatch(quiz, parse_text("question"), ctx(False, asked))
    assert isinstance(reply, NoticeView) and reply.ok and reply.text == "Question posted."
    assert len(port.posted) == 1
    assert asked == []  # no admin lookup on the common path


async def test_admin_commands_are_refused_to_members(quiz: Quiz, port: RecordingPort) -> None:
    await dispatch(quiz, parse_text("question"), ctx(False))
    for text in ("close", "lang id"):
        reply = await dispatch(quiz, parse_text(text), ctx(False))
        assert isinstance(reply, NoticeView) and not reply.ok
        assert reply.text == "Only admins can do that."
    assert port.reveals == []
    assert await quiz.channel_lang(CHANNEL) == "en"
    closed = await dispatch(quiz, parse_text("close"), ctx(True))
    assert isinstance(closed, NoticeView) and closed.ok and len(port.reveals) == 1


async def test_lang_switches_every_later_reply(quiz: Quiz) -> None:
    reply = await dispatch(quiz, parse_text("lang id"), ctx(True))
    assert isinstance(reply, NoticeView) and "Bahasa Indonesia" in reply.text
    helped = await dispatch(quiz, parse_text("help"), ctx(False))
    assert isinstance(helped, NoticeView) and "kirim satu soal" in helped.text
    bad = await dispatch(quiz, parse_text("lang fr"), ctx(True))
    assert isinstance(bad, NoticeView) and not bad.ok


async def test_unknown_words_get_help_and_change_nothing(quiz: Quiz, port: RecordingPort) -> None:
    reply = await dispatch(quiz, parse_text("frobnicate"), ctx(True))
    assert isinstance(reply, NoticeView) and not reply.ok and "/zeroquiz question" in reply.text
    assert port.posted == []


async def test_start_validates_its_count(quiz: Quiz, port: RecordingPort) -> None:
    for text in ("start", "start x", "start 0", "start 999"):
        reply = await dispatch(quiz, parse_text(text), ctx(False))
        assert isinstance(reply, NoticeView) and not reply.ok, text
    assert port.posted == []
    ok = await dispatch(quiz, parse_text("start 3"), ctx(False))
    assert isinstance(ok, NoticeView) and ok.ok and "3 questions" in ok.text
    assert port.posted[0][1].title.endswith("1/3")


async def test_leaderboard_and_stats(quiz: Quiz) -> None:
    board = await dispatch(quiz, parse_text("leaderboard"), ctx(False))
    assert isinstance(board, LeaderboardView) and board.period == "week"
    month = await dispatch(quiz, parse_text("leaderboard month"), ctx(False))
    assert isinstance(month, LeaderboardView) and month.period == "month"
    bad = await dispatch(quiz, parse_text("leaderboard year"), ctx(False))
    assert isinstance(bad, NoticeView) and not bad.ok
    stats = await dispatch(quiz, parse_text("stats"), ctx(False))
    assert isinstance(stats, StatsView) and stats.name == "Alice"


async def test_post_refused_by_platform_answers_with_reason(
    quiz: Quiz, port: RecordingPort
) -> None:
    async def refuse(  # the bot is not in the channel
        channel: ChannelRef,
        view: QuestionView,
        *,
        dedupe_key: str | None = None,
        tried_since: datetime | None = None,
    ) -> str | None:
        raise DeliveryError("invite the app to this channel")

    port.post_question = refuse  # type: ignore[method-assign]
    reply = await dispatch(quiz, parse_text("question"), ctx(False))
    assert isinstance(reply, NoticeView) and not reply.ok
    assert "invite the app" in reply.text
    # The refused round is closed at once, so nobody can answer a question nobody saw.
    row = await quiz.rounds.round_row(1)
    assert row is not None and row.closed_at is not None
