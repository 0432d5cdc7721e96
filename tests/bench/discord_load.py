"""Benchmark: `zeroquiz serve` on Discord under click load, against a bare discord.py client.

Both are real child processes on one fake Discord (tests/fake_discord.py: REST and gateway on
127.0.0.1, hosted by this process), one at a time (the machine has 2 cores), in alternating rounds
of one run (serve then bare, then bare then serve, ...): a p99 over a few hundred clicks is decided
by one stall, so each figure is reported per round and as the median of the rounds, with the
ratio serve/bare of the medians. The baseline (tests/bench/bare_discord.py) answers every
interaction with one ephemeral message and does nothing else. ZeroQuiz gets a question first
(`/zeroquiz question`), and every click is an INTERACTION_CREATE on that question's message from a
new user; its verdict is the interaction callback (an ephemeral message, type 4). Per round and app:

1. Start-up: spawn to the first `/zeroquiz help` answered (sent every 0.25 s once it identified).
2. Open loop: RATE clicks/s for SECONDS: callback latency (event sent -> callback arrived) p50 and
   p99, a click never answered counting as infinitely late; the child's CPU per click (its CPU
   seconds from the load's start until every click was answered, over the clicks).
3. Closed loop: CLIENTS clients for SECONDS, each sending its next click once its callback came:
   verdicts/s, and CPU per click there too.
4. Memory (in the last --rss-rounds rounds, 1 by default: 50,000 users take minutes): closed-loop
   clicks by new users until USERS distinct users have clicked in this child (the users of 2 and 3
   count), then VmRSS.
5. Lost (serve only): after it stopped, every click whose verdict said it was recorded (right or
   wrong) must have its answer row in the database.

The fake validates a sample of the bodies against Discord's OpenAPI description (every body costs
the bench CPU the apps would then share); any body Discord would refuse is printed. Not a test:
it exits 0 unless it cannot run at all. --profile PATH runs the serve child under cProfile (its
stats written at its clean exit) to see where a click's CPU goes; --pyspy PATH samples both apps'
open loop in round 1 with py-spy (all threads, the SQLite ones too; collapsed stacks, bare's in
PATH.bare). The floor is a third app in every round (unless --no-floor): the bare client that
first commits each click durably (bare_discord.py with BARE_RECORD: one row, one fsync'd commit,
then the answer), the least any app that keeps "acknowledged means recorded" can pay. The goals
are serve/floor ratios of the medians (issue 32), each printed PASS or MISS.

Run: .venv/bin/python tests/bench/discord_load.py [--rounds 4 --rate 200 --seconds 5
     --clients 64 --users 50000 --floor]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import math
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT)]  # fake_discord lives in tests/ and imports bot/

from aiohttp import web  # noqa: E402
from fake_discord import FakeDiscord, letter_ids, user  # noqa: E402
from loadkit import Child, Sampler, child_env, pct, stored_values  # noqa: E402

BARE = HERE / "bare_discord.py"
STARTUP_SECONDS = 60.0
STOP_SECONDS = 30.0
WARMUP_CLICKS = 20
VALIDATE_FIRST = 50  # bodies validated in full before sampling
VALIDATE_EVERY = 100  # then one in this many

mono = time.monotonic  # the fake stamps sends and callbacks with it


class BenchDiscord(FakeDiscord):
    """The test fake, with a waiter per interaction token (closed loops wait for their own
    callback), a sampled schema check and no per-call log (it would hold every body)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.waiters: dict[str, asyncio.Future[None]] = {}
        self.checked = 0
        self.commands_checked = False
        self.verdicts: Counter[str] = Counter()  # what the callbacks said, by first characters
        self.recorded: dict[str, str] = {}  # token -> user id, for verdicts that say "recorded"
        self.user_of: dict[str, str] = {}  # token -> user id of the click

    async def _read(self, request: web.Request) -> Any:
        return await request.json() if request.can_read_body else None

    def _check(
        self, request: web.Request, body: Any, path: str, method: str
    ) -> web.Response | None:
        if path.endswith("/commands"):  # the same registration every start: checked once
            if self.commands_checked:  # (its schema check took the fake ~0.2 s, in the way of
                return None  # the first answer it measures)
            self.commands_checked = True
        self.checked += 1
        if self.checked > VALIDATE_FIRST and self.checked % VALIDATE_EVERY:
            return None
        return super()._check(request, body, path, method)

    async def callback(self, request: web.Request) -> web.Response:
        response = await super().callback(request)
        token = request.match_info["token"]
        if token in self.user_of:  # a click (a command's deferred reply is edited later)
            bodies = self.responses.pop(token, [])
            text = _text(bodies[0]) if bodies else ""
            self.verdicts[text[:24]] += 1
            if text.startswith(("✅", "❌")):
                self.recorded[token] = self.user_of[token]
            self.messages.pop(self.response_ids.pop(token, 0), None)  # the ephemeral verdict
        waiter = self.waiters.pop(token, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)
        return response


