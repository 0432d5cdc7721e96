"""Daily questions end to end on Discord: an admin schedules one, the clock reaches it, it appears.

The real discord.py client against the fake Discord; time is the fake clock.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from fake_discord import MANAGE_GUILD, BotFactory, FakeDiscord
from helpers import poke

from bot.clock import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2026, 1, 5, 8, 0, tzinfo=UTC))  # a Monday, before 09:00


def text_of(reply: dict[str, Any]) -> str:
    text: str = (
        reply["embeds"][0]["description"] if reply.get("embeds") else reply.get("content", "")
    )
    return text


async def test_admin_schedules_daily_and_it_posts_at_nine(
    bots: BotFactory, fake_discord: FakeDiscord, clock: FakeClock
) -> None:
    bot = await bots.start()
    options = {"time": "09:00", "timezone": "UTC"}
    refused = await fake_discord.reply_to(await fake_discord.slash("daily", options))
    assert "Only admins" in text_of(refused)
    token = await fake_discord.slash("daily", options, permissions=MANAGE_GUILD)
    reply = text_of(await fake_discord.reply_to(token))
    assert "09:00 (UTC)" in reply and "2026-01-05 09:00" in reply
    assert fake_discord.posted == []

    await clock.advance(to=datetime(2026, 1, 5, 8, 59, tzinfo=UTC))
    await bot.runtime.scheduler.caught_up()
    assert fake_discord.posted == []
    await clock.advance(to=datetime(2026, 1, 5, 9, 0, tzinfo=UTC))
    await bot.runtime.scheduler.caught_up()
    await fake_discord.wait_for(lambda: len(fake_discord.posted) == 1)
    message = fake_discord.messages[fake_discord.posted[0]]
    assert message["embeds"][0]["title"] == "ZeroQuiz · Daily question"
    assert [b["label"] for b in message["components"][0]["components"]][:2] == ["A", "B"]
    post = next(c for c in fake_discord.calls if c.method == "POST" and "/messages" in c.path)
    # The daily dedupe key travels as an enforced nonce, so Discord drops a repeat after a crash.
    assert post.body["enforce_nonce"] is True and post.body["nonce"].startswith("zqd")
    await clock.advance(3600)
    await bot.runtime.scheduler.caught_up()
    assert len(fake_discord.posted) == 1  # once per day


async def test_restart_after_a_lost_acknowledgement_does_not_show_two_posts(
    bots: BotFactory, fake_discord: FakeDiscord, clock: FakeClock
) -> None:
    """The process dies after Discord accepted the post but before it was recorded: the re-send
    carries the same nonce and Discord returns the first message instead of a second one."""
    bot = await bots.start()
    token = await fake_discord.slash(
        "daily", {"time": "09:00", "timezone": "UTC"}, permissions=MANAGE_GUILD
    )
    await fake_discord.reply_to(token)
    await clock.advance(to=datetime(2026, 1, 5, 9, 0, tzinfo=UTC))
    await bot.runtime.scheduler.caught_up()
    await fake_discord.wait_for(lambda: len(fake_discord.posted) == 1)
    # Forget that it was posted, as if the process had died before recording it.
    poke(
        bot.runtime.store.path,
        "UPDATE daily_posts SET status = 'claimed'",
        "UPDATE rounds SET message_ref = NULL, posted_at = NULL",
    )
    await bots.stop(bot)
    await clock.advance(180)  # past the claim's lease
    again = await bots.start()
    await again.runtime.scheduler.caught_up()
    posts = [c for c in fake_discord.calls if c.method == "POST" and c.path.endswith("/messages")]
    assert len(posts) == 2 and posts[0].body["nonce"] == posts[1].body["nonce"]
    assert len(fake_discord.posted) == 1  # the channel still shows one daily question
