"""/zeroquiz in a thread or a forum post: the question goes into the thread, answers work there,
and the permission pre-check asks for Send Messages in Threads instead of Send Messages.

The reply after a defer edits the deferred response in place (PATCH .../messages/@original),
ephemeral as it was deferred; no follow-up message is created.
"""

from __future__ import annotations

import discord
import pytest
from fake_discord import (
    APP_ID,
    EPHEMERAL,
    GUILD_ID,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    THREAD_ID,
    BotFactory,
    FakeDiscord,
    answers,
    custom_ids,
    right_option,
    text_of,
    user,
)

from bot.model import ChannelRef

IN_THREAD = ChannelRef("discord", str(GUILD_ID), str(THREAD_ID))


@pytest.mark.parametrize("kind", [PUBLIC_THREAD, PRIVATE_THREAD])
async def test_a_question_in_a_thread_is_posted_there_and_answered(
    bots: BotFactory, fake_discord: FakeDiscord, kind: int
) -> None:
    bot = await bots.start()
    thread = fake_discord.thread(kind)
    # The bot may post in threads but not in channels: enough here.
    perms = discord.Permissions(view_channel=True, send_messages_in_threads=True, embed_links=True)
    token = await fake_discord.slash("question", place=thread, app_perms=perms.value)
    reply = await fake_discord.reply_to(token)
    assert reply["flags"] & EPHEMERAL and text_of(reply) == "Question posted."
    edits = [c for c in fake_discord.calls if c.path.endswith(f"/{token}/messages/@original")]
    assert [c.method for c in edits] == ["PATCH"]
    assert not [c for c in fake_discord.calls if c.path.endswith(f"/webhooks/{APP_ID}/{token}")]

    [mid] = fake_discord.posted
    assert fake_discord.messages[mid]["channel_id"] == str(THREAD_ID)
    [row] = await bot.runtime.store.rounds.in_channel(IN_THREAD)
    right = right_option(bot, row)
    ids = custom_ids(fake_discord.messages[mid])
    verdict = await fake_discord.reply_to(await fake_discord.click(mid, ids[right], user(2)))
    assert verdict["flags"] & EPHEMERAL and text_of(verdict).startswith("✅ Correct!")
    assert await bot.runtime.store.rounds.total_answers(row.id) == 1
    assert await answers(bot) == 0  # nothing in the parent channel: it all happened in the thread


async def test_in_a_thread_the_precheck_asks_for_send_messages_in_threads(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    await bots.start()
    thread = fake_discord.thread()  # a forum post is a public thread too
    channel_only = discord.Permissions(view_channel=True, send_messages=True, embed_links=True)
    token = await fake_discord.slash("question", place=thread, app_perms=channel_only.value)
    refused = await fake_discord.reply_to(token)
    assert refused["flags"] & EPHEMERAL
    assert "Send Messages in Threads" in text_of(refused)
    assert fake_discord.posted == []
    # And in the channel itself, Send Messages is still what counts.
    threads_only = discord.Permissions(
        view_channel=True, send_messages_in_threads=True, embed_links=True
    )
    token = await fake_discord.slash("question", app_perms=threads_only.value)
    assert "need the Send Messages permission" in text_of(await fake_discord.reply_to(token))
    assert fake_discord.posted == []
