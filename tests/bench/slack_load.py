"""Benchmark: `zeroquiz serve` in Slack HTTP mode under click load, against a bare Bolt app.

Both apps run as real child processes, one after the other (never together: the machine has 2
cores), against a fake Slack Web API + response_url receiver hosted by this process on 127.0.0.1.
The baseline (tests/bench/bare_bolt.py) is a slack-bolt AsyncApp whose answer handler only acks
and sends one ephemeral respond(). ZeroQuiz gets a question first (`/zeroquiz question`), and every
click is a signed block_actions POST on that question from a new user, with its own response_url,
so each private verdict is matched to its click. For each app, in the same run:

1. Open loop: RATE clicks/s for SECONDS. HTTP ack latency (time to the HTTP response) p50/p99,
   verdict latency (send -> response_url POST arrives) p50/p99, where a click with no verdict
   counts as infinitely late; clicks with HTTP 200 but no verdict SETTLE s after the load ended;
   non-200 answers (timeouts and errors included); whether early clicks are served first: mean
   verdict latency of the first 10% of clicks vs the last 10%, and the share of clicks whose
   verdict came after the verdict of a click sent >= 1 s later (no verdict counts as later).
2. Closed loop: CLIENTS concurrent clients for SECONDS, each sending its next click as soon as
   the previous HTTP response came back: clicks acknowledged, verdicts received, verdicts/s
   (verdicts that arrived during the load, per second), clicks acknowledged but without a verdict
   SETTLE s after the load ended.
3. Memory: VmRSS of the child before the load and after it (after the last settle), and VmHWM.

Then it prints the ratios serve/bare with their goals and PASS/MISS. It is a measurement, not a
test: it always exits 0 (unless it cannot run at all). About 2 minutes with the defaults; only
127.0.0.1 traffic; a fresh temporary database per run.

Run: .venv/bin/python tests/bench/slack_load.py [--rate 200 --seconds 10 --clients 64]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from operator import contains
from pathlib import Path
from typing import Any

import aiohttp
from loadkit import (
    BOT_TOKEN,
    SECRET,
    Child,
    ClickMaker,
    FakeApi,
    child_env,
    closed_loop,
    mean,
    now,
    open_loop,
    overtaken_fraction,
    pct,
    poll,
    settle,
    signed_headers,
    slash_body,
    synthetic_question,
)

ROOT = Path(__file__).resolve().parents[2]
BARE = Path(__file__).resolve().parent / "bare_bolt.py"
STARTUP_SECONDS = 60.0
STOP_SECONDS = 30.0
WARMUP_CLICKS = 5


@dataclass
class Result:
    name: str
    measured: bool = False
    # open loop
    o_sent: int = 0
    o_ok: int = 0
    o_statuses: Counter[str] = field(default_factory=Counter)
    o_lag_p99: float = math.nan
    o_lag_max: float = math.nan
    o_ack_p50: float = math.nan
    o_ack_p99: float = math.nan
    o_verdict_p50: float = math.nan
    o_verdict_p99: float = math.nan
    o_missing: int = 0
    o_first10: float = math.nan
    o_last10: float = math.nan
    o_overtaken: float = math.nan
    o_cpu_child: float = math.nan  # CPU seconds used during the load and its settle
    o_cpu_bench: float = math.nan
    # closed loop
    c_sent: int = 0
    c_ok: int = 0
    c_statuses: Counter[str] = field(default_factory=Counter)
    c_acks_per_s: float = math.nan
    c_verdicts: int = 0
    c_verdicts_in_load: int = 0
    c_verdicts_per_s: float = math.nan
    c_verdict_p50: float = math.nan
    c_verdict_p99: float = math.nan
    c_missing: int = 0
    c_cpu_child: float = math.nan
    c_cpu_bench: float = math.nan
    # process
    rss_before: int = 0
    rss_after: int = 0
    hwm_after: int = 0
    exit_code: int | None = None
    extra_replies: int = 0
    late: int = 0  # verdicts that came after their settle deadline (e.g. during the shutdown)
    stop_seconds: float = math.nan
    verdict_texts: Counter[str] = field(default_factory=Counter)
    api_calls: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rate", type=float, default=200, help="open-loop clicks/s (default 200)")
    p.add_argument("--seconds", type=float, default=10, help="open-loop duration (default 10)")
    p.add_argument("--clients", type=int, default=64, help="closed-loop clients (default 64)")
    p.add_argument(
        "--closed-seconds", type=float, default=None, help="closed-loop duration (default SECONDS)"
    )
    p.add_argument(
        "--settle", type=float, default=10, help="wait for verdicts after a load (default 10)"
    )
    p.add_argument("--only", choices=["both", "serve", "bare"], default="both")
    p.add_argument(
        "--root",
        type=Path,
        default=ROOT,
        help="the ZeroQuiz checkout `zeroquiz serve` runs from (default: the one holding this "
        "script), e.g. a `git archive HEAD` export to measure the last commit",
    )
    args = p.parse_args(argv)
    if args.closed_seconds is None:
        args.closed_seconds = args.seconds
    return args


async def start_child(name: str, fake: FakeApi, db: Path, root: Path) -> Child:
    env = child_env(
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_SIGNING_SECRET=SECRET,
        SLACK_API_URL=fake.api_url,
        PYTHONPATH=str(root),
    )
    if name == "serve":
        cmd = [sys.executable, "-m", "adapters.cli", "serve", "--db", str(db), "--port", "0"]
    else:
        cmd = [sys.executable, str(BARE)]
    return await Child.start(name, cmd, env, str(root), STARTUP_SECONDS)


async def post(http: aiohttp.ClientSession, url: str, body: str) -> int:
    async with http.post(url, data=body.encode(), headers=signed_headers(body)) as response:
        await response.read()
        return response.status


async def bench_app(
    name: str,
    fake: FakeApi,
    http: aiohttp.ClientSession,
    args: argparse.Namespace,
    db: Path,
    message: dict[str, Any] | None,
) -> tuple[Result, dict[str, Any]]:
    """Start one app, load it open-loop then closed-loop, stop it. Returns (figures, question)."""
    result = Result(name)
    tag = name[0]
    child = await start_child(name, fake, db, args.root.resolve())
    phases: list[tuple[list[Any], float]] = []  # (clicks, settle deadline)
    try:
        url = await child.url
        if name == "serve":
            posted = len(fake.posted)
            key = f"{tag}-command"
            status = await post(
                http, url, slash_body("question", "UASKER", f"{fake.base}/respond/{key}")
            )
            if status != 200:
                raise RuntimeError(f"/zeroquiz question answered HTTP {status}")
            await poll(lambda: key in fake.verdicts, 30, "the reply to /zeroquiz question")
            question = fake.question() if len(fake.posted) > posted else None
            if question is None:
                raise RuntimeError(f"no question posted: {fake.verdicts[key].text!r}")
        else:
            question = message or synthetic_question()
        maker = ClickMaker(question, fake.respond_base)
        for n in range(WARMUP_CLICKS):  # first request: Bolt's auth.test, connection pools
            key = f"{tag}-warm{n}"
            raw, headers = maker.body(f"U{tag.upper()}W{n:04d}", key, n)
            async with http.post(url, data=raw.encode(), headers=headers) as response:
                await response.read()
            await poll(partial(contains, fake.verdicts, key), 30, "a warm-up verdict")
        await asyncio.sleep(1.0)
        result.rss_before = child.memory_kb()[0]
        calls_before = Counter(fake.calls)
        extra_before = fake.extra_replies

        # 1. open loop
        total = max(1, round(args.rate * args.seconds))
        prepared = []
        for i in range(total):
            key = f"{tag}-o{i}"
            prepared.append((key, *maker.body(f"U{tag.upper()}O{i:06d}", key, i)))
        cpu = child.cpu_seconds(), time.process_time()
        clicks, tasks, _, end = await open_loop(http, url, prepared, args.rate)
        await settle(fake, clicks, end + args.settle, tasks)
        result.o_cpu_child = child.cpu_seconds() - cpu[0]
        result.o_cpu_bench = time.process_time() - cpu[1]
        summarise_open(result, fake, clicks, end + args.settle)
        phases.append((clicks, end + args.settle))
        await asyncio.sleep(1.0)

        # 2. closed loop
        def make(c: int, n: int) -> tuple[str, str, dict[str, str]]:
            key = f"{tag}-c{c}-{n}"
            return (key, *maker.body(f"U{tag.upper()}C{c:03d}{n:06d}", key, n + c))

        cpu = child.cpu_seconds(), time.process_time()
        cclicks, start, end = await closed_loop(http, url, args.clients, args.closed_seconds, make)
        await settle(fake, cclicks, end + args.settle)
        result.c_cpu_child = child.cpu_seconds() - cpu[0]
        result.c_cpu_bench = time.process_time() - cpu[1]
        summarise_closed(result, fake, cclicks, start, end, end + args.settle)
        phases.append((cclicks, end + args.settle))
        result.rss_after, result.hwm_after = child.memory_kb()
        result.api_calls = fake.calls - calls_before
        result.measured = True
        result.extra_replies = fake.extra_replies - extra_before
    finally:
        result.exit_code, result.stop_seconds = await child.stop(STOP_SECONDS)
        await asyncio.sleep(0.2)  # the last replies sent during the shutdown
        result.late = sum(
            1
            for clicks, deadline in phases
            for c in clicks
            if c.key in fake.verdicts and fake.verdicts[c.key].at > deadline
        )
        note_problems(result, child, fake)
    return result, question


def summarise_open(result: Result, fake: FakeApi, clicks: list[Any], deadline: float) -> None:
    result.o_sent = len(clicks)
    ok = [c for c in clicks if c.ok]
    result.o_ok = len(ok)
    result.o_statuses = Counter(str(c.status) for c in clicks if not c.ok)
    lags = [c.sent - c.due for c in clicks if not math.isnan(c.sent)]
    result.o_lag_p99, result.o_lag_max = pct(lags, 99), max(lags, default=math.nan)
    acks = [c.acked - c.sent for c in ok]
    result.o_ack_p50, result.o_ack_p99 = pct(acks, 50), pct(acks, 99)
    latency = [verdict_latency(fake, c, deadline) for c in ok]
    result.o_verdict_p50, result.o_verdict_p99 = pct(latency, 50), pct(latency, 99)
    result.o_missing = sum(1 for x in latency if math.isinf(x))
    tenth = max(1, len(ok) // 10)  # clicks in send order
    result.o_first10 = mean([x for x in latency[:tenth] if not math.isinf(x)])
    result.o_last10 = mean([x for x in latency[-tenth:] if not math.isinf(x)])
    result.o_overtaken = overtaken_fraction(
        [(c.sent, c.sent + x) for c, x in zip(ok, latency, strict=True)]
    )
    for c in ok:
        if c.key in fake.verdicts:
            result.verdict_texts[fake.verdicts[c.key].text[:60]] += 1


def summarise_closed(
    result: Result, fake: FakeApi, clicks: list[Any], start: float, end: float, deadline: float
) -> None:
    result.c_sent = len(clicks)
    ok = [c for c in clicks if c.ok]
    result.c_ok = len(ok)
    result.c_statuses = Counter(str(c.status) for c in clicks if not c.ok)
    result.c_acks_per_s = len(ok) / (end - start)
    latency = [verdict_latency(fake, c, deadline) for c in ok]
    result.c_verdict_p50, result.c_verdict_p99 = pct(latency, 50), pct(latency, 99)
    result.c_missing = sum(1 for x in latency if math.isinf(x))
    result.c_verdicts = len(ok) - result.c_missing
    in_load = [c for c in ok if c.key in fake.verdicts and fake.verdicts[c.key].at <= end]
    result.c_verdicts_in_load = len(in_load)
    result.c_verdicts_per_s = len(in_load) / (end - start)
    for c in ok:
        if c.key in fake.verdicts:
            result.verdict_texts[fake.verdicts[c.key].text[:60]] += 1


def verdict_latency(fake: FakeApi, click: Any, deadline: float) -> float:
    verdict = fake.verdicts.get(click.key)
    if verdict is None or verdict.at > deadline:
        return math.inf
    return float(verdict.at - click.sent)


def note_problems(result: Result, child: Child, fake: FakeApi) -> None:
    if result.exit_code != 0:
        result.problems.append(f"exit code {result.exit_code} after {result.stop_seconds:.1f} s")
    for level, count in sorted(child.levels.items()):
        result.problems.append(f"{count} {level} line(s) in its log")
    for message, count in child.messages.most_common(5):
        result.problems.append(f"  {count}x {message.strip()}")
    if child.levels and not child.messages:
        result.problems.extend(f"  {line}" for line in list(child.tail)[-5:])


# -- printing --------------------------------------------------------------------------------------
def ms(x: float) -> str:
    if math.isnan(x):
        return "-"
    if math.isinf(x):
        return "never"
    return f"{x * 1000:.1f} ms"


def num(x: float, digits: int = 0) -> str:
    return "-" if math.isnan(x) else f"{x:,.{digits}f}"


def ratio(a: float, b: float) -> float:
    if math.isnan(a) or math.isnan(b) or b == 0:
        return math.nan
    return a / b


def statuses(counter: Counter[str]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in counter.most_common(3)) or "-"


def report(results: dict[str, Result], args: argparse.Namespace) -> None:
    bare = results.get("bare", Result("bare"))
    serve = results.get("serve", Result("serve"))
    rate = f"{args.rate:g}/s x {args.seconds:g} s"
    rows: list[tuple[str, str, str, str]] = []

    def row(label: str, attr: str, fmt: Any = ms, show_ratio: bool = True) -> None:
        a, b = getattr(serve, attr), getattr(bare, attr)
        both = serve.measured and bare.measured and isinstance(a, int | float)
        r = ratio(float(a), float(b)) if show_ratio and both else math.nan
        shown = [fmt(x) if res.measured else "-" for x, res in ((b, bare), (a, serve))]
        rows.append((label, shown[0], shown[1], "-" if math.isnan(r) else f"{r:.2f}"))

    def cpu_row(phase: str) -> None:
        """The app's CPU seconds with the bench's own (the load generator and the fake) beside
        it: a bench near one CPU-second per second of load would itself be the bottleneck."""
        shown = []
        for r in (bare, serve):
            app, bench = getattr(r, f"{phase}_cpu_child"), getattr(r, f"{phase}_cpu_bench")
            shown.append(f"{num(app, 1)} / {num(bench, 1)}" if r.measured else "-")
        rows.append(("  CPU s, app / bench (load+settle)", shown[0], shown[1], "-"))

    def section(title: str) -> None:
        rows.append((title, "", "", ""))

    section(f"open loop {rate}")
    row("  clicks sent", "o_sent", num, False)
    row("  HTTP 200", "o_ok", num, False)
    row("  non-200 (incl. timeouts)", "o_statuses", statuses, False)
    row("  generator lag p99", "o_lag_p99", ms, False)
    row("  ack p50", "o_ack_p50")
    row("  ack p99", "o_ack_p99")
    row("  verdict p50", "o_verdict_p50")
    row("  verdict p99", "o_verdict_p99")
    row(f"  200 but no verdict +{args.settle:g} s", "o_missing", num, False)
    row("  verdict mean, first 10%", "o_first10")
    row("  verdict mean, last 10%", "o_last10")
    row("  overtaken by a click >=1 s later", "o_overtaken", lambda x: num(x * 100, 1) + " %")
    cpu_row("o")
    section(f"closed loop {args.clients} clients x {args.closed_seconds:g} s")
    row("  clicks sent", "c_sent", num, False)
    row("  HTTP 200", "c_ok", num)
    row("  non-200 (incl. timeouts)", "c_statuses", statuses, False)
    row("  acks/s", "c_acks_per_s", num)
    row(f"  verdicts (by +{args.settle:g} s)", "c_verdicts", num)
    row("  verdicts during the load", "c_verdicts_in_load", num)
    row("  verdicts/s (during the load)", "c_verdicts_per_s", num)
    row("  verdict p50", "c_verdict_p50")
    row("  verdict p99", "c_verdict_p99")
    row(f"  200 but no verdict +{args.settle:g} s", "c_missing", num, False)
    cpu_row("c")
    section("process")
    row("  VmRSS before load", "rss_before", lambda x: f"{x / 1024:.1f} MiB")
    row("  VmRSS after load", "rss_after", lambda x: f"{x / 1024:.1f} MiB")
    row("  VmHWM (peak)", "hwm_after", lambda x: f"{x / 1024:.1f} MiB")
    row("  stop (SIGTERM -> exit)", "stop_seconds", lambda x: num(x, 1) + " s", False)
    row(f"  verdicts later than +{args.settle:g} s", "late", num, False)
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    header = ("", "bare bolt", "zeroquiz serve", "serve/bare")
    print()
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())

    missing = serve.o_missing + serve.c_missing if serve.measured else math.nan
    both = serve.measured and bare.measured
    p99 = serve.o_verdict_p99 if serve.measured else math.nan

    def versus(a: float, b: float) -> float:
        return ratio(a, b) if both else math.nan

    goals: list[tuple[str, float, str, Callable[[float], bool], str | None]] = [
        (f"ack p99 serve/bare at {args.rate:g}/s", versus(serve.o_ack_p99, bare.o_ack_p99),
         "<= 1.5", lambda x: x <= 1.5, "{:.2f}"),
        ("verdicts/s serve/bare, closed loop",
         versus(serve.c_verdicts_per_s, bare.c_verdicts_per_s), ">= 0.8", lambda x: x >= 0.8,
         "{:.2f}"),
        ("VmRSS after load serve/bare", versus(serve.rss_after, bare.rss_after), "<= 1.5",
         lambda x: x <= 1.5, "{:.2f}"),
        (f"verdict p99 of serve at {args.rate:g}/s", p99, "<= 1 s", lambda x: x <= 1.0, None),
        ("serve clicks without verdict (both loops)", float(missing), "0", lambda x: x == 0,
         "{:.0f}"),
    ]  # fmt: skip
    print()
    print("goals")
    for label, value, goal, ok, fmt in goals:
        shown = ms(value) if fmt is None else ("-" if math.isnan(value) else fmt.format(value))
        verdict = "-" if math.isnan(value) else ("PASS" if ok(value) else "MISS")
        print(f"  {label:<44} {shown:>12}   goal {goal:<7} {verdict}")

    print()
    for result in (bare, serve):
        if not result.measured and not result.problems:
            continue
        print(f"{result.name}:")
        print(f"  open-loop generator lag, max: {ms(result.o_lag_max)}")
        texts = ", ".join(f"{v}x {k!r}" for k, v in result.verdict_texts.most_common(3))
        print(f"  verdicts: {texts or '-'}")
        if fake_extra := result.extra_replies:
            print(f"  {fake_extra} second reply(ies) on a response_url already answered")
        calls = ", ".join(f"{k} {v}" for k, v in sorted(result.api_calls.items()))
        print(f"  Web API calls during the loads: {calls or '-'}")
        for problem in result.problems:
            print(f"  {problem}")


async def run(args: argparse.Namespace) -> dict[str, Result]:
    fake = FakeApi()
    await fake.start()
    results: dict[str, Result] = {}
    timeout = aiohttp.ClientTimeout(total=args.settle)
    try:
        async with (
            aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), timeout=timeout) as http,
        ):
            message = None
            order = ["serve", "bare"] if args.only == "both" else [args.only]
            for name in order:  # serve first, so the bare app is clicked on the same message
                with tempfile.TemporaryDirectory(prefix="zq-bench-") as tmp:
                    print(f"running {name}...", file=sys.stderr, flush=True)
                    try:
                        results[name], question = await bench_app(
                            name, fake, http, args, Path(tmp) / "bench.sqlite3", message
                        )
                        message = message or (question if name == "serve" else None)
                    except Exception as exc:
                        print(f"{name}: could not be measured: {exc!r}", file=sys.stderr)
                        results[name] = Result(name, problems=[f"not measured: {exc!r}"])
    finally:
        await fake.stop()
    return results


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    per_app = STARTUP_SECONDS + 2 * args.seconds + 2 * args.settle + STOP_SECONDS + 40
    started = now()
    try:
        results = asyncio.run(asyncio.wait_for(run(args), 2 * per_app))
    except TimeoutError:
        print("the bench ran out of time", file=sys.stderr)
        return 0
    report(results, args)
    print(f"\n(bench took {now() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
