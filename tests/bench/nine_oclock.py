"""Benchmark: nine o'clock for N workspaces (issue 34). Every workspace's daily questions are due
in the same minute M, two `zeroquiz serve` replicas share one PostgreSQL, Slack answers every
call after --delay seconds and holds chat.postMessage to its limits (tests/bench/slack_limits.py:
1 a second per channel, --team-budget per minute per workspace, one workspace held to
--held-budget per --held-window seconds and its budget spent just before M), and replica A is
SIGKILLed just before a post (its first chat.postMessage at or after M is held and never done;
or at M + --kill-at), optionally restarted --restart-after seconds later.

Set-up goes through the front door: each workspace installed through the real OAuth flow
(/slack/install, Slack's approval, /slack/oauth_redirect), then `/zeroquiz daily HH:MM UTC
every day` typed by an admin in each of its --schedules channels, as signed HTTP commands spread
over both replicas. Nothing is written into the database by the bench; it only reads, right
after the kill, which of A's claims were left unsent (the daily_posts table).

Prints posted/expected, duplicates per (channel, day), each post's delay from M (p50, p90, p99,
max), posts a second, how many by M+60 s, A's claimed-but-unsent channels and when and by whom
they were posted, and the 429s given. A measurement, not a test: exits 0.

Run: .venv/bin/python tests/bench/nine_oclock.py --workspaces 300 --schedules 2 --delay 0.15
     [--held-budget 1 --held-window 25] [--kill-at S | --no-kill] [--restart-after S] [--wait 200]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import re
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlencode

import aiohttp
import asyncpg

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_slack import FakeSlack, oauth_env, shown, signed_headers, slash_payload  # noqa: E402
from pg_server import PgServer, start_server  # noqa: E402
from serve_process import Serve, clean_env  # noqa: E402
from slack_limits import Post, SlackLimits  # noqa: E402

ADMIN = "UADMIN"
REPLY_DEADLINE = 60.0  # a command's private reply, under load


@dataclass
class Options:
    workspaces: int = 300
    schedules: int = 2
    delay: float = 0.15
    team_budget: int = 600
    held_budget: int = 1
    held_window: float = 25.0
    kill: bool = True
    kill_at: float | None = None  # seconds after M; None: at A's first post
    victim: str = "a"  # the replica killed ("": whichever sends the first post of the minute)
    restart_after: float | None = None  # seconds after the kill
    wait: float = 200.0  # seconds after M to wait for every post
    lead: float | None = None  # seconds from the end of installs to M (None: estimated)
    setup_in_flight: int = 16


@dataclass
class Result:
    """What Slack saw: every accepted post, the 429s, the kill (epoch seconds throughout)."""

    expected: int
    minute: float  # M, epoch seconds
    posts: list[Post]
    refused: dict[str, int]
    lost: list[tuple[float, str, str]]  # the victim's posts held at the kill: never done
    killed_at: float | None = None
    restarted_at: float | None = None
    victim: str = ""  # the replica killed
    unsent: list[tuple[str, str]] = field(default_factory=list)  # its claims left at the kill

    def firsts(self) -> dict[tuple[str, str], Post]:
        first: dict[tuple[str, str], Post] = {}
        for post in sorted(self.posts, key=lambda p: p.at):
            first.setdefault((post.team, post.channel), post)
        return first

    @property
    def duplicates(self) -> int:
        return len(self.posts) - len(self.firsts())


def teams(n: int) -> list[str]:
    return [f"T{i:05d}" for i in range(n)]


def channels(team: str, schedules: int) -> list[str]:
    return [f"C{team[1:]}X{s}" for s in range(schedules)]


# -- set-up through the front door ---------------------------------------------------------------
async def install(http: aiohttp.ClientSession, fake: FakeSlack, base: str, team: str) -> None:
    """The "Add to Slack" round trip for `team`, each step waiting out the install gate's 429s
    (a refused redirect never reached Slack: its code and state are still good)."""
    while True:
        async with http.get(base + "/slack/install") as page:
            text = await page.text()
            if page.status != 429:
                assert page.status == 200, text
                cookie = page.headers["Set-Cookie"].split(";", 1)[0]
                break
        await asyncio.sleep(0.1)
    state = re.search(r"state=([A-Za-z0-9_\-]+)", text)
    assert state is not None, text
    params = {"code": fake.approve(team), "state": state.group(1)}
    while True:
        async with http.get(
            base + "/slack/oauth_redirect", params=params, headers={"Cookie": cookie}
        ) as done:
            await done.read()
            if done.status != 429:
                assert done.status == 200, done.status
                return
        await asyncio.sleep(0.1)


async def command(
    http: aiohttp.ClientSession, fake: FakeSlack, url: str, team: str, channel: str, text: str
) -> str:
    """`/zeroquiz text` typed by the workspace's admin in `channel`: the private reply's text."""
    key = fake.new_key()
    payload = slash_payload(text, ADMIN, fake.response_url(key), channel) | {"team_id": team}
    body = urlencode(payload)
    async with http.post(url, data=body.encode(), headers=signed_headers(body)) as response:
        await response.read()
        assert response.status == 200, response.status
    deadline = time.monotonic() + REPLY_DEADLINE
    while not fake.replies[key]:
        assert time.monotonic() < deadline, f"no reply to {text!r} in {team}/{channel}"
        await asyncio.sleep(0.05)
    return shown(fake.replies[key][0]["blocks"])


async def bounded(
    n: int, jobs: list[tuple[int, str]], job: Callable[[int, str], Awaitable[None]]
) -> None:
    """Run `job(i, item)` for each, at most `n` at once."""
    gate = asyncio.Semaphore(n)

    async def one(i: int, item: str) -> None:
        async with gate:
            await job(i, item)

    await asyncio.gather(*(one(i, item) for i, item in jobs))


def next_minute(after: float) -> float:
    return math.ceil(after / 60) * 60


# -- the run -------------------------------------------------------------------------------------
async def run(opts: Options, server: PgServer, say: Callable[[str], None] = print) -> Result:
    """One nine o'clock on a fresh database of `server`; every child stopped before it returns."""
    url = server.url(await server.create_database())
    fake = FakeSlack()
    fake.add_user(ADMIN, "Grace Hopper", admin=True)
    await fake.start()
    limits = SlackLimits(
        fake, team_budget=opts.team_budget, held=teams(opts.workspaces)[0], victim=opts.victim,
        held_budget=opts.held_budget, held_window=opts.held_window,
    )  # fmt: skip
    fake.delay = opts.delay
    envs = {
        name: clean_env() | oauth_env(fake) | {
            "SLACK_API_URL": await limits.address(name), "ZEROQUIZ_REPLICA_ID": name,
        }
        for name in ("a", "b")
    }  # fmt: skip
    serves: dict[str, Serve] = {}
    try:
        return await _run(opts, url, fake, limits, envs, serves, say)
    finally:
        limits.dead.set()
        for serve in serves.values():
            if serve.proc.returncode is None:
                with contextlib.suppress(Exception):
                    await serve.terminate()
            await serve.ensure_stopped()
        await fake.stop()


