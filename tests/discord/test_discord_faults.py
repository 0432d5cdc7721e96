"""Discord failing on purpose, against the real discord.py client: server errors, a connection
cut after Discord did the work, and rate limits. For channel messages discord.py retries HTTP
500, 502, 504 and 524 (after 1, 3, 5, 7 s) and waits out rate limits; it does not retry a 503 or a
cut connection, which the port reports as passing, so the core tries again later. Interaction
answers go through its webhook client, which retries any 5xx. The question is posted once
(its nonce makes a repeat return the first message), the reveal lands when its retry is due, and
every verdict arrives once."""

from __future__ import annotations

import asyncio

import pytest
from fake_discord import (
    BotFactory,
    FakeDiscord,
    answers,
    custom_ids,
    latest_round,
    right_option,
    text_of,
    user,
)

from bot.delivery import REVEAL_RETRY


def post_calls(fake: FakeDiscord) -> int:
    """Requests to create a channel message (answered or not)."""
    return sum(c.method == "POST" and c.path.endswith("/messages") for c in fake.calls)


async def test_a_server_error_on_a_post_is_retried_by_discord_py_and_posts_once(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    await bots.start()
    fake_discord.faults["post"] = [500]
    reply = await fake_discord.reply_to(await fake_discord.slash("question"), timeout=10)
    assert text_of(reply) == "Question posted."
    assert len(fake_discord.posted) == 1


async def test_rate_limits_on_posts_edits_and_verdicts_are_waited_out_not_failed(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    fake_discord.faults.update(post=[429], edit=[429], callback=[429])
    reply = await fake_discord.reply_to(await fake_discord.slash("question"), timeout=10)
    assert text_of(reply) == "Question posted."
    [mid] = fake_discord.posted
    ids = custom_ids(fake_discord.messages[mid])
    token = await fake_discord.click(mid, ids[0], user(5))
    assert "answer is" in text_of(await fake_discord.reply_to(token, timeout=10))
    await bots.clock.advance(10 * 60)
    await fake_discord.wait_for(lambda: fake_discord.messages[mid]["components"] == [])
    assert fake_discord.faults == {"post": [], "edit": [], "callback": []}  # each met its 429
    assert len(fake_discord.posted) == 1 and await answers(bot) == 1


async def test_a_post_whose_answer_was_lost_is_sent_again_and_shows_once(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    fake_discord.faults["post"] = ["cut"]  # Discord posted it; the bot never heard back
    reply = await fake_discord.reply_to(await fake_discord.slash("question"), timeout=10)
    assert "isn't answering right now" in text_of(reply)
    assert len(fake_discord.posted) == 1  # already on screen, unknown to the bot
    row = await latest_round(bot)
    assert row.posted_at is None
    await bots.clock.advance(15)  # the planned retry, with the same nonce
    await fake_discord.wait_for(lambda: post_calls(fake_discord) == 2)
    await bot.runtime.scheduler.caught_up()
    row = await latest_round(bot)
    assert row.posted_at is not None and row.message_ref is not None
    assert row.message_ref.endswith(f":{fake_discord.posted[0]}")  # the first message, found
    assert len(fake_discord.posted) == 1
    mid = fake_discord.posted[0]
    ids = custom_ids(fake_discord.messages[mid])
    verdict = await fake_discord.reply_to(
        await fake_discord.click(mid, ids[right_option(bot, row)], user(1))
    )
    assert text_of(verdict).startswith("✅ Correct!")
    await bots.clock.advance(10 * 60)
    await fake_discord.wait_for(lambda: fake_discord.messages[mid]["components"] == [])
    assert len(fake_discord.posted) == 1  # the reveal replaced that one message


async def test_a_failed_reveal_arrives_when_its_retry_is_due(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    reply = await fake_discord.reply_to(await fake_discord.slash("question"))
    assert text_of(reply) == "Question posted."
    mid = fake_discord.posted[0]
    fake_discord.faults["edit"] = [503]  # not retried by discord.py
    await bots.clock.advance(10 * 60)
    await bot.runtime.scheduler.caught_up()
    assert fake_discord.messages[mid]["components"]  # still the question
    await bots.clock.advance(REVEAL_RETRY.first.total_seconds())  # only the planned wake reveals it
    await fake_discord.wait_for(lambda: fake_discord.messages[mid]["components"] == [])
    assert len(fake_discord.posted) == 1


@pytest.mark.parametrize("fault", [503, "cut"])
async def test_a_verdict_that_fails_in_passing_is_sent_once_more_in_the_window(
    bots: BotFactory, fake_discord: FakeDiscord, fault: int | str, caplog: pytest.LogCaptureFixture
) -> None:
    """A 503 is retried by discord.py's webhook client; a cut connection by the handler, once.
    After a cut the first try had arrived: Discord refuses the second (40060), and nobody is told
    that anything failed."""
    bot = await bots.start()
    await fake_discord.reply_to(await fake_discord.slash("question"))
    mid = fake_discord.posted[0]
    ids = custom_ids(fake_discord.messages[mid])
    fake_discord.faults["callback"] = [fault]
    token = await fake_discord.click(mid, ids[0], user(3))
    verdict = await fake_discord.reply_to(token, timeout=10)
    assert "answer is" in text_of(verdict)
    await asyncio.sleep(0.5)  # a second try, if any, has come back by now
    assert [r["type"] for r in fake_discord.responses[token]] == [4]  # one verdict, no apology
    assert "Traceback" not in caplog.text
    assert await answers(bot) == 1


async def test_a_server_error_on_a_verdict_is_retried_within_the_three_seconds(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    await fake_discord.reply_to(await fake_discord.slash("question"))
    mid = fake_discord.posted[0]
    ids = custom_ids(fake_discord.messages[mid])
    fake_discord.faults["callback"] = [500]
    token = await fake_discord.click(mid, ids[0], user(2))
    verdict = await fake_discord.reply_to(token, timeout=10)
    assert "answer is" in text_of(verdict)
    assert len(fake_discord.responses[token]) == 1
    assert await answers(bot) == 1


async def test_a_long_rate_limit_is_not_slept_out_inside_the_call(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    """A route held for 45 s (over discord.py's max_ratelimit_timeout, 30 s): the call ends at
    once as passing instead of holding its sender (and a slot of the scheduled sends) for 45 s;
    the person is told, and the question is posted by a later pass, once."""
    bot = await bots.start()
    fake_discord.faults["post"] = ["429:45"]
    reply = await fake_discord.reply_to(await fake_discord.slash("question"), timeout=10)
    assert "isn't answering right now" in text_of(reply)
    assert fake_discord.posted == []
    row = await latest_round(bot)
    assert row.posted_at is None and row.closed_at is None
