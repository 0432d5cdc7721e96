"""A surface lost for good after start-up ends `zeroquiz serve` with the "transient, restart me"
exit code (75), after a clean stop of the rest; bad configuration stays 78 ("don't restart").
systemd's unit restarts the first (Restart=on-failure) and not the second
(RestartPreventExitStatus=78)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fake_discord import FakeDiscord
from serve_process import Serve, discord_env, discord_ready, start_serve

from adapters.exitcodes import EX_CONFIG, EX_TEMPFAIL


async def test_a_discord_connection_lost_for_good_exits_75(
    fake_discord: FakeDiscord, tmp_path: Path, serves: list[Serve]
) -> None:
    serve = await start_serve(serves, tmp_path / "lost.sqlite3", discord_env(fake_discord))
    await discord_ready(fake_discord, serve, identifies=1)
    await fake_discord.close_gateway(4004)  # Authentication failed: discord.py gives up
    code = await asyncio.wait_for(serve.proc.wait(), 30)
    await asyncio.wait_for(serve.reader or asyncio.sleep(0), 30)
    assert code == EX_TEMPFAIL, serve.text
    assert "Traceback" not in serve.text
    assert "the Discord connection ended" in serve.text


async def test_a_rejected_token_at_start_exits_78(
    fake_discord: FakeDiscord, tmp_path: Path, serves: list[Serve]
) -> None:
    env = discord_env(fake_discord) | {"DISCORD_TOKEN": "MTIz.not.valid"}
    serve = await start_serve(serves, tmp_path / "bad.sqlite3", env)
    code = await asyncio.wait_for(serve.proc.wait(), 30)
    assert code == EX_CONFIG, serve.text
