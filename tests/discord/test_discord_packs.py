"""A team's question packs from Discord: the real discord.py client against the fake gateway.
An admin attaches a one-language pack to `/zeroquiz pack action:add`, sets the channel to the
team's packs, and the next `/zeroquiz question` posts one of its questions; another server served
by the same process never sees it; a non-admin is refused; a broken file is answered with its
lines and stores nothing; a modal submit adds one question."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fake_discord import (
    CHANNEL_B_ID,
    EPHEMERAL,
    GUILD_B_ID,
    GUILD_ID,
    MANAGE_GUILD,
    BotFactory,
    FakeDiscord,
    text_of,
)
from pack_cases import big_pack, zeroquiz_pack

from bot.bank.packs import check_pack
from bot.model import TeamRef

PACK = b"""\
language: en
questions:
  - id: nodes
    prompt: "How many GPUs does one node of our cluster hold?"
    options:
      - "4"
      - text: "8"
        correct: true
    explanation: "Every node of our cluster has 8 GPUs."
"""


async def test_an_attached_pack_is_asked_in_its_server_only(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    token = await fake_discord.slash_with_file(
        "pack", {"action": "add"}, "file", "our-cluster.yaml", PACK, permissions=MANAGE_GUILD
    )
    assert "Pack `our-cluster` saved as version 1" in text_of(await fake_discord.reply_to(token))
    token = await fake_discord.slash("questions", {"source": "team"}, permissions=MANAGE_GUILD)
    assert "team" in text_of(await fake_discord.reply_to(token))
    token = await fake_discord.slash("question")
    await fake_discord.reply_to(token)
    await fake_discord.wait_for(lambda: len(fake_discord.posted) == 1)
    message = fake_discord.messages[fake_discord.posted[-1]]
    assert "How many GPUs does one node of our cluster hold?" in str(message["embeds"])
    # The other server, set to its own packs (it has none): never ours.
    token = await fake_discord.slash(
        "questions", {"source": "team"}, permissions=MANAGE_GUILD, guild=GUILD_B_ID
    )
    await fake_discord.reply_to(token)
    token = await fake_discord.slash("question", guild=GUILD_B_ID)
    await fake_discord.reply_to(token)
    await fake_discord.wait_for(lambda: len(fake_discord.posted) == 2)
    theirs = fake_discord.messages[fake_discord.posted[-1]]
    assert theirs["channel_id"] == str(CHANNEL_B_ID)
    assert "our cluster" not in str(theirs["embeds"])
    packs = bot.runtime.store.packs
    assert await packs.list(TeamRef("discord", str(GUILD_B_ID))) == []


async def test_a_non_admin_is_refused_and_a_broken_file_stores_nothing(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    token = await fake_discord.slash_with_file("pack", {"action": "add"}, "file", "ours.yaml", PACK)
    assert "Only admins" in text_of(await fake_discord.reply_to(token))
    broken = PACK.replace(b"correct: true", b"correct: maybe")
    token = await fake_discord.slash_with_file(
        "pack", {"action": "add"}, "file", "ours.yaml", broken, permissions=MANAGE_GUILD
    )
    text = text_of(await fake_discord.reply_to(token))
    assert "Pack not saved: 2 problem(s)" in text
    assert "ours.yaml:8: 'correct' must be true or false" in text
    assert "ours.yaml:6: question 'nodes' has 0 options marked correct" in text
    assert await bot.runtime.store.packs.list(TeamRef("discord", str(GUILD_ID))) == []
    token = await fake_discord.slash("pack", {"action": "list"}, permissions=MANAGE_GUILD)
    assert "no packs yet" in text_of(await fake_discord.reply_to(token))


async def test_a_modal_submit_adds_one_question(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    await bots.start()
    refused = await fake_discord.slash("pack", {"action": "question"})
    assert "Only admins" in text_of(await fake_discord.reply_to(refused))
    token = await fake_discord.slash("pack", {"action": "question"}, permissions=MANAGE_GUILD)
    await fake_discord.wait_for(lambda: fake_discord.responses.get(token))
    modal = fake_discord.modal_of(token)
    values = {
        "pack": "from-chat",
        "prompt": "Which stage shards the parameters?",
        "options": "Stage 1\n*Stage 3",
        "explanation": "Only stage 3 shards the parameters.",
    }
    submitted = await fake_discord.submit_modal(modal, values, permissions=MANAGE_GUILD)
    reply = await fake_discord.reply_to(submitted)
    assert "Pack `from-chat` saved as version 1: 1 question(s)" in text_of(reply)
    token = await fake_discord.slash(
        "pack", {"action": "export", "name": "from-chat"}, permissions=MANAGE_GUILD
    )
    assert "Which stage shards the parameters?" in text_of(await fake_discord.reply_to(token))
    [(name, data)] = await fake_discord.attachments_of(token)  # and the file, whole
    assert name == "from-chat.yaml" and b"Which stage shards the parameters?" in data


async def test_a_long_pack_is_exported_whole_as_a_private_attachment(
    bots: BotFactory, fake_discord: FakeDiscord, db_path: Path
) -> None:
    """Sixty questions, far more than a message holds: the private reply carries the YAML as
    a file, byte for byte what was attached and what `zeroquiz pack export` prints."""
    await bots.start()
    body = big_pack(60).encode()
    token = await fake_discord.slash_with_file(
        "pack", {"action": "add"}, "file", "runbook.yaml", body, permissions=MANAGE_GUILD
    )
    assert "saved as version 1: 60 question(s)" in text_of(await fake_discord.reply_to(token))
    token = await fake_discord.slash(
        "pack", {"action": "export", "name": "runbook"}, permissions=MANAGE_GUILD
    )
    reply = await fake_discord.reply_to(token)
    assert reply["flags"] & EPHEMERAL
    text = text_of(reply)
    assert "Pack `runbook`, version 1:" in text and "```" not in text
    assert "attached as `runbook.yaml`" in text
    assert await fake_discord.attachments_of(token) == [("runbook.yaml", body)]
    team = ("--platform", "discord", "--team", str(GUILD_ID))
    # The operator's terminal beside the running bot, whose loop goes on meanwhile.
    printed = await asyncio.to_thread(
        zeroquiz_pack, "export", "runbook", "--db", str(db_path), *team
    )
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout.encode() == body
    assert check_pack(body.decode(), "runbook.yaml").size == 60