def _text(body: dict[str, Any]) -> str:
    data = body.get("data") or {}
    embeds = data.get("embeds") or []
    return str(embeds[0].get("description") or "") if embeds else str(data.get("content") or "")


@dataclass
class Round:
    name: str
    startup: float = math.nan
    o_clicks: int = 0
    o_answered: int = 0
    o_p50: float = math.nan
    o_p99: float = math.nan
    o_cpu_per_click: float = math.nan
    c_clicks: int = 0
    c_verdicts_per_s: float = math.nan
    c_cpu_per_click: float = math.nan
    users: int = 0
    rss_kb: float = math.nan
    bench_cpu_per_click: float = math.nan  # this process (load generator + fake), open loop
    acknowledged: int = 0  # clicks whose verdict said recorded (serve)
    lost: int = 0
    exit_code: int | None = None
    problems: list[str] = field(default_factory=list)


class Clicker:
    """Clicks on one message, each from a new user; returns the interaction tokens."""

    def __init__(self, fake: BenchDiscord, message_id: int) -> None:
        self.fake = fake
        self.message_id = message_id
        self.ids = letter_ids(fake.messages[message_id])  # not Type it
        self.users = itertools.count(1)
        self.seen = dict(fake.messages[message_id])

    def _next(self) -> tuple[str, dict[str, Any]]:
        """A click by a new user: its token, and its payload stamped as sent."""
        n = next(self.users)
        who = user(n)
        payload = self.fake.click_payload(
            self.message_id, self.ids[n % len(self.ids)], who, self.seen
        )
        token = str(payload["token"])
        self.fake.user_of[token] = who["id"]
        return token, payload

    async def click(self) -> str:
        token, payload = self._next()
        self.fake.sent_at[token] = mono()
        await self.fake.send_event("INTERACTION_CREATE", payload)
        return token

    async def click_and_wait(self, timeout: float) -> str:
        token, payload = self._next()
        waiter = asyncio.get_running_loop().create_future()
        self.fake.waiters[token] = waiter
        self.fake.sent_at[token] = mono()
        await self.fake.send_event("INTERACTION_CREATE", payload)
        try:
            await asyncio.wait_for(waiter, timeout)
        except TimeoutError:
            self.fake.waiters.pop(token, None)
        return token


def latency(fake: BenchDiscord, token: str) -> float:
    answered = fake.answered_at.get(token)
    return math.inf if answered is None else answered - fake.sent_at[token]


async def wait_until(check: Callable[[], Any], timeout: float, what: str) -> None:
    deadline = mono() + timeout
    while not check():
        if mono() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


async def start(
    name: str, fake: BenchDiscord, db: Path, profile: Path | None, args_root: Path
) -> Child:
    root = args_root
    env = child_env(PYTHONPATH=str(root), ZEROQUIZ_DB=str(db), **fake.env)
    if name == "serve":
        python = [sys.executable, *(["-m", "cProfile", "-o", str(profile)] if profile else [])]
        cmd = [*python, "-m", "adapters.cli", "serve", "--db", str(db)]
    else:
        cmd = [sys.executable, str(BARE)]
        env = env | ({"BARE_RECORD": str(db)} if name == "floor" else {})
    child = Child(name, await asyncio.create_subprocess_exec(
        *cmd, env=env, cwd=str(root), stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    ))  # fmt: skip
    assert child.proc.stdout is not None and child.proc.stderr is not None
    child.url.set_result("")  # no HTTP address to wait for: the gateway says when it is up
    child._drains = [
        asyncio.create_task(child._drain(child.proc.stderr)),
        asyncio.create_task(child._drain(child.proc.stdout)),
    ]
    return child


