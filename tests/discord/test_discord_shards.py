"""Discord shard ranges: each process runs the shards it is given, so every guild's clicks reach
exactly one process; a process whose shards another live process holds refuses to start."""

from __future__ import annotations

import asyncio
import os
import random
import time
from pathlib import Path

import discord
import pytest
from fake_discord import (
    BOT_ID,
    CHANNEL_B_ID,
    CHANNEL_ID,
    EPHEMERAL,
    GUILD_B_ID,
    GUILD_ID,
    TOKEN,
    BotFactory,
    FakeDiscord,
    RunningBot,
    custom_ids,
    text_of,
    user,
)

from adapters.discord.holder import Holder, alive, this_process
from adapters.discord.lease import LEASE_TTL
from adapters.discord.redirect import connector
from adapters.discord.shards import IdentifyPacer, ShardPlan, bot_gateway, describe, plan_from_env
from adapters.discord.surface import surface_from_env
from adapters.runtime import ConfigError, Runtime
from bot.bank import Bank
from bot.clock import FakeClock
from bot.model import ChannelRef
from bot.storage import Store


def split(count: int, ids: str | None = None) -> dict[str, str]:
    env = {"DISCORD_SHARD_COUNT": str(count)}
    return env | ({"DISCORD_SHARD_IDS": ids} if ids is not None else {})


# -- the variables ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("env", "plan"),
    [
        ({}, ShardPlan()),
        (split(4), ShardPlan(4)),
        (split(4, "0,1"), ShardPlan(4, (0, 1))),
        (split(4, " 2 , 3 "), ShardPlan(4, (2, 3))),
        (split(8, "0-2,5,6-7"), ShardPlan(8, (0, 1, 2, 5, 6, 7))),
        (split(1, "0"), ShardPlan(1, (0,))),
    ],
)
def test_shard_variables_are_read(env: dict[str, str], plan: ShardPlan) -> None:
    assert plan_from_env(env) == plan


