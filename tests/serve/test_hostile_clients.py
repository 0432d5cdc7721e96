"""A real `zeroquiz serve` in Slack's HTTP mode against hostile clients on real sockets: idle
connections, slow bodies, malformed requests, clients that leave mid-body, an install flood;
meanwhile a person's signed click is still answered within a second, the process stays under
its connection cap, the database doesn't grow, and its log holds no ERROR and no traceback."""

from __future__ import annotations

import asyncio
import re
import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp
import pytest
from fake_slack import TEAM, FakeSlack
from flood import (
    click_seconds,
    close_all,
    connect_many,
    exchange,
    install_flood,
    malformed_requests,
    open_files,
    raise_file_limit,
    slow_bodies,
)
from helpers import scrape
from serve_process import (
    Serve,
    clean_env,
    poll,
    slack_command,
    slack_env,
    start_serve,
)
from test_health import HEALTH_AT

from adapters.exitcodes import EX_CONFIG
from adapters.front import DEFAULT_MAX_CONNECTIONS, RESERVED_FILES, Gate
from adapters.slack.surface import INSTALL_PATH

IDLE, SLOW = 2000, 200


async def scraped(health: str, key: tuple[str, tuple[tuple[str, str], ...]], want: float) -> bool:
    return (await scrape(health + "/metrics")).get(key) == want