async def first_answer(fake: BenchDiscord, child: Child, identified: int, spawned: float) -> float:
    """Seconds from spawn to the first `/zeroquiz help` answered."""
    await wait_until(
        lambda: fake.identifies > identified or child.proc.returncode is not None,
        STARTUP_SECONDS,
        f"{child.name} to identify",
    )
    if child.proc.returncode is not None:
        raise RuntimeError(f"{child.name} exited: {list(child.tail)[-5:]}")
    deadline = mono() + STARTUP_SECONDS
    tokens: list[str] = []
    while mono() < deadline:
        if not fake.registered and child.name != "serve":  # the bare clients register none
            raise RuntimeError("no commands registered yet: run serve first")
        tokens.append(await fake.slash("help"))  # once serve's registration is in (a new bot)
        for _ in range(25):
            answered = [fake.answered_at[t] for t in tokens if t in fake.answered_at]
            if answered:
                return min(answered) - spawned
            await asyncio.sleep(0.01)
    raise RuntimeError(f"{child.name} answered no command")


async def question_message(fake: BenchDiscord) -> int:
    posted = len(fake.posted)
    token = await fake.slash("question")
    await wait_until(lambda: token in fake.answered_at, 30, "the reply to /zeroquiz question")
    await wait_until(lambda: len(fake.posted) > posted, 30, "the question's post")
    return fake.posted[-1]


async def bench_round(
    name: str, fake: BenchDiscord, args: argparse.Namespace, message: int | None, db: Path,
    profile: Path | None, measure_rss: bool, pyspy: str | None = None,
) -> tuple[Round, int]:  # fmt: skip
    result = Round(name)
    spawned = mono()
    identified = fake.identifies
    child = await start(name, fake, db, profile, args.root.resolve())
    tokens: list[str] = []
    sampler = None
    try:
        result.startup = await first_answer(fake, child, identified, spawned)
        if name == "serve":
            message = await question_message(fake)
        assert message is not None
        clicker = Clicker(fake, message)
        for _ in range(WARMUP_CLICKS):
            await clicker.click_and_wait(10)
        await asyncio.sleep(0.5)
        sampler = Sampler(child.proc.pid, pyspy) if pyspy else None
        if sampler is not None and args.pyspy_phase == "open":
            await sampler.start()

        # 2. open loop
        total = max(1, round(args.rate * args.seconds))
        begin = mono() + 0.05
        cpu, own = child.cpu_seconds(), time.process_time()
        sends = []
        for i in range(total):
            delay = begin + i / args.rate - mono()
            if delay > 0:
                await asyncio.sleep(delay)
            sends.append(await clicker.click())
        end = begin + total / args.rate
        with_deadline = end + args.settle
        while mono() < with_deadline and not all(t in fake.answered_at for t in sends):
            await asyncio.sleep(0.01)
        result.o_cpu_per_click = (child.cpu_seconds() - cpu) / total
        result.bench_cpu_per_click = (time.process_time() - own) / total
        lat = [latency(fake, t) for t in sends]
        result.o_clicks, result.o_answered = total, sum(1 for x in lat if x < math.inf)
        result.o_p50, result.o_p99 = pct(lat, 50), pct(lat, 99)
        tokens += sends
        if sampler is not None and args.pyspy_phase == "open":
            await sampler.stop()
        await asyncio.sleep(0.5)

        # 3. closed loop
        if sampler is not None and args.pyspy_phase == "closed":
            await sampler.start()
        cpu = child.cpu_seconds()
        begin = mono()
        stop_at = begin + args.seconds
        closed: list[str] = []

        async def loop_client() -> None:
            while mono() < stop_at:
                closed.append(await clicker.click_and_wait(args.settle))

        await asyncio.gather(*(loop_client() for _ in range(args.clients)))
        end = mono()
        answered = sum(1 for t in closed if fake.answered_at.get(t, math.inf) <= end)
        result.c_clicks = len(closed)
        result.c_verdicts_per_s = answered / (end - begin)
        result.c_cpu_per_click = (child.cpu_seconds() - cpu) / max(1, len(closed))
        tokens += closed
        if sampler is not None and args.pyspy_phase == "closed":
            await sampler.stop()

        # 4. memory after USERS distinct users (in the last --rss-rounds rounds)
        clicked = WARMUP_CLICKS + total + len(closed)
        remaining = max(0, args.users - clicked) if measure_rss else 0
        counter = itertools.count()

        async def memory_client() -> None:
            while next(counter) < remaining:
                tokens.append(await clicker.click_and_wait(args.settle))

        await asyncio.gather(*(memory_client() for _ in range(args.clients)))
        result.users = clicked + remaining
        if measure_rss:
            await asyncio.sleep(1.0)
            result.rss_kb = child.memory_kb()[0]
    except Exception as exc:  # a figure missing is reported, the other rounds still run
        result.problems.append(f"not measured: {exc!r}")
    finally:
        if sampler is not None:
            await sampler.stop()  # only if the open loop failed: done there otherwise
        result.exit_code, _ = await child.stop(STOP_SECONDS)
        if result.exit_code != 0:
            result.problems.append(f"exit code {result.exit_code}")
        for level, count in sorted(child.levels.items()):
            result.problems.append(f"{count} {level} line(s) in its log")
        for line, count in child.messages.most_common(3):
            result.problems.append(f"  {count}x {line.strip()}")
    if name == "serve":
        acknowledged = {fake.recorded[t] for t in tokens if t in fake.recorded}
        result.acknowledged = len(acknowledged)
        result.lost = len(acknowledged - stored_values(str(db)))
    for t in tokens:  # this round's bookkeeping is no longer needed
        fake.recorded.pop(t, None)
        fake.user_of.pop(t, None)
    assert message is not None
    return result, message


