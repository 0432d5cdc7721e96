"""A Discord request that never answers ends at ZEROQUIZ_DISCORD_TIMEOUT (issue 34): discord.py
gives a request none of its own (aiohttp's default is 300 s). The person is told Discord isn't
answering, the timeout is logged in one line naming the call, the server and the seconds, and
counted; the round stays open for a later pass, which posts it once (the same nonce), and the
bot goes on answering meanwhile (against the real discord.py client and the fake Discord)."""

from __future__ import annotations

import logging
import time

import pytest
from fake_discord import GUILD_ID, BotFactory, FakeDiscord, latest_round, text_of

from adapters.timeouts import Timeouts

TIMEOUT = 0.5


def post_calls(fake: FakeDiscord) -> int:
    return sum(c.method == "POST" and c.path.endswith("/messages") for c in fake.calls)


async def test_a_post_that_never_answers_ends_at_the_timeout_and_a_later_pass_posts_it(
    bots: BotFactory, fake_discord: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    bot = await bots.start(timeouts=Timeouts(discord=TIMEOUT))
    fake_discord.faults["post"] = ["hold"]  # Discord takes the post and never answers
    try:
        started = time.monotonic()
        reply = await fake_discord.reply_to(await fake_discord.slash("question"), timeout=10)
        assert time.monotonic() - started < 10
        assert "isn't answering right now" in text_of(reply)
        said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert [line for line in said if "no answer within" in line] == [
            f"Discord send_message in server {GUILD_ID}: no answer within 0.5 s"
        ]
        live = bot.runtime.metrics.load()
        counted = {"service": "discord", "call": "send_message"}
        assert live.registry.get_sample_value("zeroquiz_timeouts_total", counted) == 1
        row = await latest_round(bot)
        assert row.posted_at is None and row.closed_at is None  # open for a later pass
        stats = await fake_discord.reply_to(await fake_discord.slash("stats"), timeout=10)
        assert stats["embeds"]  # the bot goes on answering
        await bots.clock.advance(15)  # the planned retry, with the same nonce
        await fake_discord.wait_for(lambda: post_calls(fake_discord) == 2)
        await bot.runtime.scheduler.caught_up()
        row = await latest_round(bot)
        assert row.posted_at is not None and row.message_ref is not None
        assert len(fake_discord.posted) == 1  # the held post, found by its nonce
    finally:
        fake_discord.released.set()
