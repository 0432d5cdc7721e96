"""`zeroquiz serve` with Slack and Discord configured together: one process, one loop, one DB."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlencode

import aiohttp
from fake_discord import TOKEN, FakeDiscord
from fake_slack import (
    BOT_TOKEN,
    SECRET,
    FakeSlack,
    signed_headers,
    slash_payload,
)
from serve_process import ZEROQUIZ, ServeProcess, clean_env


async def test_slack_and_discord_share_one_serve_process(
    fake: FakeSlack, fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    env = clean_env() | fake_discord.env
    env |= {
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": fake.api_url,
        "ZEROQUIZ_DB": str(tmp_path / "both.sqlite3"),
    }
    serve, url = await ServeProcess.start(ZEROQUIZ, "serve", "--port", "0", env=env)
    try:
        await fake_discord.wait_for(lambda: fake_discord.identifies == 1, timeout=30)

        body = urlencode(slash_payload("question", "U1", fake.response_url("both")))
        async with (
            aiohttp.ClientSession() as http,
            http.post(url, data=body.encode(), headers=signed_headers(body)) as response,
        ):
            assert response.status == 200
        await fake.reply("both")
        reply = await fake_discord.reply_to(await fake_discord.slash("question"), timeout=10)
        assert "Question posted." in reply["embeds"][0]["description"], serve.log.decode()
        assert len(fake.calls_to("chat.postMessage")) == 1  # Slack's question, in Slack only
        assert len(fake_discord.posted) == 1  # Discord's question, in Discord only
    finally:
        code = await serve.terminate()
    assert code == 0, serve.log.decode()
    for secret in (BOT_TOKEN, SECRET, TOKEN):
        assert secret.encode() not in serve.log
