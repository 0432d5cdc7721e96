"""A view reuses what it can without showing stale figures: a question's analysis is kept only
for the same rows (tests/insights_sim.py's simulated team), so after more answers a new view
says what a view worked out from scratch says; and views asked at once agree."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

from insights_sim import simulate, simulated_bank

from bot import analysis
from bot.clock import FakeClock
from bot.insights import Insights
from bot.model import ChannelRef, TeamRef
from bot.storage import Store
from bot.views import Period

CHANNEL = ChannelRef("test", "T1", "C1")
TEAM = TeamRef("test", "T1")


async def test_after_more_answers_a_view_shows_the_new_figures(
    db_target: str, tmp_path: Path
) -> None:
    bank = simulated_bank(tmp_path)
    clock = FakeClock()
    store = await Store.open(db_target)
    try:
        await simulate(store, bank, clock, CHANNEL)
        fresh = Insights(store, bank, clock, cache_for=timedelta(0))
        before = await fresh.view(TEAM, "all", "en")
        await simulate(store, bank, clock, CHANNEL, seed=24)  # the same team plays again
        after = await fresh.view(TEAM, "all", "en")
        analysis._ITEMS.clear()  # nothing kept: every question worked out from its rows
        scratch = await fresh.view(TEAM, "all", "en")
        assert after == scratch
        assert after.topics != before.topics  # the second round of answers shows
        # Views asked at once (one read of the team's rows) say what each says alone.
        kinds: list[tuple[Period, str | None]] = [
            ("all", None),
            ("week", None),
            ("month", None),
            ("all", "sim-stages"),
        ]
        together = await asyncio.gather(*(fresh.view(TEAM, p, "en", t) for p, t in kinds))
        alone = [await fresh.view(TEAM, p, "en", t) for p, t in kinds]
        assert together == alone
    finally:
        await store.close()
