"""A click on a component that isn't ZeroQuiz's (another app's button, a custom_id under no
prefix of ours) gets a private "that button isn't mine" in the channel's language, instead of
no answer at all (which Discord shows as "This interaction failed"); nothing is recorded."""

from __future__ import annotations

from typing import Any

import pytest
from fake_discord import (
    CHANNEL_ID,
    EPHEMERAL,
    GUILD_ID,
    MANAGE_GUILD,
    BotFactory,
    FakeDiscord,
    custom_ids,
    text_of,
    user,
)
from properties import assert_no_tracebacks

from bot.model import ChannelRef

NOT_MINE = "That button isn't mine: it belongs to another app, so ZeroQuiz can't act on it."
FOREIGN = ("other_app:vote:1", "zq:b:1:0", "ZQ:A:1:0", "x" * 100, "zqr")


def showing(message: dict[str, Any], custom_id: str) -> dict[str, Any]:
    button = {"type": 2, "style": 2, "label": "A", "custom_id": custom_id}
    return message | {"components": [{"type": 1, "components": [button]}]}


async def test_a_button_that_is_not_ours_gets_a_private_this_button_isnt_mine(
    bots: BotFactory, fake_discord: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    fake = fake_discord
    bot = await bots.start()
    await fake.reply_to(await fake.slash("question"))
    mid = fake.posted[-1]
    message = fake.messages[mid]
    for custom_id in FOREIGN:
        token = await fake.click(mid, custom_id, user(1), seen=showing(message, custom_id))
        reply = await fake.reply_to(token)
        assert reply["flags"] & EPHEMERAL and text_of(reply) == NOT_MINE, custom_id
    [row] = await bot.runtime.store.rounds.in_channel(
        ChannelRef("discord", str(GUILD_ID), str(CHANNEL_ID))
    )
    assert await bot.runtime.store.rounds.total_answers(row.id) == 0
    ids = custom_ids(fake.messages[mid])  # our own buttons still answer as before
    reply = await fake.reply_to(await fake.click(mid, ids[0], user(1)))
    assert text_of(reply).startswith(("✅ Correct!", "❌ Not quite")), text_of(reply)
    # In the channel's language.
    await fake.reply_to(await fake.slash("lang", {"language": "id"}, permissions=MANAGE_GUILD))
    token = await fake.click(mid, "other_app:1", user(2), seen=showing(message, "other_app:1"))
    assert text_of(await fake.reply_to(token)).startswith("Tombol itu bukan milik saya")
    assert_no_tracebacks(caplog)
