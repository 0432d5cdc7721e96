"""Starting the Discord adapter: command sync only when the set changed, clear token errors, the
bot's own permissions, and the settings `zeroquiz serve` reads."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
from pathlib import Path

import discord
import pytest
from fake_discord import (
    APP_ID,
    BOT_PERMS,
    EPHEMERAL,
    GUILD_ID,
    TOKEN,
    BotFactory,
    FakeDiscord,
)

from adapters.discord.surface import surface_from_env
from adapters.exitcodes import EX_CONFIG
from adapters.runtime import ConfigError, Runtime
from bot.bank import Bank
from bot.clock import FakeClock

VIEW_AND_SEND = BOT_PERMS & ~(1 << 14)  # everything but Embed Links


async def test_commands_sync_once_and_again_only_when_the_scope_changes(
    bots: BotFactory, fake_discord: FakeDiscord, db_path: Path
) -> None:
    first = await bots.start()
    assert first.surface.client.synced is True
    privileged = discord.Intents(members=True, presences=True, message_content=True).value
    assert fake_discord.intents is not None and fake_discord.intents & privileged == 0
    [(scope, body)] = fake_discord.command_puts
    assert scope == "global" and [c["name"] for c in body] == ["zeroquiz"]
    subcommands = {o["name"]: o for o in body[0]["options"]}
    assert set(subcommands) >= {"question", "start", "leaderboard", "stats", "help", "close"}
    assert {"lang", "daily"} <= set(subcommands)
    for option in subcommands.values():  # English descriptions with Indonesian localisations
        assert option["description"] and option["description_localizations"]["id"]
    await bots.stop(first)

    second = await bots.start()
    assert second.surface.client.synced is False
    assert len(fake_discord.command_puts) == 1  # unchanged: no registration call at all
    reply = await fake_discord.reply_to(await fake_discord.slash("help"))
    assert reply["embeds"][0]["title"].startswith("ZeroQuiz")
    await bots.stop(second)

    guild = await bots.start(fake_discord.env | {"DISCORD_GUILD_ID": str(GUILD_ID)})
    assert guild.surface.client.synced is True
    assert [scope for scope, _ in fake_discord.command_puts] == ["global", str(GUILD_ID)]
    assert [p.name for p in db_path.parent.iterdir() if "discord" in p.name] == []  # no file


async def test_a_new_database_answers_its_first_command_while_the_commands_register(
    bots: BotFactory, fake_discord: FakeDiscord, bank: Bank, clock: FakeClock, tmp_path: Path
) -> None:
    """A new database doesn't know what Discord has (no hash of the registered commands), so
    its first start registers them, beside the gateway's connection: a slow registration
    doesn't hold the first answer, and a failed one is tried again at the next start."""
    await bots.stop(await bots.start())  # Discord has the commands (an earlier installation)
    fresh = BotFactory(fake_discord, bank, clock, tmp_path / "new.sqlite3")
    try:
        fake_discord.hold_commands = asyncio.Event()
        bot = await fresh.start(synced=False)
        reply = await fake_discord.reply_to(await fake_discord.slash("help"))
        assert reply["embeds"][0]["title"].startswith("ZeroQuiz")
        assert len(fake_discord.command_puts) == 1 and bot.surface.client.synced is None
        fake_discord.hold_commands.set()
        await asyncio.wait_for(bot.surface.client.sync_done.wait(), 10)
        assert bot.surface.client.synced is True and len(fake_discord.command_puts) == 2
    finally:
        fake_discord.hold_commands = None
        await fresh.close()


