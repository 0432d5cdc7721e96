"""Benchmark: what the review cards cost the answers' group commit, in one process.

Run: .venv/bin/python tests/bench/card_cost.py [clicks] [reps]

The same burst (N concurrent clicks by new players, then the same players on the next question)
on a fresh SQLite file with three card rules, interleaved rep by rep so the shared machine's
noise falls on all three alike: no cards (the baseline), every card through fsrs, and ZeroQuiz's
rule (a first review from fsrs's precomputed result, later ones through fsrs). Prints medians
and the ratios to the baseline.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout, not an install

from bot import review
from bot.app import build_core
from bot.bank import load_bank
from bot.clock import FakeClock
from bot.model import ChannelRef, UserRef
from bot.storage import Store
from bot.storage.records import CardRule

RULES: dict[str, CardRule | None] = {
    "no cards": None,
    "fsrs every time": review.fsrs_next_card,
    "zeroquiz": review.next_card,
}


async def burst(rule: CardRule | None, clicks: int) -> tuple[float, float]:
    """(first-time ms, returning ms) for one burst each."""
    with tempfile.TemporaryDirectory() as tmp:
        store = await Store.open(Path(tmp) / "bench.sqlite3")
        quiz = build_core(store, load_bank(), FakeClock(), random.Random(1), card_rule=rule).quiz
        users = [UserRef("bench", "T", f"U{i}", f"User {i}") for i in range(clicks)]
        times: list[float] = []
        for _ in range(2):
            view = await quiz.rounds.start_round(ChannelRef("bench", "T", "C"))
            assert view is not None
            start = time.perf_counter()
            await asyncio.gather(
                *(quiz.rounds.answer(view.round_id, u, i % 4) for i, u in enumerate(users))
            )
            times.append((time.perf_counter() - start) * 1000)
        await store.close()
        return times[0], times[1]


async def main(clicks: int, reps: int) -> None:
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in RULES}
    for _ in range(reps):
        for name, rule in RULES.items():
            runs[name].append(await burst(rule, clicks))
    base_new = statistics.median(r[0] for r in runs["no cards"])
    base_again = statistics.median(r[1] for r in runs["no cards"])
    print(f"{clicks} concurrent clicks, median of {reps} interleaved reps (real SQLite file)")
    for name in RULES:
        new = statistics.median(r[0] for r in runs[name])
        again = statistics.median(r[1] for r in runs[name])
        print(
            f"  {name:16} first-time {new:6.0f} ms ({new / base_new:4.2f}x)"
            f"   returning {again:6.0f} ms ({again / base_again:4.2f}x)"
        )


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    asyncio.run(main(*(args + [5000, 5][len(args) :])))
