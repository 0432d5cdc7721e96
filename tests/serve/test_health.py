"""/healthz, /readyz and /metrics of a real `zeroquiz serve` child, its systemd notifications on
a real AF_UNIX datagram socket, and its JSON log lines."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from fake_discord import TOKEN, FakeDiscord, custom_ids, user
from fake_slack import BOT_TOKEN, SECRET, FakeSlack
from prometheus_client.parser import text_string_to_metric_families
from serve_process import (
    ROOT,
    START_TIMEOUT,
    Serve,
    click_body,
    discord_env,
    discord_ready,
    poll,
    slack_command,
    slack_env,
    slack_post,
    slack_question,
    start_serve,
)

from adapters.exitcodes import EX_CONFIG

HEALTH_AT = rb"health and metrics on (http://[0-9.]+:\d+)"
EVENTS_AT = rb"HTTP mode on (http://[0-9.]+:\d+)/slack/events"


async def health_url(serve: Serve) -> str:
    return (await serve.wait_for_log(HEALTH_AT)).group(1).decode()


async def get(http: aiohttp.ClientSession, url: str) -> tuple[int, str]:
    async with http.get(url) as response:
        return response.status, await response.text()


async def readiness(http: aiohttp.ClientSession, base: str) -> tuple[int, dict[str, Any]]:
    status, text = await get(http, base + "/readyz")
    body: dict[str, Any] = json.loads(text)
    return status, body


async def wait_ready(http: aiohttp.ClientSession, base: str, want: int) -> dict[str, Any]:
    """Poll /readyz (bounded) until it answers `want`; its body then."""
    seen: list[dict[str, Any]] = []

    async def check() -> bool:
        status, body = await readiness(http, base)
        seen.append(body)
        return status == want

    deadline = asyncio.get_running_loop().time() + START_TIMEOUT
    while not await check():
        assert asyncio.get_running_loop().time() < deadline, f"/readyz never {want}: {seen[-1]}"
        await asyncio.sleep(0.05)
    return seen[-1]


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a /metrics page by (name, sorted labels), parsed by Prometheus' parser."""
    found: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            found[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return found


@pytest.fixture
def notify_socket(tmp_path: Path) -> Iterator[socket.socket]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(tmp_path / "notify.sock"))
    sock.setblocking(False)
    yield sock
    sock.close()


async def notifications(sock: socket.socket, want: str) -> list[str]:
    """Datagrams received until one equals `want` (bounded wait)."""
    got: list[str] = []
    loop = asyncio.get_running_loop()
    while want not in got:
        data = await asyncio.wait_for(loop.sock_recv(sock, 4096), START_TIMEOUT)
        got.append(data.decode())
    return got


async def test_slack_http_mode_health_readiness_metrics_and_notify(
    fake: FakeSlack, tmp_path: Path, serves: list[Serve], notify_socket: socket.socket
) -> None:
    """Not ready while Slack's token check hangs, ready once it answers (READY=1 then), the
    routes on their own loopback listener and not beside /slack/events, and the counters moving
    after real clicks."""
    fake.holds["auth.test"] = 1  # the surface can't finish connecting until released
    env = slack_env(fake) | {
        "ZEROQUIZ_METRICS_PORT": "0",
        "NOTIFY_SOCKET": notify_socket.getsockname(),
    }
    serve = await start_serve(serves, tmp_path / "zq.sqlite3", env)
    base = await health_url(serve)
    async with aiohttp.ClientSession() as http:
        assert await get(http, base + "/healthz") == (200, "ok\n")
        status, body = await readiness(http, base)
        assert status == 503
        assert body["parts"] == {"slack": "not connected", "database": "ready"}
        notify_socket_empty = True
        try:
            notify_socket.recv(4096)
            notify_socket_empty = False
        except BlockingIOError:
            pass
        assert notify_socket_empty, "READY=1 was sent before Slack connected"

        fake.released.set()
        await wait_ready(http, base, 200)
        assert await notifications(notify_socket, "READY=1") == ["READY=1"]
        events = (await serve.wait_for_log(EVENTS_AT)).group(1).decode()
        for path in ("/healthz", "/readyz", "/metrics"):  # never on Slack's public listener
            assert (await get(http, events + path))[0] == 404
        assert base.startswith("http://127.0.0.1:")  # loopback unless ZEROQUIZ_METRICS_HOST

        slack = (("platform", "slack"),)
        before = samples((await get(http, base + "/metrics"))[1])
        assert before.get(("zeroquiz_clicks_total", slack), 0) == 0
        url = events + "/slack/events"
        await slack_command(fake, http, url, "question", "U1")
        await poll(lambda: fake.calls_to("chat.postMessage"), "the question posted", 30)
        ts, message, buttons = slack_question(fake)
        for who in ("U1", "U2"):
            assert (
                await slack_post(http, url, click_body(fake, ts, message, buttons[0], who)) == 200
            )
        # The same person again: a click, but no second answer recorded.
        assert await slack_post(http, url, click_body(fake, ts, message, buttons[1], "U1")) == 200

        after = samples((await get(http, base + "/metrics"))[1])
        assert after[("zeroquiz_clicks_total", slack)] == 3
        recorded = sum(
            v for (name, labels), v in after.items()
            if name == "zeroquiz_answers_recorded_total" and ("platform", "slack") in labels
        )  # fmt: skip
        assert recorded == 2
        assert after[("zeroquiz_verdict_seconds_count", slack)] == 3
        posted = (("action", "post"), ("platform", "slack"), ("result", "posted"))
        assert after[("zeroquiz_deliveries_total", posted)] == 1
        assert after[("zeroquiz_db_seconds_count", (("kind", "transaction"),))] > 0
        assert ("zeroquiz_scheduler_lag_seconds_count", ()) in after
    assert await serve.terminate() == 0, serve.text
    assert "STOPPING=1" in await notifications(notify_socket, "STOPPING=1")
    assert BOT_TOKEN not in serve.text and SECRET not in serve.text