async def test_a_refused_registration_is_one_error_line_and_is_tried_again_next_start(
    bots: BotFactory,
    fake_discord: FakeDiscord,
    bank: Bank,
    clock: FakeClock,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    await bots.stop(await bots.start())  # Discord has the commands (an earlier installation)
    fresh = BotFactory(fake_discord, bank, clock, tmp_path / "new.sqlite3")
    try:
        fake_discord.faults["commands"] = [403]
        bot = await fresh.start()
        assert bot.surface.client.synced is None and len(fake_discord.command_puts) == 1
        reply = await fake_discord.reply_to(await fake_discord.slash("help"))  # still answering
        assert reply["embeds"][0]["title"].startswith("ZeroQuiz")
        [line] = [r for r in caplog.records if "registering the commands failed" in r.message]
        assert line.levelname == "ERROR" and line.exc_info is None and TOKEN not in line.message
        await fresh.stop(bot)
        again = await fresh.start()  # nothing was recorded: this start registers them
        assert again.surface.client.synced is True and len(fake_discord.command_puts) == 2
    finally:
        await fresh.close()


async def test_replicas_on_postgresql_share_the_sync_and_new_commands_sync_again(
    fake_discord: FakeDiscord, bank: Bank, clock: FakeClock, pg_url: str
) -> None:
    """Each replica is a process of its own on the one database: only the first registers."""
    fake_discord.now = clock.now
    replicas = BotFactory(fake_discord, bank, clock, pg_url)
    try:
        first = await replicas.start()
        assert first.surface.client.synced is True
        await replicas.stop(first)
        second = await replicas.start()
        assert second.surface.client.synced is False
        assert len(fake_discord.command_puts) == 1
        # What an older release registered: its commands' hash, not this release's.
        await second.runtime.store.command_syncs.record("discord", str(APP_ID), "global", "old")
        await replicas.stop(second)
        third = await replicas.start()
        assert third.surface.client.synced is True
        assert len(fake_discord.command_puts) == 2
        reply = await fake_discord.reply_to(await fake_discord.slash("help"))
        assert reply["embeds"][0]["title"].startswith("ZeroQuiz")
    finally:
        await replicas.close()


async def test_a_rejected_token_is_reported_without_printing_it(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    secret = "MTIz.not-the-right-token.secret-part"
    with pytest.raises(ConfigError) as caught:
        await bots.start(fake_discord.env | {"DISCORD_TOKEN": secret})
    message = str(caught.value)
    assert "DISCORD_TOKEN" in message and "rejected" in message
    assert secret not in message and "secret-part" not in message
    assert fake_discord.identifies == 0


async def test_missing_bot_permission_is_named_and_nothing_is_posted(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    await bots.start()
    token = await fake_discord.slash("question", app_perms=VIEW_AND_SEND)
    reply = await fake_discord.reply_to(token)
    assert reply["flags"] & EPHEMERAL
    assert "Embed Links" in reply["embeds"][0]["description"]
    assert fake_discord.posted == []


async def test_settings_are_checked_and_name_the_variable(
    db_path: Path, bank: Bank, clock: FakeClock
) -> None:
    runtime = await Runtime.open(db_path, bank, clock, random.Random(1))
    try:
        assert surface_from_env({}, runtime) is None
        for name, value in (
            ("DISCORD_GUILD_ID", "my-server"),
            ("DISCORD_CONNECT_TO", "https://discord.com/api/v10"),
            ("DISCORD_CONNECT_TO", "127.0.0.1"),
            ("DISCORD_CONNECT_TO", "127.0.0.1:99999"),
            ("DISCORD_CONNECT_TO", "127.0.0.1:port"),
            ("DISCORD_CA_FILE", "/nowhere/ca.pem"),
        ):
            with pytest.raises(ConfigError) as caught:
                surface_from_env({"DISCORD_TOKEN": TOKEN, name: value}, runtime)
            assert name in str(caught.value) and TOKEN not in str(caught.value)
    finally:
        await runtime.close()


def serve_env(fake: FakeDiscord, db: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DISCORD_", "ZEROQUIZ_"))
    }
    return env | fake.env | {"ZEROQUIZ_DB": str(db)} | extra


async def run_serve(env: dict[str, str]) -> asyncio.subprocess.Process:
    script = Path(sys.executable).parent / "zeroquiz"
    return await asyncio.create_subprocess_exec(
        str(script),
        "serve",
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def test_zeroquiz_serve_answers_commands_and_stops_cleanly(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    proc = await run_serve(serve_env(fake_discord, tmp_path / "serve.sqlite3"))
    try:
        await fake_discord.wait_for(lambda: fake_discord.identifies == 1, timeout=30)
        reply = await fake_discord.reply_to(await fake_discord.slash("help"), timeout=10)
        assert "/zeroquiz question" in reply["embeds"][0]["description"]
        proc.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(proc.communicate(), 30)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode == 0, err.decode()
    assert TOKEN not in err.decode()


async def test_zeroquiz_serve_reports_a_rejected_token_without_printing_it(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    secret = "MTIz.wrong.token-value"
    env = serve_env(fake_discord, tmp_path / "serve.sqlite3", DISCORD_TOKEN=secret)
    proc = await run_serve(env)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == EX_CONFIG  # a rejected token: restarting won't help
    assert "DISCORD_TOKEN was rejected" in err.decode()
    assert secret not in (out + err).decode() and "token-value" not in (out + err).decode()
