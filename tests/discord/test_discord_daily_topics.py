"""A daily schedule limited to topics from Discord: topic words typed after the days (the `days`
option) are stored with it, shown, and its question is of those topics."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from fake_discord import MANAGE_GUILD, BotFactory, FakeDiscord, latest_round, text_of

from bot.clock import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2026, 1, 5, 8, 0, tzinfo=UTC))  # a Monday, before 09:00


async def test_a_daily_schedule_of_one_topic_posts_that_topics_question(
    bots: BotFactory, fake_discord: FakeDiscord, clock: FakeClock
) -> None:
    bot = await bots.start()
    options = {"time": "09:00", "timezone": "UTC", "days": "mon-fri zeropp"}
    token = await fake_discord.slash("daily", options, permissions=MANAGE_GUILD)
    reply = text_of(await fake_discord.reply_to(token))
    assert "Monday to Friday" in reply and "Questions on: zeropp." in reply
    await clock.advance(to=datetime(2026, 1, 5, 9, 0, tzinfo=UTC))
    await bot.runtime.scheduler.caught_up()
    await fake_discord.wait_for(lambda: len(fake_discord.posted) == 1)
    question = bot.runtime.quiz.bank.get((await latest_round(bot)).question_id)
    assert question is not None and "zeropp" in question.tags
