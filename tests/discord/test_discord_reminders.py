"""Review reminders on Discord, end to end: the real discord.py client against the fake.

`/zeroquiz remind` (its time, timezone and days options) is answered privately; at that minute
the person with cards due gets one direct message (the bot opens the DM channel, no privileged
intent) with "Review now", whose click (from the DM, which has no server) answers with the first
due card of that server's review, and its letters and Next go on there; someone with nothing
due gets no message; a bad time gets `daily`'s reply."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from fake_discord import (
    EPHEMERAL,
    GUILD_ID,
    BotFactory,
    FakeDiscord,
    custom_ids,
    latest_round,
    right_option,
    text_of,
    user,
)

from adapters.discord.render import direct_parts, review_token
from bot.model import UserRef
from bot.reviewing import decode

Json = dict[str, Any]


async def test_a_reminder_comes_as_a_direct_message_whose_button_starts_the_review(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    fake = fake_discord
    bot = await bots.start()
    me, idle = user(1), user(2)
    # Monday 09:00 UTC: user 1 answers a question wrong; its card is due again within the day.
    await fake.reply_to(await fake.slash("question"))
    row = await latest_round(bot)
    mid = fake.posted[-1]
    wrong = custom_ids(fake.messages[mid])[(right_option(bot, row) + 1) % 4]
    await fake.reply_to(await fake.click(mid, wrong, me))

    options = {"time": "08:30", "timezone": "UTC", "days": "every day"}
    said = await fake.reply_to(await fake.slash("remind", options, who=me))
    assert said["flags"] & EPHEMERAL and "Review reminder set" in text_of(said)
    assert "every day" in text_of(said)
    await fake.reply_to(await fake.slash("remind", options, who=idle))
    bad = await fake.reply_to(await fake.slash("remind", {"time": "8h", "timezone": "UTC"}, who=me))
    assert "'8h' is not a time" in text_of(bad)

    # Tuesday 08:29: nothing yet; 08:30: one direct message to user 1, none to user 2.
    clock = bots.clock
    await clock.advance(to=datetime(2026, 1, 6, 8, 29, tzinfo=UTC))
    await bot.runtime.scheduler.caught_up()
    assert fake.direct_messages(me["id"]) == []
    await clock.advance(60)
    await bot.runtime.scheduler.caught_up()
    [dm] = await fake.wait_for(lambda: fake.direct_messages(me["id"]))
    await clock.advance(3600)
    await bot.runtime.scheduler.caught_up()
    assert len(fake.direct_messages(me["id"])) == 1 and fake.direct_messages(idle["id"]) == []
    assert "1 review card(s) due" in text_of(dm)
    [start] = custom_ids(dm)
    parts = direct_parts(start)
    assert parts is not None and parts[0] == str(GUILD_ID) and len(start) <= 100

    # The click comes from the DM, without a server: the first due card of that server's review.
    token = await fake.dm_click(int(dm["id"]), start, me)
    await fake.wait_for(lambda: token in fake.responses)
    [response] = fake.responses[token]
    assert response["type"] == 7  # the reminder turns into the card
    card = fake.messages[int(dm["id"])]
    assert card["embeds"][0]["title"] == "ZeroQuiz · Review"
    ids = custom_ids(card)
    assert ids and all(i.startswith("zqd") and len(i) <= 100 for i in ids)
    right = next(
        i for i in ids
        if (c := decode(review_token((direct_parts(i) or ("", ""))[1]) or "")) is not None
        and c.option == bot.runtime.quiz.bank.get(row.question_id).answer  # type: ignore[union-attr]
    )  # fmt: skip
    before = await bot.runtime.store.cards.due_at(
        UserRef("discord", str(GUILD_ID), me["id"]), row.question_id
    )
    token = await fake.dm_click(int(dm["id"]), right, me)
    await fake.wait_for(lambda: token in fake.responses)
    verdict = fake.messages[int(dm["id"])]
    assert "✅ Correct!" in text_of(verdict)
    after = await bot.runtime.store.cards.due_at(
        UserRef("discord", str(GUILD_ID), me["id"]), row.question_id
    )
    assert before is not None and after is not None and after > before + timedelta(hours=12)
    assert all(i.startswith("zqd") for i in custom_ids(verdict))  # Report too names the server
