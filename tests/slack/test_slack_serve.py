"""`zeroquiz serve` as an admin runs it: Slack from the environment, stopped by SIGTERM."""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import urlencode

import aiohttp
from fake_slack import BOT_TOKEN, SECRET, FakeSlack, signed_headers, slash_payload
from serve_process import ROOT, ServeProcess, clean_env


async def test_serve_runs_slack_in_http_mode_and_exits_cleanly_on_sigterm(
    fake: FakeSlack, tmp_path: Path
) -> None:
    env = clean_env() | {
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": fake.api_url,
        "PYTHONPATH": str(ROOT),
    }
    db = str(tmp_path / "q.sqlite3")
    serve, url = await ServeProcess.start(
        sys.executable, "-m", "adapters.cli", "serve", "--db", db, "--port", "0", env=env
    )
    try:
        body = urlencode(slash_payload("question", "U1", fake.response_url("serve")))
        async with (
            aiohttp.ClientSession() as http,
            http.post(url, data=body.encode(), headers=signed_headers(body)) as response,
        ):
            assert response.status == 200
        reply = await fake.reply("serve")
        assert reply["response_type"] == "ephemeral"
        assert len(fake.calls_to("chat.postMessage")) == 1
    finally:
        code = await serve.terminate()
    assert code == 0, serve.log.decode()
    for secret in (BOT_TOKEN, SECRET):
        assert secret.encode() not in serve.log
