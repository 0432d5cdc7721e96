"""`zeroquiz serve` as a child process, the way an admin runs it, against the fakes; and what its
database and reveals say. Shared by the tests that start, kill, restart and crash it (a fixture
plugin: `serves`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
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
from fake_discord import FakeDiscord
from fake_slack import (
    BOT_TOKEN,
    SECRET,
    FakeSlack,
    click_payload,
    shown,
    signed_headers,
    slash_payload,
)

ROOT = Path(__file__).resolve().parent.parent
ZEROQUIZ = str(Path(sys.executable).parent / "zeroquiz")
START_TIMEOUT = 30.0
BURST_TIMEOUT = 30.0
STOP_TIMEOUT = 30.0
SUMMARY = re.compile(r"(\d+) of (\d+) answered right")
NOBODY = "Nobody answered this one."


class ServeProcess:
    """`zeroquiz serve` as a child process: waits for Slack's HTTP address, keeps its log."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.log = b""

    @classmethod
    async def start(cls, *args: str, env: dict[str, str]) -> tuple[ServeProcess, str]:
        proc = await asyncio.create_subprocess_exec(
            *args, env=env, cwd=ROOT, stderr=asyncio.subprocess.PIPE
        )
        serve = cls(proc)
        assert proc.stderr is not None
        while True:
            line = await asyncio.wait_for(proc.stderr.readline(), 30)
            assert line, serve.log.decode()
            serve.log += line
            if found := re.search(rb"HTTP mode on (http://\S+)", line):
                return serve, found.group(1).decode()

    async def terminate(self) -> int:
        """SIGTERM, then the exit code once the process has finished on its own."""
        assert self.proc.stderr is not None
        self.proc.send_signal(signal.SIGTERM)
        self.log += await asyncio.wait_for(self.proc.stderr.read(), 30)
        return await self.proc.wait()


def clean_env() -> dict[str, str]:
    """This process's environment without any ZeroQuiz or platform settings."""
    prefixes = ("SLACK_", "DISCORD_", "ZEROQUIZ_")
    return {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}


# -- `zeroquiz serve` as a child process ----------------------------------------------------------
@dataclass
class Serve:
    """One `zeroquiz serve` child; its stderr is read all along, so a chatty log never blocks it."""

    proc: asyncio.subprocess.Process
    log: bytearray = field(default_factory=bytearray)
    grew: asyncio.Event = field(default_factory=asyncio.Event)
    reader: asyncio.Task[None] | None = None

    @classmethod
    async def start(cls, db: Path | str, env: dict[str, str]) -> Serve:
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

    async def exited(self) -> int:
        """The exit code of a child that ends by itself (refused to start, say)."""
        return await self._ended()

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


async def start_serve(serves: list[Serve], db: Path | str, env: dict[str, str]) -> Serve:
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
    """The question in the channel, as first posted: (ts, message, its letter buttons: not a
    generated question's Type it, which opens a form and records nothing)."""
    for ts, message in reversed(fake.posted.items()):
        for block in message["blocks"]:
            if block["type"] == "actions":
                letters = [e for e in block["elements"] if e["action_id"] != "zq_typed"]
                return ts, message, letters
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


@pytest.fixture
async def serves() -> AsyncIterator[list[Serve]]:
    """Children started by the test; any still running at teardown is SIGKILLed (by its own pid)."""
    started: list[Serve] = []
    yield started
    for serve in started:
        await serve.ensure_stopped()
