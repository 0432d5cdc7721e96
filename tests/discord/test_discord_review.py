"""The personal review on Discord, end to end: the real discord.py client against the fake.

`/zeroquiz review` answers with an ephemeral message with letter buttons; a click answers with
UPDATE_MESSAGE (type 7) on that same ephemeral: the verdict, the explanation, Next and Stop;
Next until nothing is due; the buttons still work after a restart; review answers leave the
answers (and so totals and leaderboards) alone."""

from __future__ import annotations

import re
from typing import Any

from fake_discord import (
    EPHEMERAL,
    MANAGE_GUILD,
    BotFactory,
    FakeDiscord,
    RunningBot,
    answers,
    custom_ids,
    latest_round,
    right_option,
    text_of,
    user,
)
from helpers import scrape

from adapters.discord.render import review_token
from adapters.health import start_server
from bot.reviewing import decode

Json = dict[str, Any]
MONTH = 30 * 24 * 3600


async def answer_two(fake: FakeDiscord, bot: RunningBot, bots: BotFactory) -> None:
    """User 1 answers two channel questions right; a month later both cards are due."""
    for _ in range(2):
        await fake.reply_to(await fake.slash("question"))
        row = await latest_round(bot)
        mid = fake.posted[-1]
        ids = custom_ids(fake.messages[mid])
        await fake.reply_to(await fake.click(mid, ids[right_option(bot, row)], user(1)))
        await fake.reply_to(await fake.slash("close", permissions=MANAGE_GUILD))
    await bots.clock.advance(MONTH)


def labels(message: Json) -> list[str]:
    return [c["label"] for row in message["components"] for c in row["components"]]


def button(message: Json, label: str) -> str:
    ids = custom_ids(message)
    return ids[labels(message).index(label)]


def right_button(bot: RunningBot, message: Json) -> str:
    for custom_id in custom_ids(message):
        token = review_token(custom_id)
        click = decode(token or "")
        assert click is not None
        question = bot.runtime.quiz.bank.get(click.question_id)
        if question is not None and click.option == question.answer:
            return custom_id
    raise AssertionError("no right option among the buttons")


async def press(fake: FakeDiscord, mid: int, custom_id: str) -> Json:
    """Click a button of the review's ephemeral message: answered by updating that message."""
    token = await fake.click(mid, custom_id, user(1))
    await fake.wait_for(lambda: token in fake.responses)
    [response] = fake.responses[token]
    assert response["type"] == 7  # UPDATE_MESSAGE
    assert fake.response_ids[token] == mid and fake.response_delay(token) < 3
    return fake.messages[mid]


async def test_review_next_until_done_and_a_click_after_a_restart(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    await answer_two(fake_discord, bot, bots)
    recorded = await answers(bot)
    token = await fake_discord.slash("review", who=user(1))
    reply = await fake_discord.reply_to(token)
    assert reply["flags"] & EPHEMERAL
    mid = fake_discord.response_ids[token]
    card = fake_discord.messages[mid]
    assert card["embeds"][0]["title"] == "ZeroQuiz · Review"
    assert "Cards due for review: 2." in card["embeds"][0]["footer"]["text"]
    assert labels(card)[0] == "A" and all(len(c) <= 100 for c in custom_ids(card))
    verdict = await press(fake_discord, mid, right_button(bot, card))
    assert verdict["flags"] & EPHEMERAL  # still the private message, updated in place
    assert "✅ Correct!" in text_of(verdict) and verdict["embeds"][0]["fields"][0]["value"]
    assert "Still due: 1." in verdict["embeds"][0]["footer"]["text"]
    assert labels(verdict) == ["Next", "Stop", "Report"]
    second = await press(fake_discord, mid, button(verdict, "Next"))
    assert "Cards due for review: 1." in second["embeds"][0]["footer"]["text"]
    on_screen = dict(second)

    await bots.stop(bot)
    fresh = await bots.start()
    done = await press(fake_discord, mid, right_button(fresh, on_screen))
    assert "That was the last card due." in done["embeds"][0]["footer"]["text"]
    assert labels(done) == ["Report"]  # nothing more due: no Next, only Report
    assert await answers(fresh) == recorded  # review answers are not answers
    nothing = await fake_discord.reply_to(await fake_discord.slash("review", who=user(1)))
    assert "Nothing to review right now." in text_of(nothing)


async def test_stop_unknown_topic_and_indonesian(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    await answer_two(fake_discord, bot, bots)
    [group] = [c for c in fake_discord.registered if c["name"] == "zeroquiz"]
    subs = {o["name"]: {p["name"]: p for p in o.get("options", [])} for o in group["options"]}
    assert subs["review"]["topic"]["autocomplete"] is True
    unknown = await fake_discord.reply_to(
        await fake_discord.slash("review", {"topic": "nosuchtopic"}, who=user(1))
    )
    assert "nosuchtopic" in text_of(unknown) and "`offload`" in text_of(unknown)
    await fake_discord.reply_to(
        await fake_discord.slash("lang", {"language": "id"}, permissions=1 << 5)
    )
    token = await fake_discord.slash("review", who=user(1))
    await fake_discord.reply_to(token)
    mid = fake_discord.response_ids[token]
    card = fake_discord.messages[mid]
    assert card["embeds"][0]["title"] == "ZeroQuiz · Ulasan"
    verdict = await press(fake_discord, mid, custom_ids(card)[0])
    assert labels(verdict) == ["Berikutnya", "Berhenti", "Laporkan"]
    stopped = await press(fake_discord, mid, button(verdict, "Berhenti"))
    assert "Ulasan dihentikan" in text_of(stopped) and stopped["components"] == []


async def test_review_clicks_are_counted_and_the_next_due_time_is_a_discord_timestamp(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    """The process's /metrics page counts review clicks by kind and the reviews by verdict;
    the last verdict names the next due time as `<t:…:f>` where Discord renders it."""
    bot = await bots.start()
    server = await start_server(bot.runtime.health, "127.0.0.1", 0)
    try:
        url = server.url + "/metrics"
        await answer_two(fake_discord, bot, bots)
        token = await fake_discord.slash("review", who=user(1))
        await fake_discord.reply_to(token)
        mid = fake_discord.response_ids[token]
        card = fake_discord.messages[mid]
        verdict = await press(fake_discord, mid, right_button(bot, card))
        second = await press(fake_discord, mid, button(verdict, "Next"))
        wrong = next(c for c in custom_ids(second) if c != right_button(bot, second))
        done = await press(fake_discord, mid, wrong)
        description = done["embeds"][0]["description"]
        assert re.search(r"Your next card is due <t:\d+:f>\.$", description), description
        assert "<t:" not in done["embeds"][0]["footer"]["text"]
        page = await scrape(url)
    finally:
        await server.cleanup()
    discord = ("platform", "discord")
    clicks = "zeroquiz_review_clicks_total"
    assert page[(clicks, (("kind", "answer"), discord))] == 2
    assert page[(clicks, (("kind", "next"), discord))] == 1
    recorded = "zeroquiz_reviews_recorded_total"
    assert page[(recorded, (discord, ("verdict", "correct")))] == 1
    assert page[(recorded, (discord, ("verdict", "wrong")))] == 1
