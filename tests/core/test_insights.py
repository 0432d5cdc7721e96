"""Insights on a seeded simulated team (tests/insights_sim.py): players of known skill answer a
bank in which one question's key is wrong and one template has a planted misconception. The
insights list exactly that question under "questions to check", rank the topics by the
simulated weakness, and name the misconception. Both backends, in both languages."""

from __future__ import annotations

from pathlib import Path

import pytest
from insights_sim import (
    BAD_KEY,
    MISCONCEPTION,
    PLAYERS,
    TEMPLATE,
    WEAKEST_FIRST,
    simulate,
    simulated_bank,
)
from pg_server import on_both_backends

from bot.bank import Bank
from bot.clock import FakeClock
from bot.commands import Command, Context, dispatch
from bot.i18n import t
from bot.insights import Insights
from bot.model import LANGS, ChannelRef, TeamRef, UserRef
from bot.storage import Store
from bot.views import InsightsView, NoticeView

pytestmark = on_both_backends

CHANNEL = ChannelRef("test", "T1", "C1")
TEAM = TeamRef("test", "T1")


@pytest.fixture
def sim_bank(tmp_path: Path) -> Bank:
    return simulated_bank(tmp_path)


async def test_the_simulated_teams_insights_show_the_wrong_key_the_weak_topic_and_the_mistake(
    db_target: str, sim_bank: Bank
) -> None:
    clock = FakeClock()
    store = await Store.open(db_target)
    try:
        recorded = await simulate(store, sim_bank, clock, CHANNEL)
        assert recorded == PLAYERS * 5 * 12
        view = await Insights(store, sim_bank, clock).view(TEAM, "week", "en")
        assert [s.topic for s in view.topics] == list(WEAKEST_FIRST)
        assert [line.question_id for line in view.check] == [BAD_KEY]
        check = view.check[0].text
        assert "check this question's key" in check
        assert f"The key B) {BAD_KEY} option B" in check
        assert f"C) {BAD_KEY} option C" in check  # the option the strongest chose
        missed = {line.question_id: line.text for line in view.missed}
        assert TEMPLATE in missed and MISCONCEPTION in missed[TEMPLATE]
        assert BAD_KEY in missed  # its key makes it look missed too
        # A hand-written question's misconception is the most chosen wrong option's own reason.
        for lang in LANGS:
            shows = t(lang, "insights_shows_reason", reason="")
            lines = (await Insights(store, sim_bank, clock).view(TEAM, "week", lang)).missed
            ids = {q.id for q in sim_bank.questions}  # not the template's lines
            written = [line for line in lines if line.question_id in ids]
            assert written
            for line in written:
                question = sim_bank.get(line.question_id)
                assert question is not None and line.option is not None
                reason = question.reason(line.option)
                assert reason is not None and shows + reason.get(lang) in line.text
        # The chart: one fixed-width line per topic, with its share and answers; no earlier week.
        assert len(view.chart) == 3 and len({len(line) for line in view.chart}) == 1
        assert all("█" in line or "░" in line for line in view.chart)
        # All time says the same; another language says it in its own words.
        whole = await Insights(store, sim_bank, clock).view(TEAM, "all", "id")
        assert [s.topic for s in whole.topics] == list(WEAKEST_FIRST)
        assert [line.question_id for line in whole.check] == [BAD_KEY]
        assert "periksa kunci soal ini" in whole.check[0].text
        # One topic: only its questions.
        stages = await Insights(store, sim_bank, clock).view(TEAM, "all", "en", "sim-stages")
        assert [s.topic for s in stages.topics] == ["sim-stages"]
        assert all(line.question_id.startswith(("stg", BAD_KEY)) for line in stages.missed)
    finally:
        await store.close()


async def test_the_next_week_shows_the_trend_and_only_admins_may_ask(
    db_target: str, sim_bank: Bank
) -> None:
    clock = FakeClock()
    store = await Store.open(db_target)
    try:
        await simulate(store, sim_bank, clock, CHANNEL)
        await clock.advance(7 * 24 * 3600)  # the next week: the same team plays again
        await simulate(store, sim_bank, clock, CHANNEL, seed=24)
        import random

        from bot.app import build_quiz

        quiz = build_quiz(store, sim_bank, clock, random.Random(1))
        admin = UserRef("test", "T1", "UADMIN", "Admin")

        async def yes() -> bool:
            return True

        async def no() -> bool:
            return False

        view = await dispatch(
            quiz, Command("insights", ("sim-comms",)), Context(CHANNEL, admin, yes)
        )
        assert isinstance(view, InsightsView) and view.period == "week"
        assert [s.topic for s in view.topics] == ["sim-comms"]
        assert view.topics[0].previous is not None
        assert view.chart[0].rstrip()[-3:].strip("▲▼=+-− ").isdigit()  # the change, in points
        refused = await dispatch(quiz, Command("insights"), Context(CHANNEL, admin, no))
        assert isinstance(refused, NoticeView) and not refused.ok
        unknown = await dispatch(
            quiz, Command("insights", ("offlaod",)), Context(CHANNEL, admin, yes)
        )
        assert isinstance(unknown, NoticeView) and "offlaod" in unknown.text
    finally:
        await store.close()


async def test_a_team_that_never_played_is_told_so(db_target: str, sim_bank: Bank) -> None:
    store = await Store.open(db_target)
    try:
        view = await Insights(store, sim_bank, FakeClock()).view(TEAM, "month", "en")
        assert view.topics == () and view.empty_text == "No answers yet for this month."
        assert view.check == () and view.missed == ()
    finally:
        await store.close()
