"""`/zeroquiz stop` with the real discord.py client against the fake Discord: the open question
is revealed in place, the standings so far are posted, no further question follows even when the
clock passes the window; the starter and Manage Server may stop, someone else may not."""

from __future__ import annotations

from typing import Any

from fake_discord import (
    EPHEMERAL,
    MANAGE_GUILD,
    BotFactory,
    FakeDiscord,
    custom_ids,
    latest_round,
    right_option,
    text_of,
    user,
)


def questions(fake: FakeDiscord) -> list[int]:
    """The question messages posted (a revealed one has lost its buttons, not its title)."""
    return [mid for mid in fake.posted if title(fake.messages[mid]).startswith("ZeroQuiz · Q")]


def title(message: dict[str, Any]) -> str:
    return str(message["embeds"][0]["title"])


async def test_the_starter_stops_the_run_and_someone_else_may_not(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    ana, budi = user(1, "Ana"), user(2, "Budi")
    started = await fake_discord.reply_to(await fake_discord.slash("start", {"count": 3}, who=ana))
    assert text_of(started) == "A run of 3 questions has started."
    [mid] = fake_discord.posted
    row = await latest_round(bot)
    ids = custom_ids(fake_discord.messages[mid])
    await fake_discord.reply_to(await fake_discord.click(mid, ids[right_option(bot, row)], budi))

    refused = await fake_discord.reply_to(await fake_discord.slash("stop", who=budi))
    assert refused["flags"] & EPHEMERAL
    assert text_of(refused) == "Only the person who started this run, or an admin, can stop it."
    assert fake_discord.messages[mid]["components"]  # still open

    stopped = await fake_discord.reply_to(await fake_discord.slash("stop", who=ana))
    assert stopped["flags"] & EPHEMERAL and text_of(stopped).startswith("Run stopped")
    await fake_discord.wait_for(lambda: fake_discord.messages[mid]["components"] == [])
    embed = fake_discord.messages[mid]["embeds"][0]
    assert any(line.startswith("✅") for line in embed["description"].splitlines())
    standings = fake_discord.messages[fake_discord.posted[-1]]
    assert title(standings) == "ZeroQuiz · Results of this run"
    assert "Budi" in str(standings["embeds"][0])

    await bots.clock.advance(20 * 60)  # twice the window
    await bot.runtime.scheduler.caught_up()
    assert questions(fake_discord) == [mid]  # no question 2/3
    none = await fake_discord.reply_to(await fake_discord.slash("stop", who=ana))
    assert text_of(none) == "No run is going in this channel."


async def test_manage_server_may_stop_someone_elses_run(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    await fake_discord.reply_to(await fake_discord.slash("start", {"count": 2}, who=user(1)))
    [mid] = fake_discord.posted
    stopped = await fake_discord.reply_to(
        await fake_discord.slash("stop", who=user(2), permissions=MANAGE_GUILD)
    )
    assert text_of(stopped).startswith("Run stopped")
    await fake_discord.wait_for(lambda: fake_discord.messages[mid]["components"] == [])
    standings = fake_discord.messages[fake_discord.posted[-1]]
    assert "Nobody scored in this run." in str(standings["embeds"][0])
    await bots.clock.advance(20 * 60)
    await bot.runtime.scheduler.caught_up()
    assert questions(fake_discord) == [mid]