async def _run(
    opts: Options,
    url: str,
    fake: FakeSlack,
    limits: SlackLimits,
    envs: dict[str, dict[str, str]],
    serves: dict[str, Serve],
    log: Callable[[str], None],
) -> Result:
    for name, env in envs.items():
        serves[name] = await Serve.start(url, env)
    urls = {name: await serve.http_url() for name, serve in serves.items()}
    bases = {name: u.removesuffix("/slack/events") for name, u in urls.items()}
    names = sorted(urls)
    all_teams = teams(opts.workspaces)
    started = time.monotonic()
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as http:

        async def one_install(i: int, team: str) -> None:
            await install(http, fake, bases[names[i % 2]], team)

        await bounded(opts.setup_in_flight, list(enumerate(all_teams)), one_install)
        installed = time.monotonic() - started
        log(f"installed {opts.workspaces} workspaces through OAuth in {installed:.1f} s")
        wanted = [(team, ch) for team in all_teams for ch in channels(team, opts.schedules)]
        lead = opts.lead if opts.lead is not None else 10 + 0.06 * len(wanted)
        minute = next_minute(time.time() + lead)
        at = datetime.fromtimestamp(minute, UTC)
        text = f"daily {at:%H:%M} UTC every day"
        log(f"scheduling {len(wanted)} channels for {at:%H:%M:%S} UTC: `/zeroquiz {text}`")
        began = time.monotonic()

        async def one_schedule(i: int, where: str) -> None:
            team, channel = where.split("/")
            reply = await command(http, fake, urls[names[i % 2]], team, channel, text)
            assert "scheduled" in reply, reply

        await bounded(
            opts.setup_in_flight,
            [(i, f"{team}/{ch}") for i, (team, ch) in enumerate(wanted)],
            one_schedule,
        )
    log(
        f"set-up: {opts.workspaces} installs {installed:.1f} s, {len(wanted)} schedules "
        f"{time.monotonic() - began:.1f} s (signed commands over HTTP, split over A and B)"
    )
    if time.time() > minute - 1:
        raise RuntimeError(f"set-up ran into the minute; give a larger --lead than {lead:.0f}")
    limits.spend(limits.held, minute)  # the held workspace's budget is gone at M
    result = Result(len(wanted), minute, limits.posts, limits.refused, limits.lost)
    if opts.kill and opts.kill_at is None:
        limits.kill_from = minute
    killer = asyncio.create_task(_kill(opts, url, limits, envs, serves, result))
    deadline = minute + opts.wait
    try:
        while time.time() < deadline:
            everything = len(result.firsts()) >= len(wanted) and time.time() > minute + 5
            # Done, unless A is yet to be restarted: A that never posted is never killed.
            if everything and (killer.done() or not limits.triggered.is_set()):
                break
            await asyncio.sleep(0.2)
        await asyncio.sleep(2.0)  # time for a duplicate, if one were coming
    finally:
        if not killer.done():
            killer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await killer
        elif (failed := killer.exception()) is not None:
            raise failed
    return result


