"""Acknowledged means recorded, across a SIGKILL of `zeroquiz serve` in the middle of a burst.

A real `zeroquiz serve` child (the working tree's code, run as `python -m adapters.cli`) takes 300
concurrent clicks from 300 different people and is SIGKILLed once the first acknowledgements are
back, while the rest are still in flight. A second `zeroquiz serve` on the same SQLite file then
closes the question. Every click the platform saw acknowledged must be in the reveal's total and
have its answer row in the database; nothing may be counted twice.

Slack: acknowledged = the click's HTTP request got 200. Discord: acknowledged = the fake Discord
received the interaction callback for that click.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import signal
import sqlite3
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import aiohttp
import pytest
from fake_discord import MANAGE_GUILD, FakeDiscord, custom_ids, user
from fake_slack import (
    BOT_TOKEN,
    SECRET,
    FakeSlack,
    click_payload,
    shown,
    signed_headers,
    slash_payload,
)
from serve_process import ROOT, clean_env

PEOPLE = 300  # clicks in the burst, one per person
KILL_AFTER = 60  # acknowledgements seen before the SIGKILL
WAVE = 10  # Discord clicks sent back to back before a short pause
START_TIMEOUT = 30.0
BURST_TIMEOUT = 30.0
STOP_TIMEOUT = 30.0
REVEAL_TIMEOUT = 15.0
SUMMARY = re.compile(r"(\d+) of (\d+) answered right")
NOBODY = "Nobody answered this one."


# -- `zeroquiz serve` as a child process ----------------------------------------------------------
@dataclass
class Serve:
    """One `zeroquiz serve` child; its stderr is read all along, so a chatty log never blocks it."""

    proc: asyncio.subprocess.Process
    log: bytearray = field(default_factory=bytearray)
    grew: asyncio.Event = field(default_factory=asyncio.Event)
    reader: asyncio.Task[None] | None = None

    @classmethod
    async def start(cls, db: Path, env: dict[str, str]) -> Serve:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "adapters.cli", "serve", "--db", str(db), "--port", "0",
            env=env | {"PYTHONPATH": str(ROOT)}, cwd=ROOT,
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        serve = cls(proc)
        serve.reader = asyncio.create_task(serve._read())
        return serve

    async def _read(self) -> None:
        assert self.proc.stderr is not None
        while chunk := await self.proc.stderr.read(65536):
            self.log += chunk
            self.grew.set()
        self.grew.set()

    @property
    def text(self) -> str:
        return self.log.decode(errors="replace")

    async def wait_for_log(self, pattern: bytes, timeout: float = START_TIMEOUT) -> re.Match[bytes]:
        """The first match of `pattern` in the log, waiting for it with a deadline."""
        deadline = time.monotonic() + timeout
        while True:
            self.grew.clear()
            if found := re.search(pattern, self.log):
                return found
            assert self.reader is not None
            if self.reader.done():
                raise AssertionError(f"serve ended before logging {pattern!r}:\n{self.text}")
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"serve did not log {pattern!r} in {timeout} s:\n{self.text}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.grew.wait(), left)

    async def http_url(self) -> str:
        return (await self.wait_for_log(rb"HTTP mode on (http://\S+)")).group(1).decode()

    async def _ended(self) -> int:
        code = await asyncio.wait_for(self.proc.wait(), STOP_TIMEOUT)
        if self.reader is not None:
            await asyncio.wait_for(self.reader, STOP_TIMEOUT)
        return code

    async def kill(self) -> int:
        self.proc.send_signal(signal.SIGKILL)
        return await self._ended()

    async def terminate(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        return await self._ended()

    async def ensure_stopped(self) -> None:
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGKILL)
            await asyncio.wait_for(self.proc.wait(), STOP_TIMEOUT)
        if self.reader is not None and not self.reader.done():
            self.reader.cancel()


@pytest.fixture
async def serves() -> AsyncIterator[list[Serve]]:
    """Children started by the test; any still running at teardown is SIGKILLed (by its own pid)."""
    started: list[Serve] = []
    yield started
    for serve in started:
        await serve.ensure_stopped()


async def start_serve(serves: list[Serve], db: Path, env: dict[str, str]) -> Serve:
    serve = await Serve.start(db, env)
    serves.append(serve)
    return serve


# -- what the database and the reveal say ---------------------------------------------------------
def answered_users(db: Path, round_id: int, people: Collection[str]) -> tuple[set[str], int]:
    """(people with an answer row in the round, answer rows in the round), read-only.

    The players table is matched by value, not by column name, so a renamed user column still works.
    """
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT players.* FROM answers JOIN players ON players.id = answers.player_id"
            " WHERE answers.round_id = ?",
            (round_id,),
        ).fetchall()
    finally:
        conn.close()
    values = {str(value) for row in rows for value in row}
    return {p for p in people if p in values}, len(rows)


def reveal_total(text: str) -> int:
    """The number of answers a reveal reports ("R of N answered right", or nobody)."""
    if NOBODY in text:
        return 0
    found = SUMMARY.search(text)
    assert found is not None, f"no answer summary in the reveal:\n{text}"
    return int(found.group(2))


async def poll(check: Callable[[], Any], what: str, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while not (result := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.01)
    return result


async def wait_or_fail(event: Awaitable[Any], what: str, serve: Serve) -> None:
    try:
        await asyncio.wait_for(event, BURST_TIMEOUT)
    except TimeoutError:
        raise AssertionError(f"timed out waiting for {what}:\n{serve.text}") from None


def check_counts(
    platform: str, acked: set[str], unfinished: int, total: int, recorded: set[str], rows: int
) -> None:
    """Every acknowledged click is counted, once; `unfinished`: clicks cut off by the kill."""
    lost = sorted(acked - recorded)
    report = (
        f"{platform}: {len(acked)} of {PEOPLE} clicks acknowledged before the SIGKILL "
        f"({unfinished} cut off by it); the reveal counts {total}; the database has {rows} "
        f"answer rows in the round; {len(lost)} acknowledged clicks are not recorded"
    )
    print(f"\n{report}")
    mid_burst = 0 < len(acked) < PEOPLE and unfinished > 0
    assert mid_burst, f"the kill did not land mid-burst: {report}"
    assert total <= PEOPLE and rows <= PEOPLE, f"an answer was counted twice: {report}"
    assert not lost, f"acknowledged but not recorded: {report}; e.g. {lost[:5]}"
    assert total >= len(acked), f"the reveal misses acknowledged clicks: {report}"
    assert total == rows, f"the reveal and the database disagree: {report}"


# -- Slack ----------------------------------------------------------------------------------------
def slack_env(fake: FakeSlack) -> dict[str, str]:
    return clean_env() | {
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": fake.api_url,
    }


async def slack_post(http: aiohttp.ClientSession, url: str, body: str) -> int:
    async with http.post(url, data=body.encode(), headers=signed_headers(body)) as response:
        await response.read()
        return response.status


async def slack_command(
    fake: FakeSlack, http: aiohttp.ClientSession, url: str, text: str, who: str
) -> str:
    """`/zeroquiz text` by `who`; the text of the private reply."""
    key = fake.new_key()
    body = urlencode(slash_payload(text, who, fake.response_url(key)))
    assert await slack_post(http, url, body) == 200
    return shown((await fake.reply(key))["blocks"])


def slack_question(fake: FakeSlack) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    """The question in the channel, as first posted: (ts, message, its buttons)."""
    for ts, message in reversed(fake.posted.items()):
        for block in message["blocks"]:
            if block["type"] == "actions":
                return ts, message, block["elements"]
    raise AssertionError("no question was posted")


def click_body(
    fake: FakeSlack, ts: str, message: dict[str, Any], button: dict[str, Any], person: str
) -> str:
    payload = click_payload(ts, message, button, person, fake.response_url(person))
    return "payload=" + quote(json.dumps(payload))


def slack_reveal(fake: FakeSlack, ts: str) -> str | None:
    """The text of the reveal (the question's edit that has no buttons left), once sent."""
    for call in fake.calls_to("chat.update"):
        blocks = call.args.get("blocks") or []
        if call.args.get("ts") == ts and all(b["type"] != "actions" for b in blocks):
            return shown(blocks)
    return None


async def test_slack_clicks_acknowledged_before_a_sigkill_are_all_counted(
    fake: FakeSlack, tmp_path: Path, serves: list[Serve]
) -> None:
    db = tmp_path / "burst.sqlite3"
    people = [f"UP{i:03d}" for i in range(PEOPLE)]
    for i, person in enumerate(people):
        fake.add_user(person, f"Player {i}")
    first = await start_serve(serves, db, slack_env(fake))
    url = await first.http_url()
    connector = aiohttp.TCPConnector(limit=0)  # all 300 requests at once, not 100 at a time
    timeout = aiohttp.ClientTimeout(total=BURST_TIMEOUT)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
        posted = await slack_command(fake, http, url, "question", "UADMIN")
        assert "Question posted." in posted, posted
        ts, message, buttons = slack_question(fake)
        round_id = int(buttons[0]["value"].split(":")[0])
        bodies = {  # signed at send time; each person replies on a response_url of their own
            person: click_body(fake, ts, message, buttons[i % len(buttons)], person)
            for i, person in enumerate(people)
        }

        acked: set[str] = set()
        unfinished: set[str] = set()
        statuses: dict[str, int] = {}
        enough = asyncio.Event()

        async def click(person: str) -> None:
            try:
                statuses[person] = await slack_post(http, url, bodies[person])
            except (aiohttp.ClientError, TimeoutError):
                unfinished.add(person)  # cut by the kill, or never connected
                return
            if statuses[person] == 200:
                acked.add(person)
                if len(acked) >= KILL_AFTER:
                    enough.set()

        burst = [asyncio.create_task(click(person)) for person in people]
        await wait_or_fail(enough.wait(), "the first acknowledgements", first)
        assert await first.kill() == -signal.SIGKILL
        await asyncio.wait_for(asyncio.gather(*burst), BURST_TIMEOUT)
        refused = {p: s for p, s in statuses.items() if s != 200}
        assert not refused, f"clicks answered with an error status: {refused}"

        second = await start_serve(serves, db, slack_env(fake))
        url = await second.http_url()
        closed = await slack_command(fake, http, url, "close", "UADMIN")  # admin per users.info
        assert "Closed the open question." in closed, closed
        text = await poll(lambda: slack_reveal(fake, ts), "the reveal", REVEAL_TIMEOUT)
    code = await second.terminate()
    assert code == 0, second.text
    recorded, rows = answered_users(db, round_id, people)
    check_counts("Slack", acked, len(unfinished), reveal_total(text), recorded, rows)


# -- Discord --------------------------------------------------------------------------------------
def discord_env(fake: FakeDiscord) -> dict[str, str]:
    return clean_env() | fake.env


async def discord_ready(fake: FakeDiscord, serve: Serve, identifies: int) -> None:
    await serve.wait_for_log(rb"discord adapter running")
    await poll(
        lambda: fake.identifies == identifies and fake.connected == 1,
        f"gateway connection {identifies}",
        START_TIMEOUT,
    )


def embed_text(message: dict[str, Any]) -> str:
    embed = message["embeds"][0]
    parts = [embed.get("description") or "", (embed.get("footer") or {}).get("text") or ""]
    parts += [f.get("value") or "" for f in embed.get("fields") or []]
    return "\n".join(parts)


async def test_discord_clicks_acknowledged_before_a_sigkill_are_all_counted(
    fake_discord: FakeDiscord, tmp_path: Path, serves: list[Serve]
) -> None:
    fake = fake_discord
    db = tmp_path / "burst.sqlite3"
    first = await start_serve(serves, db, discord_env(fake))
    await discord_ready(fake, first, identifies=1)
    posted = await fake.reply_to(await fake.slash("question"), timeout=10)
    assert "Question posted." in embed_text(posted), first.text
    mid = fake.posted[-1]
    ids = custom_ids(fake.messages[mid])
    round_id = int(ids[0].split(":")[2])  # zq:a:<round>:<option>
    people = [user(1000 + i) for i in range(PEOPLE)]
    clicks: dict[str, str] = {}  # interaction token -> who clicked

    async def send_all() -> None:
        # The gateway delivers events one after another; sent in waves (about 500 clicks/s) so
        # the bot, which records a wave in one commit, is still busy when the kill lands.
        for i, who in enumerate(people):
            try:
                token = await fake.click(mid, ids[i % len(ids)], who)
            except (AssertionError, ConnectionError):
                return  # the gateway is gone: the rest were never delivered
            clicks[token] = who["id"]
            if i % WAVE == WAVE - 1:
                await asyncio.sleep(0.02)

    def acknowledged() -> set[str]:
        return {who for token, who in list(clicks.items()) if fake.responses.get(token)}

    sender = asyncio.create_task(send_all())
    await poll(lambda: len(acknowledged()) >= KILL_AFTER, "the first callbacks", BURST_TIMEOUT)
    assert await first.kill() == -signal.SIGKILL
    await asyncio.wait_for(sender, BURST_TIMEOUT)
    await asyncio.sleep(0.2)  # callbacks the fake had read before the kill finish recording
    acked = acknowledged()

    second = await start_serve(serves, db, discord_env(fake))
    await discord_ready(fake, second, identifies=2)
    closed = await fake.reply_to(await fake.slash("close", permissions=MANAGE_GUILD), timeout=10)
    assert "Closed the open question." in embed_text(closed), second.text
    revealed = await poll(
        lambda: not fake.messages[mid]["components"] and fake.messages[mid],
        "the reveal",
        REVEAL_TIMEOUT,
    )
    text = embed_text(revealed)
    code = await second.terminate()
    assert code == 0, second.text
    recorded, rows = answered_users(db, round_id, [str(who["id"]) for who in people])
    check_counts("Discord", acked, PEOPLE - len(acked), reveal_total(text), recorded, rows)
