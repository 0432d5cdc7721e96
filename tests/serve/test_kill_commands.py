"""Acknowledged means carried out, for commands: ten lives of `zeroquiz serve` (Slack over signed
HTTP and Discord over the fake gateway in one process, one SQLite file), each SIGKILLed at a
random moment while `/zeroquiz question` commands are in flight. A last process starts, and
then every command either platform saw acknowledged has ended as one posted question, and no
command has become two.

Slack: acknowledged = the command's HTTP request got 200; each command is typed in a channel of
its own, so its question is the one in that channel. Discord: acknowledged = the fake received
any answer to the interaction (its defer); the commands share the server's channel (the limit of
one open question per channel is off here: this is about acknowledgements), so every round in
the database must be shown in exactly one message and there must be a round for every
acknowledged command.

A kill between the platform taking the post and the bot saving that it did is the window where a
question could be shown twice: on Discord the post's nonce rules it out; on Slack the next start
finds the first message by the round's key in its metadata (docs/architecture.md, "Retries").
On both, one message per round is asserted.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import signal
import sqlite3
from pathlib import Path
from urllib.parse import urlencode

import aiohttp
from fake_discord import CHANNEL_ID, FakeDiscord, custom_ids
from fake_slack import FakeSlack, slash_payload
from serve_process import (
    BURST_TIMEOUT,
    Serve,
    discord_env,
    discord_ready,
    poll,
    slack_env,
    slack_post,
    start_serve,
)

CYCLES = 10
SLACK_PER_CYCLE = 3  # each in its own channel
WAIT = 20.0
ROUND_OF = re.compile(r"^zq:a:(\d+):")


def rounds_in(db: Path) -> list[tuple[int, str, str, bool]]:
    """(round id, platform, channel, posted) of every round in the database."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT r.id, t.platform, c.channel, r.posted_at IS NOT NULL FROM rounds r"
            " JOIN channels c ON c.id = r.channel_id JOIN teams t ON t.id = c.team_id"
        ).fetchall()
    finally:
        conn.close()
    return [(int(a), str(b), str(c), bool(d)) for a, b, c, d in rows]


def slack_questions(fake: FakeSlack) -> dict[str, list[int]]:
    """Channel -> the round of each question message posted there (by its buttons)."""
    found: dict[str, list[int]] = {}
    for message in fake.posted.values():
        for block in message["blocks"]:
            if block["type"] == "actions":
                round_id = int(block["elements"][0]["value"].split(":")[0])
                found.setdefault(str(message["channel"]), []).append(round_id)
    return found


def discord_questions(fake: FakeDiscord) -> list[int]:
    """The round of each question message posted on Discord."""
    found = []
    for mid in fake.posted:
        ids = custom_ids(fake.messages[mid])
        match = ROUND_OF.match(ids[0]) if ids else None
        if match:
            found.append(int(match.group(1)))
    return found