async def _kill(
    opts: Options,
    url: str,
    limits: SlackLimits,
    envs: dict[str, dict[str, str]],
    serves: dict[str, Serve],
    result: Result,
) -> None:
    """SIGKILL the victim just before its post (or at M + kill_at); read its unsent claims;
    restart it."""
    if not opts.kill:
        return
    if opts.kill_at is not None:
        await asyncio.sleep(max(0.0, result.minute + opts.kill_at - time.time()))
        limits.victim = limits.victim or "a"
        limits.doom()
    await limits.triggered.wait()
    victim = result.victim = limits.victim
    assert await serves[victim].kill() == -signal.SIGKILL
    result.killed_at = time.time()
    limits.dead.set()
    result.unsent = await unsent_claims(url, victim + "/")
    if opts.restart_after is not None:
        await asyncio.sleep(opts.restart_after)
        limits.revive()
        serves[victim] = await Serve.start(url, envs[victim])
        await serves[victim].http_url()
        result.restarted_at = time.time()


async def unsent_claims(url: str, prefix: str) -> list[tuple[str, str]]:
    """(team, channel) of the daily posts claimed by the replica whose tokens start with `prefix`
    and not finished: read from outside, as an operator would look."""
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            """SELECT t.team, c.channel FROM daily_posts p JOIN schedules s ON s.id = p.schedule_id
               JOIN channels c ON c.id = s.channel_id JOIN teams t ON t.id = c.team_id
               WHERE p.status = 'claimed' AND p.claim_token LIKE $1 ORDER BY t.team, c.channel""",
            prefix + "%",
        )
    finally:
        await conn.close()
    return [(str(r["team"]), str(r["channel"])) for r in rows]


