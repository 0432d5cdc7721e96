"""Benchmark: the answer path (one click -> recorded answer + private feedback) on a real file.

Prints latency percentiles for N concurrent clicks through `Rounds.answer` (first-time players, then
the same players on the next question; both through the group commit), and the same number of
bare one-row `INSERT` + `COMMIT` transactions on a plain aiosqlite connection to the same file in
the same process as a baseline, with the ratios.
Run: .venv/bin/python tests/bench/answer_path.py [clicks]
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable
from pathlib import Path

import aiosqlite

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout, not an install

from bot.app import build_quiz
from bot.bank import load_bank
from bot.clock import FakeClock
from bot.model import ChannelRef, UserRef
from bot.storage import Store


def pct(samples: list[float], p: float) -> float:
    return statistics.quantiles(samples, n=100)[int(p) - 1] if len(samples) > 1 else samples[0]


async def timed(coro: Awaitable[object]) -> float:
    start = time.perf_counter()
    await coro
    return (time.perf_counter() - start) * 1000


async def main(clicks: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.sqlite3"
        db = await Store.open(path)
        quiz = build_quiz(db, load_bank(), FakeClock(), random.Random(1))
        view = await quiz.rounds.start_round(ChannelRef("bench", "T", "C"))
        assert view is not None
        users = [UserRef("bench", "T", f"U{i}", f"User {i}") for i in range(clicks)]
        t0 = time.perf_counter()
        answer_ms = await asyncio.gather(
            *(timed(quiz.rounds.answer(view.round_id, u, i % 4)) for i, u in enumerate(users))
        )
        answer_total = time.perf_counter() - t0
        # The usual day: the same people answer the next question.
        second = await quiz.rounds.start_round(ChannelRef("bench", "T", "C"))
        assert second is not None
        t2 = time.perf_counter()
        again_ms = await asyncio.gather(
            *(timed(quiz.rounds.answer(second.round_id, u, i % 4)) for i, u in enumerate(users))
        )
        again_total = time.perf_counter() - t2

        # The same connection settings as the store's writer (WAL, its synchronous level).
        sync = (await db.connection_settings())[0]["synchronous"]
        bare = await aiosqlite.connect(path, isolation_level=None)
        for pragma in ("journal_mode = WAL", f"synchronous = {sync}", "busy_timeout = 5000"):
            await bare.execute(f"PRAGMA {pragma}")
        lock = asyncio.Lock()

        async def bare_insert(i: int) -> None:
            async with lock:  # one connection: one transaction at a time, as before
                await bare.execute("BEGIN IMMEDIATE")
                await bare.execute(
                    "INSERT INTO players (team_id, platform_user, display_name) VALUES (1, ?, '')",
                    (f"B{i}",),
                )
                await bare.execute("COMMIT")

        t1 = time.perf_counter()
        base_ms = await asyncio.gather(*(timed(bare_insert(i)) for i in range(clicks)))
        base_total = time.perf_counter() - t1
        await bare.close()
        await db.close()
    level = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}.get(int(str(sync)), str(sync))
    print(f"{clicks} concurrent clicks on one round (real SQLite file, WAL, synchronous={level})")
    print(
        f"  Rounds.answer: total {answer_total * 1000:7.1f} ms, {clicks / answer_total:7.0f}/s, "
        f"p50 {pct(answer_ms, 50):6.1f} ms, p99 {pct(answer_ms, 99):6.1f} ms"
    )
    print(
        f"  bare INSERT : total {base_total * 1000:7.1f} ms, {clicks / base_total:7.0f}/s, "
        f"p50 {pct(base_ms, 50):6.1f} ms, p99 {pct(base_ms, 99):6.1f} ms"
    )
    print(
        f"  returning   : total {again_total * 1000:7.1f} ms, {clicks / again_total:7.0f}/s, "
        f"p50 {pct(again_ms, 50):6.1f} ms, p99 {pct(again_ms, 99):6.1f} ms"
    )
    print(f"  ratio first-time answer / bare INSERT (total time): {answer_total / base_total:.2f}x")
    print(f"  ratio returning answer / bare INSERT (total time): {again_total / base_total:.2f}x")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 200))
