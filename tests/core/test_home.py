"""Quiz.home, the core of the Slack Home tab, on both backends: the page follows the language of
the channel the person last answered in, and only an admin gets the team's daily schedules."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from conftest import CHANNEL
from helpers import RecordingPort
from pg_server import on_both_backends

from bot.i18n import t
from bot.model import ChannelRef, Lang, TeamRef, UserRef
from bot.quiz import Quiz
from bot.storage import Store

pytestmark = on_both_backends

ADA = UserRef("test", "T1", "U1", "Ada")
OTHER = ChannelRef("test", "T1", "C2")


async def answer_in(quiz: Quiz, channel: ChannelRef) -> None:
    view = await quiz.rounds.start_round(channel)
    assert view is not None
    assert (await quiz.rounds.answer(view.round_id, ADA, 0)).recorded


async def test_home_follows_the_channel_last_played_in(quiz: Quiz) -> None:
    new = await quiz.home(ADA, is_admin=False)
    assert new.lang == "en" and new.is_new and new.intro is not None
    assert new.schedules is None
    await quiz.set_channel_lang(CHANNEL, "id")
    await answer_in(quiz, CHANNEL)
    page = await quiz.home(ADA, is_admin=False)
    assert page.lang == "id" and not page.is_new and page.stats.answered == 1
    assert page.week.me_line is not None and page.week.me_line.startswith("Kamu")
    await answer_in(quiz, OTHER)  # an English channel, later
    assert (await quiz.home(ADA, is_admin=False)).lang == "en"


@pytest.fixture
def scheduling(db: Store, port: RecordingPort, make_quiz: Callable[..., Quiz]) -> Quiz:
    """A quiz with daily schedules, as `zeroquiz serve` builds it."""
    return make_quiz(db, port, daily=True)


async def test_only_an_admin_sees_the_daily_schedules_with_their_next_time(
    scheduling: Quiz,
) -> None:
    quiz, daily = scheduling, scheduling.daily
    assert daily is not None
    await daily.command(OTHER, ("09:00", "Asia/Jakarta", "every", "day"), "en")
    assert (await quiz.home(ADA, is_admin=False)).schedules is None
    admin = await quiz.home(ADA, is_admin=True)
    assert admin.schedules is not None
    [line] = admin.schedules
    assert line.channel == "C2" and line.next_at is not None
    assert line.text.startswith("09:00 (Asia/Jakarta), every day · next: ")
    assert line.text.endswith(" 09:00 (Asia/Jakarta)")  # the next time, in the schedule's zone


async def test_the_home_schedule_lines_name_their_topics_in_the_persons_language(
    scheduling: Quiz,
) -> None:
    """As `/zeroquiz daily` shows them: "Questions on: …", last on the line; none for a
    schedule of any topic."""
    quiz, daily = scheduling, scheduling.daily
    assert daily is not None
    await daily.command(OTHER, ("09:00", "UTC", "mon-fri", "offload", "zeropp"), "en")
    await daily.command(CHANNEL, ("10:00", "UTC", "every", "day"), "en")
    cases: tuple[tuple[Lang, str], ...] = (
        ("en", "Questions on: offload, zeropp."),
        ("id", "Soal tentang: offload, zeropp."),
    )
    for lang, words in cases:
        [any_topic, topical] = sorted(
            (await daily.team_lines(TeamRef("test", "T1"), lang)), key=lambda s: s.channel
        )
        assert topical.channel == "C2" and topical.topics == ("offload", "zeropp")
        assert topical.text.endswith(" · " + t(lang, "daily_topics", topics="offload, zeropp"))
        assert words in topical.text
        assert any_topic.topics == () and words not in any_topic.text
    admin = await quiz.home(ADA, is_admin=True)
    assert admin.schedules is not None
    assert any("Questions on: offload, zeropp." in line.text for line in admin.schedules)
