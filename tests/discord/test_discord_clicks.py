"""Clicks on our buttons are routed by custom_id from the client's on_interaction
(adapters/discord/clicks.py), against the real discord.py client: a verdict for an answer, a
private "no longer valid" for a custom_id under our prefix that is no round, commands as before,
and a click whose message as delivered lacks its button still answered and recorded
(discord.py's DynamicItem dispatch dropped it without a word, so the person saw "This
interaction failed")."""

from __future__ import annotations

import gc

import pytest
from fake_discord import (
    BOT_ID,
    EPHEMERAL,
    BotFactory,
    FakeDiscord,
    answers,
    latest_round,
    letter_ids,
    right_option,
    text_of,
    user,
)
from properties import assert_no_tracebacks


async def test_a_click_is_answered_and_recorded_even_if_its_message_lacks_the_button(
    bots: BotFactory, fake_discord: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    bot = await bots.start()
    await fake_discord.reply_to(await fake_discord.slash("question"))
    mid = fake_discord.posted[-1]
    ids = letter_ids(fake_discord.messages[mid])
    right = right_option(bot, await latest_round(bot))

    verdict = await fake_discord.reply_to(await fake_discord.click(mid, ids[right], user(1)))
    assert verdict["flags"] & EPHEMERAL and text_of(verdict).startswith("✅ Correct!")
    callback = [c for c in fake_discord.calls if c.path.endswith("/callback")][-1]
    assert callback.body["type"] == 4  # the verdict is the interaction's answer

    bare = fake_discord.messages[mid] | {"components": []}  # as delivered, without buttons
    wrong = (right + 1) % len(ids)
    late = await fake_discord.reply_to(await fake_discord.click(mid, ids[wrong], user(2), bare))
    assert late["flags"] & EPHEMERAL and text_of(late).startswith("❌ Not quite")
    assert await answers(bot) == 2

    again = await fake_discord.reply_to(await fake_discord.click(mid, ids[right], user(1), bare))
    assert "already answered" in text_of(again)
    assert await answers(bot) == 2

    invalid = await fake_discord.reply_to(await fake_discord.click(mid, "zq:a:x", user(3)))
    assert text_of(invalid) == "That button is no longer valid."
    help_reply = await fake_discord.reply_to(await fake_discord.slash("help"))  # commands too
    assert "/zeroquiz question" in text_of(help_reply)
    assert_no_tracebacks(caplog)


async def test_distinct_people_clicking_leave_nothing_behind_in_the_client(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    """Memory doesn't grow with every person who ever clicked: discord.py keeps the User it
    builds for a click only while something refers to it, and neither the handlers, the views
    sent (stopped: discord.py's view store keeps none) nor the guild's member list keep one once
    the verdict is sent (50,000 distinct people in tests/bench/discord_load.py)."""
    bot = await bots.start()
    await fake_discord.reply_to(await fake_discord.slash("question"))
    mid = fake_discord.posted[-1]
    ids = letter_ids(fake_discord.messages[mid])
    people = 40
    for n in range(1, people + 1):
        verdict = await fake_discord.reply_to(await fake_discord.click(mid, ids[n % 4], user(n)))
        assert text_of(verdict).startswith(("✅ Correct!", "❌ Not quite"))
    assert await answers(bot) == people
    client = bot.surface.client
    await fake_discord.wait_for(lambda: bot.surface.gate.count == 0)  # every click has finished
    gc.collect()
    kept = [u for u in client.users if u.id != BOT_ID]
    assert len(kept) <= 1, f"{len(kept)} of {people} clickers still held by discord.py"
    members = sum(len(guild.members) for guild in client.guilds)
    assert members <= len(client.guilds)  # the bot itself in each server, no clicker
