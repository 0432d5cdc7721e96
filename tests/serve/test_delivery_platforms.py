"""The delivery-error contract on the real Slack and Discord adapters against their fakes: what
Slack or Discord answers decides between "report it" and "try again later"."""

from __future__ import annotations

from datetime import UTC, datetime

import fake_discord as fd
from fake_discord import MANAGE_GUILD, BotFactory, FakeDiscord
from fake_slack import (
    FakeSlack,
    SlackHarness,
    shown,
)
from helpers import peek

from bot.clock import FakeClock


def posted_rounds(path: str) -> list[tuple[object, ...]]:
    return peek(path, "SELECT posted_at IS NOT NULL, close_reason FROM rounds ORDER BY id")


# -- Slack ----------------------------------------------------------------------------------------
async def test_slack_passing_failure_is_retried_not_reported_as_a_refusal(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    fake.errors["chat.postMessage"] = ["internal_error"]  # Slack's own trouble, after retries
    reply = shown((await slack.ask("question"))["blocks"])
    assert "isn't answering right now" in reply and "can't post" not in reply
    assert posted_rounds(slack.runtime.store.path) == [(0, None)]
    await clock.advance(15)
    await slack.runtime.scheduler.caught_up()
    await fake.wait_until(lambda: any(
        b["type"] == "actions" for m in fake.posted.values() for b in m["blocks"]
    ), "the question, posted on the retry")  # fmt: skip
    assert posted_rounds(slack.runtime.store.path) == [(1, None)]


async def test_slack_question_never_posted_is_never_revealed(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    fake.errors["chat.postMessage"] = ["service_unavailable"] * 50
    await slack.ask("question")
    await clock.advance(11 * 60)  # past the deadline, every retry failed
    await slack.runtime.scheduler.caught_up()
    assert fake.posted == {} and fake.calls_to("chat.update") == []
    assert posted_rounds(slack.runtime.store.path) == [(0, "undelivered")]


async def test_slack_daily_question_survives_a_passing_failure(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    await slack.ask("daily 10:00 UTC", user="UADMIN")  # the fake clock starts at 09:00
    fake.errors["chat.postMessage"] = ["internal_error"]
    await clock.advance(to=datetime(2026, 1, 5, 10, 0, tzinfo=UTC))
    await slack.runtime.scheduler.caught_up()
    statuses = peek(slack.runtime.store.path, "SELECT status FROM daily_posts")
    assert statuses == [("claimed",)]  # not failed: tried again once the lease runs out
    await clock.advance(180)
    await slack.runtime.scheduler.caught_up()
    await fake.wait_until(lambda: len(fake.posted) == 1, "the daily question, posted late")
    assert "Daily question" in shown(next(iter(fake.posted.values()))["blocks"])
    assert peek(slack.runtime.store.path, "SELECT status FROM daily_posts") == [("posted",)]


# -- Discord --------------------------------------------------------------------------------------
def text_of(reply: fd.Json) -> str:
    return str(reply["embeds"][0].get("description") or "")


async def test_discord_server_error_is_retried_and_a_refusal_reported(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    path = bot.runtime.store.path
    fake_discord.post_failures = [503]
    reply = await fake_discord.reply_to(await fake_discord.slash("question"))
    assert "isn't answering right now" in text_of(reply)
    assert posted_rounds(path) == [(0, None)]
    await bots.clock.advance(15)
    await bot.runtime.scheduler.caught_up()
    await fake_discord.wait_for(lambda: len(fake_discord.posted) == 1)
    assert posted_rounds(path) == [(1, None)]

    await fake_discord.reply_to(await fake_discord.slash("close", permissions=MANAGE_GUILD))
    fake_discord.post_failures = [403]  # a channel that stopped letting the bot post
    refused = await fake_discord.reply_to(await fake_discord.slash("question"))
    assert "can't post" in text_of(refused) and "Missing Permissions" in text_of(refused)
    assert posted_rounds(path)[-1] == (0, "undelivered")


async def test_discord_question_never_posted_is_never_revealed(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    fake_discord.post_failures = [503] * 50
    await fake_discord.reply_to(await fake_discord.slash("question"))
    await bots.clock.advance(11 * 60)
    await bot.runtime.scheduler.caught_up()
    assert fake_discord.posted == []
    assert [c for c in fake_discord.calls if c.method == "PATCH" and "/channels/" in c.path] == []
    assert posted_rounds(bot.runtime.store.path) == [(0, "undelivered")]
