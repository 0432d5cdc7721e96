"""Benchmark: a person's click latency while strangers flood `zeroquiz serve`'s public listener,
against the same bot unloaded, in the same run.

One real `zeroquiz serve` child in multi-workspace HTTP mode (OAuth) against the tests' fake
Slack hosted by this process; one workspace installed through the real OAuth flow, one question
open. Then, each phase measuring CLICKS signed clicks one after another (each by a new person,
each on a new connection, as a stranger's flood would make Slack's):
1. unloaded;
2. connection flood: IDLE connections that send nothing and SLOW POSTs whose body never comes,
   held open while the clicks are made;
3. install flood: INSTALLS GETs of /slack/install at RATE a second (the rate of the flood in
   issue 21, 608/s), pipelined on 100 connections, while the clicks are made (counted only
   while the flood lasts); then the same flood as fast as the server answers.
Prints p50/p99 of each phase and the ratios against the unloaded phase, the flood's rate, and
the OAuth states stored after both floods. A measurement, not a test: exits 0.

Run: .venv/bin/python tests/bench/flood_bench.py [--clicks 200 --idle 2000 --slow 200]
     [--installs 10000 --rate 600]
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import os
import re
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import aiohttp

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))

from fake_slack import TEAM, FakeSlack, oauth_env  # noqa: E402
from flood import (  # noqa: E402
    click_seconds,
    close_all,
    connect_many,
    open_files,
    raise_file_limit,
    slow_bodies,
)
from serve_process import Serve, clean_env, poll, slack_command  # noqa: E402


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]


def line(name: str, values: list[float], base: list[float] | None) -> str:
    p50, p99 = pct(values, 50) * 1000, pct(values, 99) * 1000
    text = f"{name:<18} n={len(values):<5} p50 {p50:7.2f} ms   p99 {p99:7.2f} ms"
    if base:
        b50, b99 = pct(base, 50) * 1000, pct(base, 99) * 1000
        text += f"   ratio p50 {p50 / b50:5.2f}  p99 {p99 / b99:5.2f}"
    return text


class People:
    def __init__(self) -> None:
        self.n = 1000

    def next(self) -> str:
        self.n += 1
        return f"U{self.n}"


async def clicks(
    http: aiohttp.ClientSession, fake: FakeSlack, url: str, people: People, n: int
) -> list[float]:
    return [await click_seconds(http, fake, url, people.next()) for _ in range(n)]


async def during_flood(
    http: aiohttp.ClientSession,
    fake: FakeSlack,
    url: str,
    people: People,
    installs: int,
    rate: float | None,
) -> tuple[list[float], Counter[int], float]:
    """Clicks one after another while an install flood lasts: (their latencies, GETs answered
    200, the flood's seconds)."""
    # The flood comes from another process, as a stranger's would: its client's own work must
    # not delay this process's clicks.
    code = (
        f"import asyncio, sys; sys.path.insert(0, {str(TESTS)!r}); "
        "from flood import install_flood; "
        f"print(dict(asyncio.run(install_flood({url!r}, {installs}, rate={rate!r}))))"
    )
    flood = await asyncio.create_subprocess_exec(
        sys.executable, "-c", code, stdout=asyncio.subprocess.PIPE
    )
    started = time.perf_counter()
    out = asyncio.create_task(flood.communicate())
    during: list[float] = []
    while not out.done():
        during.append(await click_seconds(http, fake, url, people.next()))
    answered: Counter[int] = Counter(ast.literal_eval((await out)[0].decode().strip()))
    return during, answered, time.perf_counter() - started


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=200)
    parser.add_argument("--idle", type=int, default=2000)
    parser.add_argument("--slow", type=int, default=200)
    parser.add_argument("--installs", type=int, default=10_000)
    parser.add_argument("--rate", type=float, default=600.0)
    args = parser.parse_args()
    limit = raise_file_limit(args.idle + args.slow + 500)
    for name in list(os.environ):
        if name.startswith("SLACK_"):
            del os.environ[name]
    fake = FakeSlack()
    await fake.start()
    work = Path(tempfile.mkdtemp(prefix="zeroquiz-flood-"))
    db = work / "zq.sqlite3"
    serve = await Serve.start(db, clean_env() | oauth_env(fake))
    people = People()
    try:
        url = await serve.http_url()
        base = url.removesuffix("/slack/events")
        async with aiohttp.ClientSession() as http:
            async with http.get(base + "/slack/install") as page:
                found = re.search(r"state=([A-Za-z0-9_\-]+)", await page.text())
                cookie = page.headers["Set-Cookie"].split(";", 1)[0]
            assert found is not None
            params = {"code": fake.approve(TEAM), "state": found.group(1)}
            async with http.get(
                base + "/slack/oauth_redirect", params=params, headers={"Cookie": cookie}
            ) as done:
                assert done.status == 200, done.status
            await slack_command(fake, http, url, "question", "U1")
            await poll(lambda: fake.calls_to("chat.postMessage"), "the question", 30)
            await clicks(http, fake, url, people, 20)  # warm-up, not counted

            unloaded = await clicks(http, fake, url, people, args.clicks)

            idle = await connect_many(url, args.idle)
            slow = await slow_bodies(url, args.slow)
            try:
                assert serve.proc.pid is not None
                files = open_files(serve.proc.pid)
                held = await clicks(http, fake, url, people, args.clicks)
            finally:
                close_all(idle + slow)

            paced = await during_flood(http, fake, url, people, args.installs, args.rate)
            flat_out = await during_flood(http, fake, url, people, args.installs, None)
    finally:
        await serve.terminate()
        await fake.stop()
    tracebacks = serve.text.count("Traceback")
    errors = len(re.findall(r"\bERROR\b", serve.text))
    print(f"open-file limit {limit}; zeroquiz serve (OAuth mode), one workspace, one question")
    print(line("unloaded", unloaded, None))
    print(line(f"{args.idle} idle+{args.slow} slow", held, unloaded))
    print(f"   the child held {files} open files (a cap of 1000 connections + 512 reserved)")
    for name, (during, answered, seconds) in (
        (f"installs {args.rate:.0f}/s", paced),
        ("installs flat out", flat_out),
    ):
        print(line(name, during, unloaded))
        print(
            f"   {answered.total()} of {args.installs} GETs answered in {seconds:.1f} s "
            f"({answered.total() / seconds:.0f}/s): {answered[200]} pages, "
            f"{answered[429]} refused with 429"
        )
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        states = conn.execute("SELECT COUNT(*) FROM oauth_states").fetchone()[0]
    finally:
        conn.close()
    print(f"oauth_states rows after {2 * args.installs} install GETs: {states} (the one install)")
    print(f"log: {errors} ERROR lines, {tracebacks} tracebacks")


if __name__ == "__main__":
    asyncio.run(main())
