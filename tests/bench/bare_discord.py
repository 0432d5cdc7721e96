"""The baseline for tests/bench/discord_load.py: a bare discord.py client, as a child process.

It answers every interaction (a click, a slash command) with one ephemeral message and does
nothing else: no database, no core, no command tree. It connects like ZeroQuiz does
(DISCORD_CONNECT_TO and DISCORD_CA_FILE through adapters/discord/redirect.py's connector,
DISCORD_TOKEN, only the `guilds` intent), logs `bare discord: ready` on stderr once connected,
and stops on SIGTERM.

With BARE_RECORD=PATH it is the floor of "acknowledged means recorded" instead: before answering
it commits one row per click (the interaction's id and user) to a SQLite file in WAL mode with
synchronous=FULL, as ZeroQuiz's database runs, in one trip to one writer thread (BEGIN, INSERT,
COMMIT and its fsync), and answers only after that commit. Nothing less can tell a platform "OK"
for a click durably, so ZeroQuiz's CPU per click can't go below this app's.
Run by the bench: .venv/bin/python tests/bench/bare_discord.py
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import sys
from concurrent.futures import ThreadPoolExecutor

import discord

from adapters.discord.redirect import connector


class Recorder:
    """One row per click, committed durably on one writer thread before the answer."""

    def __init__(self, path: str) -> None:
        self.writer = ThreadPoolExecutor(1, thread_name_prefix="record")
        self.conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.conn.execute("PRAGMA journal_mode = WAL").close()
        self.conn.execute("PRAGMA synchronous = FULL").close()
        self.conn.execute("CREATE TABLE IF NOT EXISTS clicks (id TEXT PRIMARY KEY, user TEXT)")

    def _commit(self, click: str, user: str) -> None:
        self.conn.execute("BEGIN IMMEDIATE").close()
        self.conn.execute("INSERT INTO clicks VALUES (?, ?)", (click, user)).close()
        self.conn.execute("COMMIT").close()

    async def record(self, click: str, user: str) -> None:
        await asyncio.get_running_loop().run_in_executor(self.writer, self._commit, click, user)


class Bare(discord.Client):
    recorder: Recorder | None = None

    async def on_ready(self) -> None:
        print("bare discord: ready", file=sys.stderr, flush=True)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        if self.recorder is not None and interaction.type is discord.InteractionType.component:
            await self.recorder.record(str(interaction.id), str(interaction.user.id))
        await interaction.response.send_message("Recorded.", ephemeral=True)


async def main() -> int:
    host, _, port = os.environ["DISCORD_CONNECT_TO"].rpartition(":")
    intents = discord.Intents.none()
    intents.guilds = True
    client = Bare(
        intents=intents,
        allowed_mentions=discord.AllowedMentions.none(),
        connector=connector((host, int(port)), os.environ["DISCORD_CA_FILE"]),
    )
    if os.environ.get("BARE_RECORD"):
        client.recorder = Recorder(os.environ["BARE_RECORD"])
        sys.setswitchinterval(0.0005)  # as `zeroquiz serve`: the writer waits less for the GIL
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    runner = asyncio.create_task(client.start(os.environ["DISCORD_TOKEN"]))
    stopped = asyncio.create_task(stop.wait())
    await asyncio.wait({runner, stopped}, return_when=asyncio.FIRST_COMPLETED)
    await client.close()
    runner.cancel()
    await asyncio.gather(runner, return_exceptions=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
