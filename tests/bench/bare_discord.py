"""The baseline for tests/bench/discord_load.py: a bare discord.py client, as a child process.

It answers every interaction (a click, a slash command) with one ephemeral message and does
nothing else: no database, no core, no command tree, no DynamicItem. It connects like ZeroQuiz does
(REST at DISCORD_API_URL, the gateway at DISCORD_GATEWAY_URL, DISCORD_TOKEN, only the `guilds`
intent), logs `bare discord: ready` on stderr once connected, and stops on SIGTERM.
Run by the bench: .venv/bin/python tests/bench/bare_discord.py
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import discord
import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route


class Bare(discord.Client):
    async def on_ready(self) -> None:
        print("bare discord: ready", file=sys.stderr, flush=True)

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("Recorded.", ephemeral=True)


async def main() -> int:
    Route.BASE = os.environ["DISCORD_API_URL"].rstrip("/")
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["DISCORD_GATEWAY_URL"])
    intents = discord.Intents.none()
    intents.guilds = True
    client = Bare(intents=intents, allowed_mentions=discord.AllowedMentions.none())
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
