"""A daily schedule limited to topics: `daily 09:00 UTC every day offload zeropp` posts only those
topics' questions, across a restart; showing it names them; a word that is neither days nor a
topic is refused with the days' error and the list of topics. Both backends."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from conftest import CHANNEL
from pg_server import on_both_backends
from test_daily import admin, boot, walk

from bot.bank import Bank
from bot.clock import FakeClock
from bot.model import Lang
from bot.topics import Filter, entries, matching, topics

pytestmark = on_both_backends

CHOSEN = {"offload", "zeropp"}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2026, 1, 5, 8, 0, tzinfo=UTC))  # Monday, before nine


async def test_only_questions_of_the_schedules_topics_are_posted(
    db_target: str, clock: FakeClock, bank: Bank
) -> None:
    # Questions and templates of those topics (a generated question's id is `template@seed`).
    chosen = {entry.id for entry in matching(bank, Filter(any_of=tuple(sorted(CHOSEN))))}
    assert 8 <= len(chosen) < len(entries(bank)) / 3  # a limit that shows
    stack = await boot(db_target, clock, bank)
    try:
        reply = await admin(stack, "daily 09:00 UTC every day offload zeropp")
        assert reply.ok, reply.text
        assert "Questions on: offload, zeropp." in reply.text
        await walk(stack, clock, datetime(2026, 1, 9, 12, 0, tzinfo=UTC), timedelta(hours=1))
    finally:
        await stack.close()
    restarted = await boot(db_target, clock, bank, seed=5)  # the topics are in the database
    try:
        shown = await admin(restarted, "daily")
        assert "Questions on: offload, zeropp." in shown.text
        await walk(restarted, clock, datetime(2026, 1, 13, 12, 0, tzinfo=UTC), timedelta(hours=1))
        posted = stack.port.posted + restarted.port.posted
        assert len(posted) == 9  # Monday 5 to Tuesday 13, every day
        ids = [view.question_id.split("@")[0] for _, view in posted]
        assert set(ids) <= chosen
        assert len(set(ids)) == 9  # still none twice
        # Setting it again without topics draws from the whole bank again.
        assert "Questions on" not in (await admin(restarted, "daily 09:00 UTC every day")).text
    finally:
        await restarted.close()


@pytest.mark.parametrize(
    ("lang", "days_error"),
    [
        ("en", "'ofload' is not a set of days"),
        ("id", "'ofload' bukan daftar hari"),
    ],
)
async def test_an_unknown_word_keeps_the_days_error_and_names_the_topics(
    db_target: str, clock: FakeClock, bank: Bank, lang: Lang, days_error: str
) -> None:
    stack = await boot(db_target, clock, bank)
    try:
        await stack.quiz.set_channel_lang(CHANNEL, lang)
        reply = await admin(stack, "daily 09:00 UTC ofload")
        assert not reply.ok and reply.text.startswith(days_error)
        assert all(f"`{name}`" in reply.text for name in topics(bank))
        assert "Questions on" not in (await admin(stack, "daily")).text  # nothing was set
        shown = await admin(stack, "daily 09:00 Asia/Jakarta mon-fri zeropp 4h")
        weekdays, line = {
            "en": ("Monday to Friday", "Questions on: zeropp."),
            "id": ("Senin sampai Jumat", "Soal tentang: zeropp."),
        }[lang]
        assert shown.ok and weekdays in shown.text and line in shown.text  # days stay days
    finally:
        await stack.close()