# -- the report ------------------------------------------------------------------------------------
def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(p / 100 * len(ordered)) - 1)] if values else 0


def report(opts: Options, r: Result) -> list[str]:
    first = r.firsts()
    delays = [p.at - r.minute for p in first.values()]
    last, p90 = max(delays, default=0.0), pct(delays, 90)
    by = {name: sum(p.replica == name for p in first.values()) for name in ("a", "b")}
    lines = [
        f"posted {len(first)}/{r.expected}, duplicates {r.duplicates} "
        f"(by A {by['a']}, by B {by['b']})",
        "delay from the minute: "
        + ", ".join(f"p{p} {pct(delays, p):.1f} s" for p in (50, 90, 99))
        + f", max {last:.1f} s",
        f"posts/s: {len(first) / last if last > 0 else 0:.1f} from M to the last post, "
        f"{0.9 * len(first) / p90 if p90 > 0 else 0:.1f} from M to p90; "
        f"by M+60 s: {sum(d <= 60 for d in delays)}/{r.expected}",
        f"429s given: {sum(r.refused.values())} "
        f"({', '.join(f'{k} {v}' for k, v in sorted(r.refused.items())) or 'none'})",
    ]
    if opts.kill and r.killed_at is None:
        lines.append("nobody was killed: the victim sent no post in the minute")
    if r.killed_at is not None:
        lines.append(
            f"{r.victim.upper()} SIGKILLed at M+{r.killed_at - r.minute:.1f} s"
            + (f", restarted at M+{r.restarted_at - r.minute:.1f} s" if r.restarted_at else "")
            + f"; its claimed-but-unsent channels: {len(r.unsent)}; held at the kill: "
            + (", ".join(f"{team}/{channel}" for _, team, channel in r.lost) or "none")
        )
        for team, channel in r.unsent[:10]:
            post = first.get((team, channel))
            when = f"M+{post.at - r.minute:.1f} s by {post.replica.upper()}" if post else "never"
            lines.append(f"   {team}/{channel}: posted {when}")
        if len(r.unsent) > 10:
            posted = [first[k].at - r.minute for k in r.unsent if k in first]
            lines.append(
                f"   ... all {len(r.unsent)}: {len(posted)} posted, "
                f"first M+{min(posted, default=0):.1f} s, last M+{max(posted, default=0):.1f} s"
            )
    return lines


def parse(argv: list[str] | None = None) -> Options:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--workspaces", type=int, default=300)
    parser.add_argument("--schedules", type=int, default=2)
    parser.add_argument("--delay", type=float, default=0.15)
    parser.add_argument("--team-budget", type=int, default=600)
    parser.add_argument("--held-budget", type=int, default=1)
    parser.add_argument("--held-window", type=float, default=25.0)
    parser.add_argument("--no-kill", action="store_true")
    parser.add_argument("--kill-at", type=float, default=None)
    parser.add_argument("--restart-after", type=float, default=None)
    parser.add_argument("--wait", type=float, default=200.0)
    parser.add_argument("--lead", type=float, default=None)
    a = parser.parse_args(argv)
    return Options(
        workspaces=a.workspaces, schedules=a.schedules, delay=a.delay,
        team_budget=a.team_budget, held_budget=a.held_budget, held_window=a.held_window,
        kill=not a.no_kill, kill_at=a.kill_at, restart_after=a.restart_after, wait=a.wait,
        lead=a.lead,
    )  # fmt: skip


async def main() -> None:
    opts = parse()
    for name in list(os.environ):
        if name.startswith("SLACK_"):
            del os.environ[name]
    root = Path(tempfile.mkdtemp(prefix="zq-nine-"))
    os.chmod(root, 0o755)
    server = start_server(root, durable=True)
    try:
        result = await run(opts, server)
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
    print(f"{opts}\n{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    print("\n".join(report(opts, result)))


if __name__ == "__main__":
    asyncio.run(main())
