"""Adaptive daily questions (opt-in per schedule, `daily 09:00 UTC every day adaptive`): over a
simulated month after the seeded simulated team (tests/insights_sim.py) has played, the topic
the team answers worst is asked more often than the one it answers best, and every topic at
least once; without `adaptive` the same month asks them about evenly. Both backends."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest
from conftest import CHANNEL
from insights_sim import WEAKEST_FIRST, simulate, simulated_bank
from pg_server import on_both_backends
from test_daily import admin, boot, walk

from bot.bank import Bank
from bot.clock import FakeClock
from bot.daily import adaptive
from bot.daily.spec import parse_spec
from bot.storage import Store

pytestmark = on_both_backends


@pytest.fixture
def sim_bank(tmp_path: Path) -> Bank:
    return simulated_bank(tmp_path)


async def month_of_topics(db_target: str, bank: Bank, words: str) -> Counter[str]:
    clock = FakeClock()
    store = await Store.open(db_target)
    try:
        await simulate(store, bank, clock, CHANNEL)
    finally:
        await store.close()
    stack = await boot(db_target, clock, bank)
    try:
        reply = await admin(stack, words)
        assert reply.ok, reply.text
        # Each day at 09:30, half an hour after the question is due (within its grace).
        first = clock.now().replace(hour=9, minute=30) + timedelta(days=1)
        await walk(stack, clock, first, first - clock.now())
        await walk(stack, clock, first + timedelta(days=29), timedelta(days=1))
        daily = [view for _, view in stack.port.posted if view.title.endswith("Daily question")]
        assert len(daily) == 30
        tags = []
        for view in daily:
            question = bank.get(view.question_id)
            assert question is not None
            tags.append(question.tags[0])
        return Counter(tags)
    finally:
        await stack.close()


async def test_an_adaptive_month_asks_the_weakest_topic_most_and_every_topic(
    db_target: str, sim_bank: Bank
) -> None:
    counts = await month_of_topics(db_target, sim_bank, "daily 09:00 UTC every day adaptive")
    weakest, _, strongest = WEAKEST_FIRST
    assert counts[weakest] > counts[strongest] + 2, counts
    assert all(counts[topic] >= 1 for topic in WEAKEST_FIRST), counts


async def test_without_adaptive_the_month_asks_the_topics_evenly(
    db_target: str, sim_bank: Bank
) -> None:
    counts = await month_of_topics(db_target, sim_bank, "daily 09:00 UTC every day")
    assert max(counts.values()) - min(counts.values()) <= 2, counts


def test_the_word_is_shown_and_stored_in_either_language() -> None:
    assert parse_spec(("09:00", "UTC", "mon-fri", "adaptive")).adaptive
    assert parse_spec(("09:00", "UTC", "adaptif", "4h")).adaptive
    assert not parse_spec(("09:00", "UTC", "mon-fri")).adaptive


def test_no_topic_is_starved_however_well_it_is_answered() -> None:
    """Ten topics, one answered right every time over thousands of answers: over 60 days it
    still comes up at least its floor's share (less one), and the picks follow the weights."""
    import random

    pool = [f"t{n}" for n in range(10)]
    totals = {t: (1000, 100 * n) for n, t in enumerate(pool)}  # t0 worst ... t9 nearly perfect
    totals["t9"] = (5000, 5000)
    rng = random.Random(3)
    asked: list[tuple[str, ...]] = []
    for _ in range(60):
        asked.append((adaptive.next_topic(pool, totals, asked, rng),))
    counts = Counter(tags[0] for tags in asked)
    floor = adaptive.FLOOR / len(pool) * 60
    assert all(counts[t] >= int(floor) - 1 for t in pool), counts
    assert counts["t0"] > counts["t5"] > counts["t9"], counts
    share = adaptive.weights(pool, totals)
    assert all(abs(counts[t] - share[t] * 60) <= 1.0 for t in pool), (counts, share)
