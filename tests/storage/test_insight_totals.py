"""The insights' read models (bot/storage/insights.py) are kept with each answer exactly as a
rebuild from the answers makes them, and follow a change of the team's time zone, on both
backends; the migration step that adds them builds them from a database's answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from insights_sim import simulate, simulated_bank
from pg_server import on_both_backends

from bot.clock import FakeClock
from bot.model import ChannelRef, TeamRef
from bot.storage import Store
from bot.storage import insights as tables

pytestmark = on_both_backends

CHANNEL = ChannelRef("test", "T1", "C1")


async def snapshot(store: Store) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    engine = store._engine
    async with engine.reader() as conn:
        totals = await conn.fetch(
            "SELECT team_id, period, period_start, item, answered, correct FROM item_totals"
            " ORDER BY team_id, period, period_start, item"
        )
        choices = await conn.fetch(
            "SELECT team_id, item, slot, answered, rated, score_sum, score_sq FROM item_choices"
            " ORDER BY team_id, item, slot"
        )
    return [tuple(r[k] for k in range(6)) for r in totals], [
        tuple(r[k] for k in range(7)) for r in choices
    ]


async def test_kept_with_each_answer_as_a_rebuild_makes_them(
    db_target: str, tmp_path: Path
) -> None:
    bank = simulated_bank(tmp_path)
    clock = FakeClock()
    store = await Store.open(db_target)
    try:
        recorded = await simulate(store, bank, clock, CHANNEL)
        kept = await snapshot(store)
        assert sum(row[4] for row in kept[0] if row[1] == "all") == recorded
        assert sum(row[3] for row in kept[1]) == recorded
        assert sum(row[4] for row in kept[1]) > recorded * 0.8  # most answers are rated
        async with store._engine.transaction() as tx:
            await tables.rebuild(tx)
        assert await snapshot(store) == kept

        # Another zone: weeks and months are recounted; all time is untouched.
        team = TeamRef("test", "T1")
        week = await store.insights.team("test", "T1")
        assert week is not None
        await store.teams.set_team_tz(team, "America/Los_Angeles", clock.now())
        moved = await snapshot(store)
        assert [r for r in moved[0] if r[1] == "all"] == [r for r in kept[0] if r[1] == "all"]
        for period in ("week", "month"):
            assert sum(int(r[4]) for r in moved[0] if r[1] == period) == recorded
        starts = {r[2] for r in moved[0] if r[1] == "week"}
        assert starts and starts.isdisjoint({r[2] for r in kept[0] if r[1] == "week"})
        assert moved[1] == kept[1]
    finally:
        await store.close()


def test_a_template_is_one_item_whatever_the_seed_shuffled() -> None:
    from bot.bank.templates import OPTIONS
    from bot.shuffle import permutation

    for seed in (1, 7, 123456):
        order = permutation(seed, OPTIONS)
        slots = [tables.item_and_slot(f"tpl@{seed}", option) for option in range(OPTIONS)]
        assert [item for item, _ in slots] == ["tpl"] * OPTIONS
        assert [slot for _, slot in slots] == list(order)
        assert tables.item_and_slot(f"tpl@{seed}", order.index(0)) == ("tpl", 0)  # the answer
    assert tables.item_and_slot("plain-question", 2) == ("plain-question", 2)
    assert tables.score_of(2, 4) is None and tables.score_of(4, 8) == 500