# -- printing --------------------------------------------------------------------------------------
# The goals (issue 32) hold ZeroQuiz to the floor, measured in the same run: serve/floor.
FIGURES: list[tuple[str, str, Callable[[float], str], str, Callable[[float], bool] | None]] = [
    ("start-up to first command answered", "startup", lambda x: f"{x * 1000:,.0f} ms", "<= 1.5",
     lambda r: r <= 1.5),
    ("CPU per click (open loop)", "o_cpu_per_click", lambda x: f"{x * 1000:.2f} ms", "<= 1.5",
     lambda r: r <= 1.5),
    ("callback p50 at RATE/s", "o_p50", lambda x: f"{x * 1000:.1f} ms", "", None),
    ("callback p99 at RATE/s", "o_p99", lambda x: f"{x * 1000:.1f} ms", "<= 1.5",
     lambda r: r <= 1.5),
    ("verdicts/s, CLIENTS clients closed loop", "c_verdicts_per_s", lambda x: f"{x:,.0f}", ">= 1.5",
     lambda r: r >= 1.5),
    ("CPU per click (closed loop)", "c_cpu_per_click", lambda x: f"{x * 1000:.2f} ms", "", None),
    ("RSS after USERS distinct users", "rss_kb", lambda x: f"{x / 1024:.1f} MiB", "<= 1.5",
     lambda r: r <= 1.5),
    ("bench's own CPU per click (load generator + fake)", "bench_cpu_per_click",
     lambda x: f"{x * 1000:.2f} ms", "", None),
]  # fmt: skip


def median(values: list[float]) -> float:
    real = [v for v in values if not math.isnan(v)]
    return statistics.median(real) if real else math.nan


def report(rounds: list[dict[str, Round]], args: argparse.Namespace) -> None:
    def label(text: str) -> str:
        return (
            text.replace("RATE", f"{args.rate:g}")
            .replace("CLIENTS", str(args.clients))
            .replace("USERS", f"{args.users:,}")
        )

    print()
    print(f"{len(rounds)} rounds; per round bare | serve | serve/bare, then the medians")
    floor = all("floor" in r for r in rounds)
    if floor:
        print("(--floor: then | floor | floor/bare | serve/floor)")
    for title, attr, fmt, goal, ok in FIGURES:
        print(f"\n{label(title)}")
        ratios = []
        for i, got in enumerate(rounds, 1):
            b, s = float(getattr(got["bare"], attr)), float(getattr(got["serve"], attr))
            r = _ratio(s, b)
            ratios.append(r)
            shown = [fmt(x) if not math.isnan(x) else "-" for x in (b, s)]
            line = f"  round {i}: {shown[0]:>12} | {shown[1]:>12} | {r:5.2f}"
            if floor:
                f = float(getattr(got["floor"], attr))
                line += f" | {fmt(f) if not math.isnan(f) else '-':>12} | {_ratio(f, b):5.2f}"
                line += f" | {_ratio(s, f):5.2f}"
            print(line)
        mb = median([float(getattr(got["bare"], attr)) for got in rounds])
        ms_ = median([float(getattr(got["serve"], attr)) for got in rounds])
        mr = _ratio(ms_, mb)
        spread = [r for r in ratios if not math.isnan(r)]
        extent = f" (rounds {min(spread):.2f}-{max(spread):.2f})" if spread else ""
        line = (
            f"  median : {fmt(mb) if not math.isnan(mb) else '-':>12} | "
            f"{fmt(ms_) if not math.isnan(ms_) else '-':>12} | {mr:5.2f}{extent}"
        )
        if floor:
            mf = median([float(getattr(got["floor"], attr)) for got in rounds])
            to_floor = _ratio(ms_, mf)
            verdict = (
                "" if ok is None or math.isnan(to_floor) else ("PASS" if ok(to_floor) else "MISS")
            )
            line += f"\n  floor  : {fmt(mf) if not math.isnan(mf) else '-':>12}"
            line += f" | floor/bare {_ratio(mf, mb):5.2f} | serve/floor {to_floor:5.2f}"
            line += f"   goal {goal} {verdict}" if goal else ""
        print(line)
    print()
    lost = sum(got["serve"].lost for got in rounds)
    acknowledged = sum(got["serve"].acknowledged for got in rounds)
    print(f"lost clicks (serve): {lost} of {acknowledged} acknowledged as recorded   goal 0 "
          f"{'PASS' if lost == 0 and acknowledged else 'MISS'}")  # fmt: skip
    unanswered = [{n: r.o_clicks - r.o_answered for n, r in got.items()} for got in rounds]
    print(f"open-loop clicks never answered per round: {unanswered}")
    for i, got in enumerate(rounds, 1):
        for one in got.values():
            for problem in one.problems:
                print(f"  round {i} {one.name}: {problem}")


