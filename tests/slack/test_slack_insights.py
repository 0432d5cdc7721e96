"""`/zeroquiz insights` on Slack, end to end: the seeded simulated team (tests/insights_sim.py)
plays in a workspace, then an admin types the command over signed HTTP to the real Bolt app and
opens the Home tab; both show the wrongly keyed question under "questions to check", the topics
weakest first and the planted misconception, inside Block Kit's limits. Someone who isn't an
admin is refused. Render tests: the largest view the core can build fits, in both languages."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_slack import CHANNEL, TEAM, FakeSlack, block_problems, open_harness, shown
from insights_sim import (
    BAD_KEY,
    MISCONCEPTION,
    TEMPLATE,
    WEAKEST_FIRST,
    biggest,
    simulate,
    simulated_bank,
)
from test_slack_home import assert_home_fits, home, open_home

from adapters.slack import render
from bot.clock import FakeClock
from bot.i18n import t
from bot.model import LANGS, ChannelRef, Lang
from bot.storage import Store


async def test_an_admin_gets_the_insights_privately_and_on_the_home_tab(
    fake: FakeSlack, db_path: Path, tmp_path: Path
) -> None:
    bank = simulated_bank(tmp_path)
    clock = FakeClock()
    store = await Store.open(db_path)
    try:
        await simulate(store, bank, clock, ChannelRef("slack", TEAM, CHANNEL))
    finally:
        await store.close()
    slack = await open_harness(fake, db_path, clock, bank)
    try:
        reply = await slack.ask("insights week", user="UADMIN")
        assert reply["response_type"] == "ephemeral"
        assert block_problems(reply["blocks"]) == []
        text = shown(reply["blocks"])
        assert t("en", "insights_title", period=t("en", "period_week")) in text
        chart = text.split("```")[1].splitlines()
        assert [line.split()[0] for line in chart] == list(WEAKEST_FIRST)
        check = text.split(t("en", "insights_check"), 1)[1]
        assert f"`{BAD_KEY}`: check this question's key" in check
        assert check.count("check this question's key") == 1
        assert f"C) {BAD_KEY} option C" in check
        missed = text.split(t("en", "insights_missed"), 1)[1].split(t("en", "insights_check"))[0]
        assert f"`{TEMPLATE}`" in missed and MISCONCEPTION in missed

        refused = await slack.ask("insights", user="U1")  # not an admin
        assert t("en", "not_admin") in shown(refused["blocks"])

        assert await open_home(slack, "UADMIN") == 200
        await fake.wait_until(lambda: "UADMIN" in fake.homes, "the Home tab of the admin")
        home = assert_home_fits(fake.homes["UADMIN"])
        assert f"`{BAD_KEY}`: check this question's key" in home
        assert await open_home(slack, "U1") == 200
        await fake.wait_until(lambda: "U1" in fake.homes, "the Home tab of U1")
        assert t("en", "insights_check") not in assert_home_fits(fake.homes["U1"])
    finally:
        await slack.close()


@pytest.mark.parametrize("lang", LANGS)
def test_the_largest_insights_fit_a_message_and_the_home_tab(lang: Lang) -> None:
    message = render.reply_message(biggest(lang))
    assert block_problems(message.blocks) == []
    text = shown(message.blocks)
    assert "<!channel>" not in text and "<@U1>" not in text
    assert sum(len(b.get("text", {}).get("text", "")) for b in message.blocks) < 12_000


@pytest.mark.parametrize("lang", LANGS)
def test_an_admins_home_with_the_largest_insights_fits(lang: Lang) -> None:
    page = home(lang, [(True, 10)], [], None, ())._replace(insights=biggest(lang))
    text = assert_home_fits(render.home_view(page))
    assert t(lang, "insights_check") in text and t(lang, "insights_missed") in text
