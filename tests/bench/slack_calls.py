"""Benchmark: the Slack Web API calls each request costs, per method, in both Slack modes.

The real AsyncApp over signed HTTP against the fake Slack (tests/fake_slack.py), once with one
bot token (single-workspace mode) and once in OAuth (multi-workspace) mode with one workspace
installed through the OAuth flow. Steps, each counted on its own once its private reply came:
the first `/zeroquiz question` in the workspace, a second command (`/zeroquiz stats`) by the same
person, the same command by another person, answer clicks on the question (by a person named
already, by a new one), an admin command (`window`) by a new person and again, and the first
person's command again once the name cache's time has passed (the runtime clock moved on).
Chat posts and replies are the work itself; auth.test and users.info are the overhead measured.

Run: .venv/bin/python tests/bench/slack_calls.py
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # this checkout, and the fake Slack beside it

from fake_slack import (  # noqa: E402
    TEAM,
    FakeSlack,
    SlackHarness,
    install,
    open_harness,
    open_oauth_harness,
    slash_payload,
)

from adapters.slack.users import NAME_TTL_SECONDS  # noqa: E402
from bot.bank import load_bank  # noqa: E402
from bot.clock import FakeClock  # noqa: E402

LATER = NAME_TTL_SECONDS + 60  # seconds on, for the last step: every cache has expired
SETTLE = 0.3  # seconds after a reply for background lookups (names) to reach the fake


async def command(h: SlackHarness, text: str, user: str) -> None:
    key = h.fake.new_key()
    payload = slash_payload(text, user, h.fake.response_url(key))
    assert await h.post(urlencode(payload)) == 200
    await h.fake.reply(key)


async def click(h: SlackHarness, user: str) -> None:
    status, key = await h.click("A", user)
    assert status == 200
    await h.fake.reply(key)


async def steps(h: SlackHarness, clock: FakeClock) -> list[tuple[str, Counter[str]]]:
    plan: list[tuple[str, Callable[[], Awaitable[None]]]] = [
        ("first command (U1)", lambda: command(h, "question", "U1")),
        ("2nd command, same person", lambda: command(h, "stats", "U1")),
        ("command, another person", lambda: command(h, "stats", "U2")),
        ("answer click (U1)", lambda: click(h, "U1")),
        ("answer click, new person", lambda: click(h, "U3")),
        ("admin command, new person", lambda: command(h, "window", "UADMIN")),
        ("admin command again", lambda: command(h, "window", "UADMIN")),
        (f"same person, {LATER // 60:.0f} min later", lambda: command(h, "stats", "U1")),
    ]
    rows = []
    for name, run in plan:
        if name.endswith("later"):
            await clock.advance(LATER)
        before = len(h.fake.calls)
        await run()
        await asyncio.sleep(SETTLE)  # let the background name lookups land
        rows.append((name, Counter(c.method for c in h.fake.calls[before:])))
    return rows


async def measure(oauth: bool) -> list[tuple[str, Counter[str]]]:
    for name in list(os.environ):
        if name.startswith("SLACK_"):
            del os.environ[name]
    fake = FakeSlack()
    fake.add_user("U1", "Ada Lovelace")
    fake.add_user("U2", "Alan Turing")
    fake.add_user("U3", "Edsger Dijkstra")
    fake.add_user("UADMIN", "Grace Hopper", admin=True)
    await fake.start()
    clock = FakeClock()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "quiz.sqlite3"
        h: SlackHarness
        if oauth:
            h = await open_oauth_harness(fake, db, clock, load_bank())
            assert await install(h, TEAM) == 200
        else:
            h = await open_harness(fake, db, clock, load_bank())
        try:
            return await steps(h, clock)
        finally:
            await h.close()
            await fake.stop()


def table(title: str, rows: list[tuple[str, Counter[str]]]) -> str:
    methods = sorted({m for _, c in rows for m in c})
    head = f"| {title} | " + " | ".join(methods) + " |"
    lines = [head, "|" + "---|" * (len(methods) + 1)]
    lines += [f"| {name} | " + " | ".join(str(c[m]) for m in methods) + " |" for name, c in rows]
    return "\n".join(lines)


async def main() -> None:
    results: dict[str, Any] = {}
    for oauth in (False, True):
        results["OAuth" if oauth else "one token"] = await measure(oauth)
    for title, rows in results.items():
        print(table(title, rows), end="\n\n")


if __name__ == "__main__":
    asyncio.run(main())
