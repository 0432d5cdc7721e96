"""`zeroquiz serve` as an admin runs it: Slack from the environment, stopped by SIGTERM."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from pathlib import Path
from urllib.parse import urlencode

import aiohttp
from fake_slack import BOT_TOKEN, SECRET, FakeSlack, fake_fixture, signed_headers, slash_payload  # noqa: F401

ROOT = Path(__file__).resolve().parent.parent


async def test_serve_runs_slack_in_http_mode_and_exits_cleanly_on_sigterm(
    fake: FakeSlack, tmp_path: Path
) -> None:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DISCORD_", "ZEROQUIZ_"))
    }
    env.update(
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_API_URL=fake.api_url,
        PYTHONPATH=str(ROOT),
    )
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "adapters.cli", "serve", "--db", str(tmp_path / "q.sqlite3"),
        "--port", "0", env=env, cwd=ROOT, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
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
        proc.send_signal(signal.SIGTERM)
        rest = await asyncio.wait_for(proc.stderr.read(), 30)
        code = await proc.wait()
    log += rest
    assert code == 0, log.decode()
    for secret in (BOT_TOKEN, SECRET):
        assert secret.encode() not in log