@pytest.mark.parametrize(
    ("env", "variable", "words"),
    [
        ({"DISCORD_SHARD_IDS": "0,1"}, "DISCORD_SHARD_COUNT", "needs"),
        (split(0), "DISCORD_SHARD_COUNT", "whole number"),
        ({"DISCORD_SHARD_COUNT": "two"}, "DISCORD_SHARD_COUNT", "whole number"),
        ({"DISCORD_SHARD_COUNT": "-2"}, "DISCORD_SHARD_COUNT", "whole number"),
        (split(10**9), "DISCORD_SHARD_COUNT", "whole number"),
        (split(2, "2"), "DISCORD_SHARD_IDS", "shard 2 does not exist"),
        (split(4, "0-4"), "DISCORD_SHARD_IDS", "the shards are 0-3"),
        (split(4, "1,1"), "DISCORD_SHARD_IDS", "shard 1 more than once"),
        (split(4, "0-2,2"), "DISCORD_SHARD_IDS", "shard 2 more than once"),
        (split(4, "3-1"), "DISCORD_SHARD_IDS", "backwards"),
        (split(4, "0;1"), "DISCORD_SHARD_IDS", "like 0,1 or 0-3"),
        (split(4, "0,"), "DISCORD_SHARD_IDS", "like 0,1 or 0-3"),
        (split(4, "-1"), "DISCORD_SHARD_IDS", "like 0,1 or 0-3"),
    ],
)
def test_malformed_shard_variables_are_one_line_naming_the_variable(
    env: dict[str, str], variable: str, words: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        plan_from_env(env)
    message = str(caught.value)
    assert variable in message and words in message and "\n" not in message


async def test_the_surface_checks_the_shard_variables_before_connecting(
    db_path: Path, bank: Bank, clock: FakeClock
) -> None:
    runtime = await Runtime.open(db_path, bank, clock, random.Random(1))
    try:
        with pytest.raises(ConfigError, match="DISCORD_SHARD_IDS needs DISCORD_SHARD_COUNT"):
            surface_from_env({"DISCORD_TOKEN": TOKEN, "DISCORD_SHARD_IDS": "1"}, runtime)
    finally:
        await runtime.close()


def test_shards_are_named_the_way_an_admin_writes_them() -> None:
    assert describe(1, [0]) == "all shards"
    assert describe(2, [0, 1]) == "all shards"
    assert describe(2, [1]) == "shard 1 of 2"
    assert describe(8, [5, 0, 1, 2, 7]) == "shards 0-2,5,7 of 8"


async def test_identifies_wait_only_where_discord_would_refuse_them(clock: FakeClock) -> None:
    """max_concurrency IDENTIFYs per 5 s, one per bucket (shard % max_concurrency)."""
    pacer = IdentifyPacer(clock, max_concurrency=2)
    await pacer.wait(0)
    await pacer.wait(1)  # another bucket: at once
    third = asyncio.create_task(pacer.wait(2))  # bucket 0 again: 5 s after shard 0
    await clock.advance(4.9)
    assert not third.done()
    await clock.advance(0.1)
    await asyncio.wait_for(third, 1)


# -- who holds a lease --------------------------------------------------------------------------
async def test_a_holder_on_this_machine_is_known_alive_or_ended() -> None:
    here = this_process()
    assert Holder.parse(here.token) == here
    assert alive(here, this_process()) is True
    child = await asyncio.create_subprocess_exec("true")
    await child.wait()
    ended = Holder(here.host, child.pid, here.started, here.boot, here.pidns, "x")
    assert alive(ended, here) is False
    reused = Holder(here.host, os.getpid(), "1", here.boot, here.pidns, "x")  # pid reused
    assert alive(reused, here) is False
    elsewhere = Holder("other", os.getpid(), here.started, "another-boot", here.pidns, "x")
    assert alive(elsewhere, here) is None  # another machine: only the lease's expiry tells
    assert Holder.parse("not a holder") is None


# -- replicas against the fake gateway ----------------------------------------------------------
GUILD_A = ChannelRef("discord", str(GUILD_ID), str(CHANNEL_ID))
GUILD_B = ChannelRef("discord", str(GUILD_B_ID), str(CHANNEL_B_ID))


def watch(bot: RunningBot) -> list[int | None]:
    """The guild of every interaction that reaches this bot's client (then handled as before:
    the client's own on_interaction routes the clicks)."""
    seen: list[int | None] = []
    route = bot.surface.client.on_interaction

    async def on_interaction(interaction: discord.Interaction) -> None:
        seen.append(interaction.guild_id)
        await route(interaction)

    bot.surface.client.event(on_interaction)
    return seen


def callbacks(fake: FakeDiscord, token: str) -> int:
    return sum(c.path.endswith(f"/{token}/callback") for c in fake.calls)


async def question_in(fake: FakeDiscord, guild: int) -> int:
    reply = await fake.reply_to(await fake.slash("question", guild=guild))
    assert reply["flags"] & EPHEMERAL and text_of(reply) == "Question posted."
    return fake.posted[-1]


async def test_two_replicas_split_two_shards_and_each_guild_is_answered_by_one(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    fake = fake_discord
    started = time.perf_counter()
    a = await bots.start(fake.env | split(2, "0"))
    b = await bots.start(fake.env | split(2, "1"))
    elapsed = time.perf_counter() - started
    assert fake.identified == [(0, 2), (1, 2)] and fake.connected == 2
    seen = {"a": watch(a), "b": watch(b)}

    mid_a = await question_in(fake, GUILD_ID)
    mid_b = await question_in(fake, GUILD_B_ID)
    assert fake.messages[mid_a]["channel_id"] == str(CHANNEL_ID)
    assert fake.messages[mid_b]["channel_id"] == str(CHANNEL_B_ID)

    tokens = []
    for n in range(10):
        for mid in (mid_a, mid_b):
            tokens.append(await fake.click(mid, custom_ids(fake.messages[mid])[0], user(n)))
    for token in tokens:
        reply = await fake.reply_to(token)
        assert reply["flags"] & EPHEMERAL
    await asyncio.sleep(0.05)  # a second answer, were there one, would have arrived by now
    assert all(callbacks(fake, token) == 1 for token in tokens)  # each answered exactly once
    assert seen == {"a": [GUILD_ID] * 11, "b": [GUILD_B_ID] * 11}  # the command and 10 clicks

    store = a.runtime.store
    for channel in (GUILD_A, GUILD_B):
        [row] = await store.rounds.in_channel(channel)
        assert await store.rounds.total_answers(row.id) == 10
    print(f"\ntwo replicas, one shard each: both connected in {elapsed:.2f} s")


async def test_one_process_runs_every_shard_of_the_count_or_of_discords_advice(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    fake = fake_discord
    started = time.perf_counter()
    one = await bots.start(fake.env | split(2))
    elapsed = time.perf_counter() - started
    assert fake.identified == [(0, 2), (1, 2)] and fake.connected == 2
    for guild in (GUILD_ID, GUILD_B_ID):
        await question_in(fake, guild)
    await bots.stop(one)

    fake.shards = 3  # no variables: as many as GET /gateway/bot recommends
    await bots.start()
    assert fake.identified[2:] == [(0, 3), (1, 3), (2, 3)] and fake.connected == 3
    reply = await fake.reply_to(await fake.slash("help", guild=GUILD_B_ID))
    assert reply["embeds"][0]["title"].startswith("ZeroQuiz")
    assert sum(c.path.endswith("/gateway/bot") for c in fake.calls) == 2  # once per start
    print(f"\none process, two shards: connected in {elapsed:.2f} s")


async def test_discords_advice_is_read_on_discord_pys_own_connections(
    fake_discord: FakeDiscord,
) -> None:
    """GET /gateway/bot on public APIs: the shard count and the IDENTIFYs allowed at once; a
    refusal is no advice (discord.py then asks itself, and shards identify one at a time)."""
    fake_discord.shards, fake_discord.max_concurrency = 3, 4
    env = fake_discord.env
    host, port = env["DISCORD_CONNECT_TO"].split(":")
    shared = connector((host, int(port)), env["DISCORD_CA_FILE"])
    try:
        assert await bot_gateway(shared, TOKEN) == (3, 4)
        assert await bot_gateway(shared, "not-the-token") is None  # 401
        assert not shared.closed  # still discord.py's, open for its session
    finally:
        await shared.close()


async def test_a_second_process_on_the_same_shards_refuses_to_start(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    fake = fake_discord
    first = await bots.start(fake.env | split(2, "1"))
    for env in ({}, split(2, "0-1"), split(4, "3"), split(1, "0")):
        with pytest.raises(ConfigError) as caught:
            await bots.start(fake.env | env)
        message = str(caught.value)
        assert "shard 1 of 2 by" in message and f"pid {os.getpid()}" in message, message
        assert "DISCORD_SHARD_COUNT" in message and "DISCORD_SHARD_IDS" in message
        assert "\n" not in message and TOKEN not in message
    assert fake.identifies == 1  # none of them reached the gateway
    # Shard 0 of 2 and shard 2 of 4 are free: the other half of the guilds.
    second = await bots.start(fake.env | split(4, "2"))
    assert fake.identified == [(1, 2), (2, 4)]
    await bots.stop(first)
    await bots.stop(second)
    await bots.start()  # stopped cleanly, they gave their shards up


async def renewal(bot: RunningBot, clock: FakeClock) -> None:
    """Wait (bounded) until the bot has renewed its lease at the clock's present time."""
    deadline = time.monotonic() + 5
    while True:
        held = await bot.runtime.store.shards.live(BOT_ID, clock.now())
        if held and held[0].renewed_at == clock.now():
            return
        assert time.monotonic() < deadline, "the lease was not renewed"
        await asyncio.sleep(0.01)


async def test_a_lease_lives_while_renewed_and_expires_on_the_clock(
    bots: BotFactory, fake_discord: FakeDiscord, db_path: Path
) -> None:
    fake, clock = fake_discord, bots.clock
    elsewhere = "host=far-away pid=7 started=1 boot=other-machine pidns=pid:[1] nonce=1"
    store = await Store.open(db_path)
    try:
        assert await store.shards.claim(BOT_ID, 1, [0], elsewhere, clock.now(), LEASE_TTL) == []
    finally:
        await store.close()
    with pytest.raises(ConfigError, match=r"all shards by far-away pid 7 \(lease renewed 0 s ago"):
        await bots.start()
    await clock.advance(LEASE_TTL.total_seconds() - 1)
    with pytest.raises(ConfigError, match="far-away pid 7"):
        await bots.start()
    await clock.advance(1)  # the far-away holder never renewed: its lease has expired
    running = await bots.start()
    for _ in range(10):  # a running holder renews on the clock: 150 s later it still holds
        await clock.advance(LEASE_TTL.total_seconds() / 2)
        await renewal(running, clock)
    with pytest.raises(ConfigError, match=f"pid {os.getpid()} "):
        await bots.start()
    assert fake.identifies == 1 and not running.surface.client.is_closed()


async def test_a_process_whose_shards_were_taken_over_disconnects(
    bots: BotFactory, fake_discord: FakeDiscord, db_path: Path
) -> None:
    fake, clock = fake_discord, bots.clock
    bot = await bots.start()
    lease = bot.surface.lease
    store = bot.runtime.store
    # As if the bot had not renewed in time (a paused VM) and another process then claimed.
    await store.shards.release(BOT_ID, lease.holder.token)
    other = "host=far-away pid=7 started=1 boot=other-machine pidns=pid:[1] nonce=1"
    assert await store.shards.claim(BOT_ID, 1, [0], other, clock.now(), LEASE_TTL) == []
    await clock.advance(LEASE_TTL.total_seconds() / 3)
    await fake.wait_for(lambda: fake.connected == 0)
    assert bot.surface.client.is_closed()
    [held] = await store.shards.live(BOT_ID, clock.now())
    assert held.holder == other


async def test_a_lapsed_lease_nobody_took_is_claimed_again(
    bots: BotFactory, fake_discord: FakeDiscord, caplog: pytest.LogCaptureFixture
) -> None:
    fake, clock = fake_discord, bots.clock
    bot = await bots.start()
    token = bot.surface.lease.holder.token
    # The renewals missed their time (a paused VM, a database away): the lease has expired.
    await clock.advance(LEASE_TTL.total_seconds() + 1)
    await renewal(bot, clock)
    [held] = await bot.runtime.store.shards.live(BOT_ID, clock.now())
    assert held.holder == token
    assert "the shard lease had lapsed; claimed the shards again" in caplog.text
    assert fake.connected == 1 and not bot.surface.client.is_closed()