async def test_discord_ready_after_connecting_and_not_after_it_is_lost(
    fake_discord: FakeDiscord, tmp_path: Path, serves: list[Serve]
) -> None:
    env = discord_env(fake_discord) | {"ZEROQUIZ_METRICS_PORT": "0"}
    serve = await start_serve(serves, tmp_path / "zq.sqlite3", env)
    base = await health_url(serve)
    async with aiohttp.ClientSession() as http:
        await discord_ready(fake_discord, serve, 1)
        body = await wait_ready(http, base, 200)
        assert body == {"ready": True, "parts": {"discord": "ready", "database": "ready"}}

        reply = await fake_discord.reply_to(await fake_discord.slash("question"), timeout=10)
        assert "Question posted." in reply["embeds"][0]["description"]
        message_id = fake_discord.posted[-1]
        first = custom_ids(fake_discord.messages[message_id])[0]
        await fake_discord.reply_to(await fake_discord.click(message_id, first, user(1)), 10)
        page = samples((await get(http, base + "/metrics"))[1])
        assert page[("zeroquiz_clicks_total", (("platform", "discord"),))] == 1

        await fake_discord.stop()  # Discord goes away: the gateway socket closes, no reconnect
        body = await wait_ready(http, base, 503)
        assert body["parts"]["discord"] == "not connected"
        assert body["parts"]["database"] == "ready"
        assert await get(http, base + "/healthz") == (200, "ok\n")  # alive all the same
    assert await serve.terminate() == 0, serve.text
    assert TOKEN not in serve.text


@pytest.mark.parametrize("value", ["http", "-1", "70000"])
async def test_a_bad_metrics_port_is_a_one_line_config_error(
    fake: FakeSlack, tmp_path: Path, serves: list[Serve], value: str
) -> None:
    env = slack_env(fake) | {"ZEROQUIZ_METRICS_PORT": value}
    serve = await start_serve(serves, tmp_path / "zq.sqlite3", env)
    assert await serve.exited() == EX_CONFIG
    assert serve.text.strip().splitlines() == [
        "zeroquiz: ZEROQUIZ_METRICS_PORT must be a port number (0-65535)"
    ]


async def test_json_logs_parse_line_by_line_and_hold_no_secret(
    fake: FakeSlack, tmp_path: Path, serves: list[Serve]
) -> None:
    """At DEBUG, where libraries say the most, every line is one JSON object without a token."""
    env = slack_env(fake) | {"ZEROQUIZ_LOG_FORMAT": "json", "PYTHONPATH": str(ROOT)}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "adapters.cli", "serve", "--db", str(tmp_path / "zq.sqlite3"),
        "--port", "0", "--log-level", "DEBUG",
        env=env, cwd=ROOT, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    serve = Serve(proc)
    serve.reader = asyncio.create_task(serve._read())
    serves.append(serve)
    events = (await serve.wait_for_log(EVENTS_AT)).group(1).decode()
    async with aiohttp.ClientSession() as http:
        await slack_command(fake, http, events + "/slack/events", "question", "U1")
    assert await serve.terminate() == 0, serve.text
    lines = serve.text.splitlines()
    records = [json.loads(line) for line in lines]  # each line parses on its own
    assert all({"time", "level", "logger", "message"} <= set(r) for r in records)
    assert any(re.search("HTTP mode on", r["message"]) for r in records)
    assert any(r["level"] == "DEBUG" for r in records)
    assert BOT_TOKEN not in serve.text and SECRET not in serve.text


def test_an_unknown_log_format_is_a_config_error(tmp_path: Path) -> None:
    import subprocess

    env = {"ZEROQUIZ_LOG_FORMAT": "xml", "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "adapters.cli", "serve", "--db", str(tmp_path / "x.sqlite3")],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert done.returncode == EX_CONFIG
    assert done.stderr.strip() == "zeroquiz: ZEROQUIZ_LOG_FORMAT must be text or json"
