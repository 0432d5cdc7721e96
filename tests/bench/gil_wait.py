"""Benchmark: a commit's latency while the event loop is busy, by the GIL's switch interval.

The SQLite writer thread gives the GIL up around each SQLite call of a commit (~12) and must win
it back from the event loop's thread each time; a thread that holds the GIL keeps it until it
blocks or the switch interval (CPython's default 5 ms) has passed. This runs, in one process on a
real file, answers by new people one after another through `Quiz.answer` (each its own commit)
while a task keeps the loop busy (by default never idle: slices of Python with a turn of the loop
between them, as a stream of clicks being parsed and answered does; --idle-ms pauses it), and
prints each answer's latency (p50, p99) for each switch interval, in alternating rounds (the
machine is shared: compare within the run). `zeroquiz serve` sets adapters.serve.SWITCH_INTERVAL.
Run: .venv/bin/python tests/bench/gil_wait.py [--answers 200 --rounds 4 --busy-ms 0.2 --idle-ms 0]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT)]

from adapters.serve import SWITCH_INTERVAL  # noqa: E402
from bot.app import build_quiz  # noqa: E402
from bot.bank import load_bank  # noqa: E402
from bot.clock import FakeClock  # noqa: E402
from bot.model import ChannelRef, UserRef  # noqa: E402
from bot.storage import Store  # noqa: E402

DEFAULT = 0.005  # CPython's


def spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


async def busy(stop: asyncio.Event, slice_s: float, idle_s: float) -> None:
    """Python on the loop's thread in slices, with a pause of the loop between them."""
    while not stop.is_set():
        spin(slice_s)
        await asyncio.sleep(idle_s)


async def one_round(
    quiz: object, round_id: int, first: int, n: int, busy_s: float, idle_s: float
) -> list[float]:
    stop = asyncio.Event()
    loader = asyncio.create_task(busy(stop, busy_s, idle_s))
    latencies: list[float] = []
    for i in range(first, first + n):
        who = UserRef("bench", "T", f"U{i}", f"U {i}")
        began = time.perf_counter()
        await quiz.answer(round_id, who, i % 4)  # type: ignore[attr-defined]
        latencies.append(time.perf_counter() - began)
    stop.set()
    await loader
    return latencies


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))]


async def main(args: argparse.Namespace) -> None:
    intervals = [DEFAULT, SWITCH_INTERVAL]
    got: dict[float, list[tuple[float, float]]] = {s: [] for s in intervals}
    with tempfile.TemporaryDirectory(prefix="zq-gil-") as tmp:
        db = await Store.open(Path(tmp) / "bench.sqlite3")
        quiz = build_quiz(db, load_bank(), FakeClock(), random.Random(1))
        view = await quiz.start_round(ChannelRef("bench", "T", "C"))
        assert view is not None
        for i in range(50):  # warm: caches, statements prepared
            await quiz.answer(view.round_id, UserRef("bench", "T", f"W{i}", f"W {i}"), i % 4)
        first = 0
        for r in range(args.rounds):
            for s in intervals if r % 2 == 0 else intervals[::-1]:
                sys.setswitchinterval(s)
                lat = await one_round(quiz, view.round_id, first, args.answers,
                                      args.busy_ms / 1000, args.idle_ms / 1000)  # fmt: skip
                first += args.answers
                got[s].append((pct(lat, 50), pct(lat, 99)))
        sys.setswitchinterval(DEFAULT)
        await db.close()
    load = os.getloadavg()[0]
    print(f"load average {load:.2f}; {args.answers} answers per round, loop busy {args.busy_ms:g}"
          f" ms then idle {args.idle_ms:g} ms; medians of {args.rounds} rounds")  # fmt: skip
    for s, rows in got.items():
        p50, p99 = (statistics.median(row[k] for row in rows) for k in range(2))
        spread = ", ".join(f"{row[1] * 1000:.1f}" for row in rows)
        print(f"switch interval {s * 1000:g} ms: answer p50 {p50 * 1000:.2f} ms, "
              f"p99 {p99 * 1000:.2f} ms (rounds {spread})")  # fmt: skip


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--answers", type=int, default=200)
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--busy-ms", type=float, default=0.2)
    p.add_argument("--idle-ms", type=float, default=0.0)
    asyncio.run(main(p.parse_args()))
