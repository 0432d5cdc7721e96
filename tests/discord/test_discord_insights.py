"""`/zeroquiz insights` on Discord, end to end: the seeded simulated team (tests/insights_sim.py)
plays in a server, then someone with Manage Server runs the command through the fake gateway;
the private embed shows the topics weakest first, the wrongly keyed question under "questions to
check" and the planted misconception. Someone without it is refused. Render tests: the largest
view the core can build fits one embed, in both languages."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_discord import (
    MANAGE_GUILD,
    QUIZ_CHANNEL,
    BotFactory,
    FakeDiscord,
    embed_total,
    message_problems,
)
from insights_sim import (
    BAD_KEY,
    MISCONCEPTION,
    TEMPLATE,
    WEAKEST_FIRST,
    biggest,
    simulate,
    simulated_bank,
)

from adapters.discord.render import reply_embed
from bot.bank import Bank
from bot.clock import FakeClock
from bot.i18n import t
from bot.model import LANGS, Lang
from bot.storage import Store

EPHEMERAL = 1 << 6


@pytest.fixture
def bank(tmp_path: Path) -> Bank:  # the bots of this module serve the simulated bank
    return simulated_bank(tmp_path)


async def test_an_admin_gets_the_insights_as_a_private_embed(
    bots: BotFactory, fake_discord: FakeDiscord, clock: FakeClock, bank: Bank, db_path: Path
) -> None:
    store = await Store.open(db_path)
    try:
        await simulate(store, bank, clock, QUIZ_CHANNEL)
    finally:
        await store.close()
    await bots.start()
    token = await fake_discord.slash("insights", {"period": "week"}, permissions=MANAGE_GUILD)
    reply = await fake_discord.reply_to(token)
    assert reply["flags"] & EPHEMERAL
    assert fake_discord.problems == []
    [embed] = reply["embeds"]
    assert embed["title"] == t("en", "insights_title", period=t("en", "period_week"))
    chart = embed["description"].split("```")[1].strip().splitlines()
    assert [line.split()[0] for line in chart] == list(WEAKEST_FIRST)
    fields = {f["name"]: f["value"] for f in embed["fields"]}
    check = fields[t("en", "insights_check")]
    assert check.count("check this question's key") == 1
    assert f"`{BAD_KEY}`: check this question's key" in check and f"C) {BAD_KEY} option C" in check
    missed = fields[t("en", "insights_missed")]
    assert f"`{TEMPLATE}`" in missed and MISCONCEPTION in missed

    # One topic, all time, as typed options.
    token = await fake_discord.slash(
        "insights", {"period": "all", "topic": "sim-stages"}, permissions=MANAGE_GUILD
    )
    [embed] = (await fake_discord.reply_to(token))["embeds"]
    assert embed["description"].split("```")[1].split()[0] == "sim-stages"

    refused = await fake_discord.reply_to(await fake_discord.slash("insights"))
    assert t("en", "not_admin") in refused["embeds"][0]["description"]


@pytest.mark.parametrize("lang", LANGS)
def test_the_largest_insights_fit_one_embed(lang: Lang) -> None:
    embed = reply_embed(biggest(lang)).to_dict()
    body = {"embeds": [embed], "flags": EPHEMERAL, "allowed_mentions": {"parse": []}}
    assert message_problems(body) == []
    assert embed_total(dict(embed)) <= 6000
    assert len(embed["fields"]) == 2 and all(len(f["value"]) <= 1024 for f in embed["fields"])