async def poll_async(check: Callable[[], Awaitable[bool]], what: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


def quiet(serve: Serve) -> None:
    assert not re.search(r"\b(ERROR|CRITICAL)\b|Traceback", serve.text), serve.text


async def ask_question(fake: FakeSlack, http: aiohttp.ClientSession, url: str) -> None:
    await slack_command(fake, http, url, "question", "U1")
    await poll(lambda: fake.calls_to("chat.postMessage"), "the question posted", 30)


async def test_idle_connections_and_slow_bodies_leave_a_click_answered_within_a_second(
    fake: FakeSlack, tmp_path: Path, serves: list[Serve]
) -> None:
    if raise_file_limit(IDLE + SLOW + 500) < IDLE + SLOW + 500:
        pytest.skip("this machine's hard open-file limit is too low for the flood")
    serve = await start_serve(serves, tmp_path / "zq.sqlite3", slack_env(fake))
    url = await serve.http_url()
    async with aiohttp.ClientSession() as http:
        await ask_question(fake, http, url)
        unloaded = await click_seconds(http, fake, url, "U1")
        idle = await connect_many(url, IDLE)
        slow = await slow_bodies(url, SLOW)
        try:
            loaded = [await click_seconds(http, fake, url, f"U{n}") for n in range(100, 105)]
            assert max(loaded) < 1.0, (unloaded, loaded)
            assert (await fake.reply("U104"))["response_type"] == "ephemeral"  # its verdict
            # Under its cap: the idle connections made room for the slow ones and the clicks.
            pid = serve.proc.pid
            await poll(
                lambda: open_files(pid) <= DEFAULT_MAX_CONNECTIONS + RESERVED_FILES,
                "the child's open files under its cap and reserve",
                10,
            )
            for what, raw in malformed_requests(url):
                answer = await exchange(url, raw)
                assert answer == b"" or re.match(rb"HTTP/1\.[01] 4\d\d ", answer), (what, answer)
            for _ in range(20):  # clients that leave mid-body
                head = b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n"
                await exchange(url, head + b"payload=", drop=True)
            assert await click_seconds(http, fake, url, "U200") < 1.0
        finally:
            close_all(idle + slow)
    assert await serve.terminate() == 0, serve.text
    quiet(serve)


async def test_each_limit_holds_as_configured(
    fake: FakeSlack, tmp_path: Path, serves: list[Serve]
) -> None:
    """A small cap, short timeouts: over the cap with every connection inside a request, a 503
    at once; a head that never ends and a kept-alive idle connection are closed; a body that
    never ends gets 408."""
    env = slack_env(fake) | {
        "ZEROQUIZ_HTTP_MAX_CONNECTIONS": "20",
        "ZEROQUIZ_HTTP_HEADER_TIMEOUT": "0.5",
        "ZEROQUIZ_HTTP_BODY_TIMEOUT": "3",
        "ZEROQUIZ_HTTP_IDLE_TIMEOUT": "0.5",
        "ZEROQUIZ_METRICS_PORT": "0",
    }
    serve = await start_serve(serves, tmp_path / "zq.sqlite3", env)
    url = await serve.http_url()
    health = (await serve.wait_for_log(HEALTH_AT)).group(1).decode()
    slow = await slow_bodies(url, 20)
    try:
        in_request = ("zeroquiz_http_connections", (("listener", "slack"), ("state", "in_request")))
        await poll_async(
            lambda: scraped(health, in_request, 20), "20 slow bodies inside their requests"
        )
        started = time.monotonic()
        refused = await exchange(url, b"GET /slack/events HTTP/1.1\r\nHost: x\r\n\r\n", wait=2)
        assert refused.startswith(b"HTTP/1.1 503 "), refused
        assert time.monotonic() - started < 1.0
        loop = asyncio.get_running_loop()
        answers = await asyncio.wait_for(
            asyncio.gather(*(loop.sock_recv(s, 4096) for s in slow)), 10
        )
        assert all(a.startswith(b"HTTP/1.1 408 ") for a in answers), answers[:3]
    finally:
        close_all(slow)
    started = time.monotonic()
    assert await exchange(url, b"GET /slack/events HTTP/1.1\r\nHost", wait=5) == b""
    assert time.monotonic() - started < 3.0  # closed by the server, well before `wait`
    started = time.monotonic()
    kept = await exchange(url, b"GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n", wait=5)
    assert kept.startswith(b"HTTP/1.1 404 ") and time.monotonic() - started < 3.0
    assert await serve.terminate() == 0, serve.text
    quiet(serve)


@pytest.mark.parametrize(
    ("name", "value", "line"),
    [
        ("ZEROQUIZ_HTTP_MAX_CONNECTIONS", "many", "must be a whole number from 1"),
        ("ZEROQUIZ_HTTP_MAX_CONNECTIONS", "999999999", "must be a whole number from 1"),
        ("ZEROQUIZ_HTTP_HEADER_TIMEOUT", "0", "must be a number of seconds from 0.1 to 3600"),
        ("ZEROQUIZ_HTTP_BODY_TIMEOUT", "soon", "must be a number of seconds from 0.1 to 3600"),
    ],
)
async def test_a_bad_limit_stops_start_up_with_one_line(
    fake: FakeSlack, tmp_path: Path, serves: list[Serve], name: str, value: str, line: str
) -> None:
    serve = await start_serve(serves, tmp_path / "zq.sqlite3", slack_env(fake) | {name: value})
    assert await serve.exited() == EX_CONFIG
    assert serve.text.strip().splitlines() == [f"zeroquiz: {name} {line}"]


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def database_bytes(db: Path) -> int:
    return sum(p.stat().st_size for p in db.parent.glob(db.name + "*") if p.is_file())


def states(db: Path) -> int:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT COUNT(*) FROM oauth_states").fetchone()[0])
    finally:
        conn.close()


async def test_an_install_flood_writes_nothing_and_leaves_clicks_as_fast(
    fake: FakeSlack, tmp_path: Path, serves: list[Serve]
) -> None:
    from fake_slack import oauth_env

    db = tmp_path / "zq.sqlite3"
    serve = await start_serve(serves, db, clean_env() | oauth_env(fake))
    url = await serve.http_url()
    base = url.removesuffix("/slack/events")
    async with aiohttp.ClientSession() as http:
        async with http.get(base + "/slack/install") as page:
            state = re.search(r"state=([A-Za-z0-9_\-]+)", await page.text())
            cookie = page.headers["Set-Cookie"].split(";", 1)[0]
        assert state is not None
        params = {"code": fake.approve(TEAM), "state": state.group(1)}
        async with http.get(
            base + "/slack/oauth_redirect", params=params, headers={"Cookie": cookie}
        ) as done:
            assert done.status == 200
        await ask_question(fake, http, url)
        before = sorted([await click_seconds(http, fake, url, f"U{n}") for n in range(10, 30)])
        size = database_bytes(db)

        answered = await install_flood(url, 10_000)
        # Every GET answered: the page, or (beyond the few handled at once and the queue behind
        # them) 429 at once.
        assert set(answered) <= {200, 429} and answered.total() == 10_000, answered
        # At least the install gate's burst got the page, each page a freshly signed state (how
        # many more depends on how long the flood lasts: 20 a second on top).
        assert answered[200] >= Gate((INSTALL_PATH,)).burst, answered
        assert states(db) == 1  # the one install's state; none for the flood
        # Within a few kB: the display names of the clicks just before are stored in the
        # background (a WAL page or two); before, each GET committed a row (34 MiB in 15 s).
        assert database_bytes(db) - size <= 16 * 1024
        after = sorted([await click_seconds(http, fake, url, f"U{n}") for n in range(30, 50)])
    assert median(after) <= 3 * median(before) + 0.05, (before, after)
    assert await serve.terminate() == 0, serve.text
    quiet(serve)
