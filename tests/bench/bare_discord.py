"""The baseline for tests/bench/discord_load.py: a bare discord.py client, as a child process.

It answers every interaction (a click, a slash command) with one ephemeral message and does
nothing else: no database, no core, no command tree. It connects like ZeroQuiz does
(DISCORD_CONNECT_TO and DISCORD_CA_FILE through adapters/discord/redirect.py's connector,
DISCORD_TOKEN, only the `guilds` intent), logs `bare discord: ready` on stderr once connected,
and stops on SIGTERM.

With BARE_RECORD=PATH it is the floor of "acknowledged means recorded" instead (floor.py): before
answering it commits one row per click (the interaction's id and user), and answers only after
that commit.
Run by the bench: .venv/bin/python tests/bench/bare_discord.py
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import discord
from floor import Recorder

from adapters.discord.redirect import connector


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
