"""Benchmark: CPU per click when every click is its own group commit (the 200 clicks/s case).

At 200 clicks a second most clicks arrive alone, so each is a whole transaction (BEGIN, its
statements, COMMIT and the fsync of synchronous=FULL) before its acknowledgement: the figure
that decided the platforms' CPU per click against the bare apps. This sends CLICKS answers by new
people one after another through `Rounds.answer` on a real file (each waits for its commit) and
prints the process's CPU per click (user and system, all threads) and the wall time per click,
for each --root given (a checkout, e.g. a `git archive` of main), in alternating rounds, medians.
Run: .venv/bin/python tests/bench/lone_commit.py [--clicks 1500 --rounds 3 --root A --root B]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import asyncio, os, random, sys, tempfile, time
from pathlib import Path
from bot.app import build_quiz
from bot.bank import load_bank
from bot.clock import FakeClock
from bot.model import ChannelRef, UserRef
from bot.storage import Store

async def main(n):
    with tempfile.TemporaryDirectory(prefix="zq-lone-") as tmp:
        db = await Store.open(Path(tmp) / "bench.sqlite3")
        quiz = build_quiz(db, load_bank(), FakeClock(), random.Random(1))
        view = await quiz.rounds.start_round(ChannelRef("bench", "T", "C"))
        for i in range(50):  # warm: caches, statements prepared
            await quiz.rounds.answer(view.round_id, UserRef("bench", "T", f"W{i}", f"W {i}"), i % 4)
        t0, w0 = os.times(), time.perf_counter()
        for i in range(n):
            await quiz.rounds.answer(view.round_id, UserRef("bench", "T", f"U{i}", f"U {i}"), i % 4)
        t1, w1 = os.times(), time.perf_counter()
        await db.close()
    cpu = t1.user - t0.user + t1.system - t0.system
    print(cpu * 1000 / n, (t1.system - t0.system) * 1000 / n, (w1 - w0) * 1000 / n)

asyncio.run(main(int(sys.argv[1])))
"""


def one(root: Path, clicks: int) -> tuple[float, float, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(clicks)],
        cwd=root,
        env=os.environ | {"PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    cpu, system, wall = (float(x) for x in out)
    return cpu, system, wall


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--clicks", type=int, default=1500)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--root", type=Path, action="append", default=None)
    args = p.parse_args()
    roots: list[Path] = args.root or [ROOT]
    print(f"load average {os.getloadavg()[0]:.2f}; {args.clicks} lone clicks per round")
    got: dict[Path, list[tuple[float, float, float]]] = {r: [] for r in roots}
    for i in range(args.rounds):
        for root in roots if i % 2 == 0 else roots[::-1]:
            got[root].append(one(root, args.clicks))
    for root, runs in got.items():
        cpu, system, wall = (statistics.median(r[k] for r in runs) for k in range(3))
        rounds = ", ".join(f"{r[0]:.2f}" for r in runs)
        print(f"{root}: CPU {cpu:.2f} ms per click (system {system:.2f}; rounds {rounds}), "
              f"wall {wall:.2f} ms")  # fmt: skip
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
