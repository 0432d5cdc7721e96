"""`zeroquiz serve` with Slack and Discord configured together: one process, one loop, one DB."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path
from urllib.parse import urlencode

import aiohttp
import fake_discord as fake_dc
from fake_discord import TOKEN, FakeDiscord
from fake_slack import (  # noqa: F401 - pytest fixtures
    BOT_TOKEN,
    SECRET,
    FakeSlack,
    fake_fixture,
    signed_headers,
    slash_payload,
)

endpoints, fake_discord = fake_dc.endpoints, fake_dc.fake_discord


async def test_slack_and_discord_share_one_serve_process(
    fake: FakeSlack, fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DISCORD_", "ZEROQUIZ_"))
    }
    env |= fake_discord.env | {
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": fake.api_url,
        "ZEROQUIZ_DB": str(tmp_path / "both.sqlite3"),
    }
    script = Path(sys.executable).parent / "zeroquiz"
    proc = await asyncio.create_subprocess_exec(
        str(script), "serve", "--port", "0", env=env, stderr=asyncio.subprocess.PIPE
    )
    assert proc.stderr is not None
    log = b""
    try:
        url = None
        while url is None:
            line = await asyncio.wait_for(proc.stderr.readline(), 30)
            assert line, log.decode()
            log += line
            found = re.search(rb"HTTP mode on (http://\S+)", line)
            url = found.group(1).decode() if found else None
        await fake_discord.wait_for(lambda: fake_discord.identifies == 1, timeout=30)

        body = urlencode(slash_payload("question", "U1", fake.response_url("both")))
        async with (
            aiohttp.ClientSession() as http,
            http.post(url, data=body.encode(), headers=signed_headers(body)) as response,
        ):
            assert response.status == 200
        await fake.reply("both")
        reply = await fake_discord.reply_to(await fake_discord.slash("question"), timeout=10)
        assert "Question posted." in reply["embeds"][0]["description"], log.decode()
        assert len(fake.calls_to("chat.postMessage")) == 1  # Slack's question, in Slack only
        assert len(fake_discord.posted) == 1  # Discord's question, in Discord only
    finally:
        proc.send_signal(signal.SIGTERM)
        rest = await asyncio.wait_for(proc.stderr.read(), 30)
        code = await proc.wait()
    log += rest
    assert code == 0, log.decode()
    for secret in (BOT_TOKEN, SECRET, TOKEN):
        assert secret.encode() not in log