def _ratio(a: float, b: float) -> float:
    return a / b if b and not (math.isnan(a) or math.isnan(b)) else math.nan


async def run(args: argparse.Namespace) -> tuple[list[dict[str, Round]], BenchDiscord]:
    fake = BenchDiscord()
    await fake.start()
    rounds: list[dict[str, Round]] = []
    message: int | None = None
    names = ["serve", "floor", "bare"] if args.floor else ["serve", "bare"]
    try:
        for i in range(args.rounds):
            order = names if i % 2 == 0 or message is None else names[::-1]
            got: dict[str, Round] = {}
            for name in order:
                print(f"round {i + 1}: {name}...", file=sys.stderr, flush=True)
                with tempfile.TemporaryDirectory(prefix="zq-dbench-") as tmp:
                    profile = args.profile if name == "serve" and i == 0 else None
                    rss = i >= args.rounds - args.rss_rounds
                    spy = None if args.pyspy is None or i else str(args.pyspy)
                    spy = f"{spy}.{name}" if spy and name != "serve" else spy
                    got[name], message = await bench_round(
                        name, fake, args, message, Path(tmp) / "bench.sqlite3", profile, rss, spy
                    )
            rounds.append(got)
    finally:
        await fake.stop()
    return rounds, fake


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=4, help="alternating rounds (default 4)")
    p.add_argument("--rate", type=float, default=200, help="open-loop clicks/s (default 200)")
    p.add_argument("--seconds", type=float, default=5, help="each load's duration (default 5)")
    p.add_argument("--clients", type=int, default=64, help="closed-loop clients (default 64)")
    p.add_argument("--users", type=int, default=50_000, help="distinct users before RSS")
    p.add_argument(
        "--rss-rounds", type=int, default=1, help="last rounds that run the memory phase (1)"
    )
    p.add_argument("--settle", type=float, default=10, help="wait for late callbacks (default 10)")
    p.add_argument("--profile", type=Path, default=None, help="cProfile the first serve child")
    p.add_argument(
        "--pyspy", type=Path, default=None, help="py-spy round 1's open loop (bare: PATH.bare)"
    )
    p.add_argument(
        "--pyspy-phase",
        choices=("open", "closed"),
        default="open",
        help="which loop --pyspy samples: the open (200/s) or the closed one (default open)",
    )
    p.add_argument(
        "--floor",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also run the bare client that records each click, and hold serve to it (the "
        "default; --no-floor: serve and bare only, no goals)",
    )
    p.add_argument(
        "--root",
        type=Path,
        default=ROOT,
        help="the ZeroQuiz checkout `zeroquiz serve` runs from (default: the one holding this "
        "script), e.g. a `git archive HEAD` export to measure the last commit",
    )
    return p.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    started = mono()
    rounds, fake = asyncio.run(run(args))
    report(rounds, args)
    problems = Counter(p.split(":")[0] for p in fake.problems)
    print(f"bodies Discord would refuse: {len(fake.problems)} {dict(problems) or ''}")
    print(f"(bench took {mono() - started:.0f} s; {os.cpu_count()} CPUs, shared)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