async def test_ten_sigkills_every_acknowledged_question_command_ends_as_one_posted_question(
    fake: FakeSlack, fake_discord: FakeDiscord, tmp_path: Path, serves: list[Serve]
) -> None:
    db = tmp_path / "commands.sqlite3"
    env = slack_env(fake) | discord_env(fake_discord)
    # The open-question limits are off: up to 30 Slack rounds stay open in one team, and the
    # team's default 25 would refuse the last commands (acknowledged, rightly, with no round).
    env |= {"ZEROQUIZ_LIMIT_CHANNEL_OPEN_QUESTIONS": "0", "ZEROQUIZ_LIMIT_TEAM_OPEN_ROUNDS": "0"}
    for n in range(SLACK_PER_CYCLE):
        fake.add_user(f"UK{n}", f"Typist {n}")
    # Slack shows a question 0.3 s before the bot hears so: kills land in that window often.
    fake.late["chat.postMessage"] = 0.3
    rng = random.Random(20261202)
    slack_acked: set[str] = set()  # channels whose command got its 200
    slack_sent: set[str] = set()
    discord_tokens: list[str] = []
    timeout = aiohttp.ClientTimeout(total=BURST_TIMEOUT)
    async with aiohttp.ClientSession(timeout=timeout) as http:
        for cycle in range(CYCLES):
            serve = await start_serve(serves, db, env)
            url = await serve.http_url()
            await discord_ready(fake_discord, serve, identifies=cycle + 1)

            async def slack_command(channel: str, who: str, url: str = url) -> None:
                key = fake.new_key()
                body = urlencode(slash_payload("question", who, fake.response_url(key), channel))
                slack_sent.add(channel)
                with contextlib.suppress(aiohttp.ClientError, TimeoutError):
                    if await slack_post(http, url, body) == 200:
                        slack_acked.add(channel)

            async def discord_command() -> None:
                with contextlib.suppress(AssertionError, ConnectionError):
                    discord_tokens.append(await fake_discord.slash("question"))

            commands = [
                asyncio.create_task(slack_command(f"CK{cycle:02d}{n}", f"UK{n}"))
                for n in range(SLACK_PER_CYCLE)
            ]
            commands.append(asyncio.create_task(discord_command()))
            await asyncio.sleep(rng.uniform(0.0, 0.6))  # the random moment
            assert await serve.kill() == -signal.SIGKILL
            await asyncio.wait_for(asyncio.gather(*commands), WAIT)
            await asyncio.sleep(0.05)  # callbacks already on their way are read by the fakes

        discord_acked = [t for t in discord_tokens if fake_discord.responses.get(t)]
        last = await start_serve(serves, db, env)
        await last.http_url()
        await discord_ready(fake_discord, last, identifies=CYCLES + 1)

        def all_posted() -> bool:
            rows = rounds_in(db)
            shown = {r for rounds in slack_questions(fake).values() for r in rounds}
            shown |= set(discord_questions(fake_discord))
            return bool(rows) and all(posted and rid in shown for rid, _, _, posted in rows)

        await poll(all_posted, "every opened round posted", WAIT)
        assert await last.terminate() == 0, last.text

    rows = rounds_in(db)
    by_channel: dict[str, list[int]] = {}
    for round_id, platform, channel, _ in rows:
        if platform == "slack":
            by_channel.setdefault(channel, []).append(round_id)
    shown = slack_questions(fake)
    for channel in slack_acked:  # one round, shown in one message
        assert len(by_channel.get(channel, [])) == 1, f"{channel}: rounds {by_channel.get(channel)}"
        assert set(shown.get(channel, [])) == set(by_channel[channel]), channel
    for channel in slack_sent - slack_acked:  # cut off: carried out or not, never twice
        assert len(by_channel.get(channel, [])) <= 1, channel
    twice = sorted(c for c, rounds in shown.items() if len(rounds) > 1)
    assert twice == [], f"questions shown twice on Slack: {twice}"

    discord_rounds = [rid for rid, platform, channel, _ in rows if platform == "discord"]
    assert all(channel == str(CHANNEL_ID) for _, p, channel, _ in rows if p == "discord")
    on_screen = discord_questions(fake_discord)
    assert sorted(on_screen) == sorted(discord_rounds), "a Discord round not shown exactly once"
    assert len(discord_rounds) >= len(discord_acked), "an acknowledged command was lost"
    assert len(discord_rounds) <= len(discord_tokens)  # none done twice
    assert 0 < len(slack_acked) < len(slack_sent) or 0 < len(discord_acked) < CYCLES, (
        "no kill landed mid-way"
    )
    print(
        f"\n{CYCLES} kills: Slack {len(slack_acked)} of {len(slack_sent)} commands acknowledged, "
        f"{len(by_channel)} questions, {len(fake.calls_to('conversations.history'))} looked "
        "for after a kill; "
        f"Discord {len(discord_acked)} of {len(discord_tokens)} acknowledged, "
        f"{len(discord_rounds)} questions"
    )
