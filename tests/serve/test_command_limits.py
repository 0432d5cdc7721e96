"""Limits against a real `zeroquiz serve` (Slack's HTTP mode, signed requests): a hundred
`/zeroquiz question` at once in one channel open one question, every one of them is answered
(one "posted", the rest told why not), the refusals are counted in /metrics by limit, a
replayed command (same trigger_id) is done once, and a bad limit value stops the start."""

from __future__ import annotations

import asyncio
import re
import sqlite3
from pathlib import Path
from urllib.parse import urlencode

import aiohttp
from fake_slack import FakeSlack, shown, slash_payload
from serve_process import BURST_TIMEOUT, Serve, slack_env, slack_post, start_serve
from test_health import health_url

from adapters.exitcodes import EX_CONFIG

COMMANDS = 100
LIMITED = re.compile(rb'^zeroquiz_limited_total\{limit="([a-z_]+)"\} ([0-9.]+)$', re.MULTILINE)


def rounds_in(db: Path) -> list[tuple[int, str]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute(
            "SELECT r.id, c.channel FROM rounds r JOIN channels c ON c.id = r.channel_id"
        ).fetchall()
    finally:
        conn.close()


def questions(fake: FakeSlack) -> list[str]:
    """The ts of every question message posted (one with answer buttons)."""
    return [
        ts
        for ts, message in fake.posted.items()
        if any(b["type"] == "actions" for b in message["blocks"])
    ]


async def test_a_hundred_questions_at_once_in_one_channel_open_one_and_all_are_answered(
    fake: FakeSlack, tmp_path: Path, serves: list[Serve]
) -> None:
    db = tmp_path / "limits.sqlite3"
    for n in range(COMMANDS):
        fake.add_user(f"UQ{n:03d}", f"Person {n}")
    # /metrics is on its own listener, not Slack's public one.
    serve = await start_serve(serves, db, slack_env(fake) | {"ZEROQUIZ_METRICS_PORT": "0"})
    url = await serve.http_url()
    keys = [fake.new_key() for _ in range(COMMANDS)]
    forms = [
        slash_payload("question", f"UQ{n:03d}", fake.response_url(key))
        for n, key in enumerate(keys)
    ]
    bodies = [urlencode(form) for form in forms]
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=BURST_TIMEOUT)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
        statuses = await asyncio.gather(*(slack_post(http, url, body) for body in bodies))
        assert statuses == [200] * COMMANDS
        replies = [shown((await fake.reply(key))["blocks"]) for key in keys]
        posted = [n for n, text in enumerate(replies) if text == "Question posted."]
        assert len(posted) == 1, replies
        refused = [text for text in replies if text != "Question posted."]
        assert all(
            text.startswith(("A question is already open", "This workspace is sending"))
            for text in refused
        ), refused
        assert len(questions(fake)) == 1 and len(rounds_in(db)) == 1

        # The very request that posted it, delivered again (Slack's own retry, a replay by a
        # proxy): the same trigger_id is carried out once.
        # (Its reply goes to a response_url of its own here, so the test can tell them apart.)
        again = fake.new_key()
        repeat = forms[posted[0]] | {"response_url": fake.response_url(again)}
        assert await slack_post(http, url, urlencode(repeat)) == 200
        assert shown((await fake.reply(again))["blocks"]) == "That command was carried out already."
        assert len(questions(fake)) == 1 and len(rounds_in(db)) == 1

        async with http.get(await health_url(serve) + "/metrics") as response:
            metrics = await response.read()
    counted = {name.decode(): float(value) for name, value in LIMITED.findall(metrics)}
    assert sum(counted.values()) == COMMANDS - 1, counted
    assert counted["channel_open_questions"] >= 1 and counted["team_daily_schedules"] == 0
    assert await serve.terminate() == 0, serve.text


async def test_a_bad_limit_value_stops_the_start_in_one_line(
    fake: FakeSlack, tmp_path: Path, serves: list[Serve]
) -> None:
    env = slack_env(fake) | {"ZEROQUIZ_LIMIT_PERSON_PER_MINUTE": "plenty"}
    serve = await start_serve(serves, tmp_path / "bad.sqlite3", env)
    assert await serve.exited() == EX_CONFIG
    assert serve.text.strip() == (
        "zeroquiz: ZEROQUIZ_LIMIT_PERSON_PER_MINUTE must be a number from 0 up (0: no limit)"
    )
    assert not (tmp_path / "bad.sqlite3").exists()  # refused before anything was opened
