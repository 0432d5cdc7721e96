"""The delivery-error contract on the real Slack and Discord adapters against their fakes: what
Slack or Discord answers decides between "report it" and "try again later"."""

from __future__ import annotations

from datetime import UTC, date, datetime

import fake_discord as fd
from fake_discord import MANAGE_GUILD, BotFactory, FakeDiscord
from fake_slack import (
    CHANNEL,
    TEAM,
    FakeSlack,
    SlackHarness,
    shown,
)

from bot.clock import FakeClock
from bot.model import ChannelRef
from bot.storage import Store

SLACK_CHANNEL = ChannelRef("slack", TEAM, CHANNEL)
DISCORD_CHANNEL = ChannelRef("discord", str(fd.GUILD_ID), str(fd.CHANNEL_ID))


async def posted_rounds(store: Store, channel: ChannelRef) -> list[tuple[object, ...]]:
    """(posted?, why closed) of the channel's rounds, as stored."""
    return [
        (int(r.posted_at is not None), r.close_reason)
        for r in await store.rounds.in_channel(channel)
    ]


async def daily_status(store: Store) -> str | None:
    cid = await store.teams.find_channel(SLACK_CHANNEL)
    assert cid is not None
    schedule = await store.daily.channel_schedule(cid)
    assert schedule is not None
    posting = await store.daily.posting(schedule.id, date(2026, 1, 5))
    return posting.status if posting is not None else None


# -- Slack ----------------------------------------------------------------------------------------
async def test_slack_passing_failure_is_retried_not_reported_as_a_refusal(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    fake.errors["chat.postMessage"] = ["internal_error"]  # Slack's own trouble, after retries
    reply = shown((await slack.ask("question"))["blocks"])
    assert "isn't answering right now" in reply and "can't post" not in reply
    assert await posted_rounds(slack.runtime.store, SLACK_CHANNEL) == [(0, None)]
    await clock.advance(15)
    await slack.runtime.scheduler.caught_up()
    await fake.wait_until(lambda: any(
        b["type"] == "actions" for m in fake.posted.values() for b in m["blocks"]
    ), "the question, posted on the retry")  # fmt: skip
    assert await posted_rounds(slack.runtime.store, SLACK_CHANNEL) == [(1, None)]


async def test_slack_question_never_posted_is_never_revealed(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    fake.errors["chat.postMessage"] = ["service_unavailable"] * 50
    await slack.ask("question")
    await clock.advance(11 * 60)  # past the deadline, every retry failed
    await slack.runtime.scheduler.caught_up()
    assert fake.posted == {} and fake.calls_to("chat.update") == []
    assert await posted_rounds(slack.runtime.store, SLACK_CHANNEL) == [(0, "undelivered")]


async def test_slack_daily_question_survives_a_passing_failure(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    await slack.ask("daily 10:00 UTC", user="UADMIN")  # the fake clock starts at 09:00
    fake.errors["chat.postMessage"] = ["internal_error"]
    await clock.advance(to=datetime(2026, 1, 5, 10, 0, tzinfo=UTC))
    await slack.runtime.scheduler.caught_up()
    assert await daily_status(slack.runtime.store) == "claimed"  # not failed: retried later
    await clock.advance(180)
    await slack.runtime.scheduler.caught_up()
    await fake.wait_until(lambda: len(fake.posted) == 1, "the daily question, posted late")
    assert "Daily question" in shown(next(iter(fake.posted.values()))["blocks"])
    assert await daily_status(slack.runtime.store) == "posted"


# -- Discord --------------------------------------------------------------------------------------
def text_of(reply: fd.Json) -> str:
    return str(reply["embeds"][0].get("description") or "")


async def test_discord_server_error_is_retried_and_a_refusal_reported(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    fake_discord.post_failures = [503]
    reply = await fake_discord.reply_to(await fake_discord.slash("question"))
    assert "isn't answering right now" in text_of(reply)
    assert await posted_rounds(bot.runtime.store, DISCORD_CHANNEL) == [(0, None)]
    await bots.clock.advance(15)
    await bot.runtime.scheduler.caught_up()
    await fake_discord.wait_for(lambda: len(fake_discord.posted) == 1)
    assert await posted_rounds(bot.runtime.store, DISCORD_CHANNEL) == [(1, None)]

    await fake_discord.reply_to(await fake_discord.slash("close", permissions=MANAGE_GUILD))
    fake_discord.post_failures = [403]  # a channel that stopped letting the bot post
    refused = await fake_discord.reply_to(await fake_discord.slash("question"))
    assert "can't post" in text_of(refused) and "Missing Permissions" in text_of(refused)
    assert (await posted_rounds(bot.runtime.store, DISCORD_CHANNEL))[-1] == (0, "undelivered")


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
    assert await posted_rounds(bot.runtime.store, DISCORD_CHANNEL) == [(0, "undelivered")]
