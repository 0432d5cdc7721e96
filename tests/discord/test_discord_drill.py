"""Drill my misses on Discord, end to end: the real discord.py client against the fake.

A member who missed two questions types `/zeroquiz drill`: a private card of the most recent
miss, letter buttons; a click updates that private message with the verdict and the option's
reason, then Next; one answered right leaves the list, and the drill never touches answers."""

from __future__ import annotations

from fake_discord import (
    EPHEMERAL,
    MANAGE_GUILD,
    BotFactory,
    FakeDiscord,
    RunningBot,
    answers,
    custom_ids,
    latest_round,
    letter_ids,
    right_option,
    text_of,
    user,
)
from test_discord_review import button, labels, press

from adapters.discord.render import review_token
from bot.reviewing import decode


async def miss_two(fake: FakeDiscord, bot: RunningBot, bots: BotFactory) -> list[str]:
    """User 1 answers two channel questions wrong, a minute apart; their ids, oldest first."""
    missed = []
    for _ in range(2):
        await bots.clock.advance(60)
        await fake.reply_to(await fake.slash("question"))
        row = await latest_round(bot)
        mid = fake.posted[-1]
        ids = letter_ids(fake.messages[mid])
        wrong = (right_option(bot, row) + 1) % len(ids)
        await fake.reply_to(await fake.click(mid, ids[wrong], user(1)))
        await fake.reply_to(await fake.slash("close", permissions=MANAGE_GUILD))
        missed.append(row.question_id)
    return missed


def shown_question(message: dict[str, object]) -> str:
    click = decode(review_token(custom_ids(message)[0]) or "")
    assert click is not None
    return click.question_id


def option_button(bot: RunningBot, message: dict[str, object], *, right: bool) -> str:
    for custom_id in letter_ids(message):
        click = decode(review_token(custom_id) or "")
        assert click is not None
        question = bot.runtime.quiz.bank.get(click.question_id)
        if question is not None and (click.option == question.answer) == right:
            return custom_id
    raise AssertionError("no such option among the buttons")


async def test_a_drill_asks_the_misses_newest_first_and_right_ones_leave(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    older, newer = await miss_two(fake_discord, bot, bots)
    recorded = await answers(bot)
    token = await fake_discord.slash("drill", who=user(1))
    reply = await fake_discord.reply_to(token)
    assert reply["flags"] & EPHEMERAL
    mid = fake_discord.response_ids[token]
    card = fake_discord.messages[mid]
    assert card["embeds"][0]["title"] == "ZeroQuiz · Drill"
    assert "Missed question 1 of 2" in card["embeds"][0]["footer"]["text"]
    assert shown_question(card) == newer

    verdict = await press(fake_discord, mid, option_button(bot, card, right=False))
    assert "❌ Not quite" in text_of(verdict)
    assert verdict["embeds"][0]["fields"][0]["name"].startswith("Why ")  # the option's reason
    assert labels(verdict) == ["Next", "Stop", "Report"]
    second = await press(fake_discord, mid, button(verdict, "Next"))
    assert shown_question(second) == older
    done = await press(fake_discord, mid, option_button(bot, second, right=True))
    assert "✅ Correct!" in text_of(done) and labels(done) == ["Report"]
    assert "1 missed question(s) left" in done["embeds"][0]["footer"]["text"]
    assert await answers(bot) == recorded  # a drill answer is no answer: no leaderboard change

    again = await fake_discord.slash("drill", who=user(1))
    await fake_discord.reply_to(again)
    left = fake_discord.messages[fake_discord.response_ids[again]]
    assert shown_question(left) == newer and "of 1" in left["embeds"][0]["footer"]["text"]
    nothing = await fake_discord.reply_to(await fake_discord.slash("drill", who=user(2)))
    assert "Nothing missed" in text_of(nothing)
