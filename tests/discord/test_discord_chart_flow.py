"""A memory question on Discord, end to end with the real discord.py: the click's ephemeral
verdict and the reveal both carry the stages' chart as a code-block field, the asked stage marked
with the drawn answer."""

from __future__ import annotations

import pytest
from fake_discord import (
    MANAGE_GUILD,
    BotFactory,
    FakeDiscord,
    custom_ids,
    latest_round,
    right_option,
    user,
)

from bot.bank import Bank, load_bank
from bot.charts import MARK

TOPIC = "stage3-math"  # a tag of the template only


@pytest.fixture(name="bank", scope="module")
def tagged_bank() -> Bank:
    bundled = load_bank()
    stage3 = next(t for t in bundled.templates if t.id == "gen-mem-stage3")
    return Bank(bundled.questions, [stage3._replace(tags=(*stage3.tags, TOPIC))])


def _chart(embed: dict[str, object]) -> list[str]:
    fields = embed["fields"]
    assert isinstance(fields, list)
    [value] = [f["value"] for f in fields if f["value"].startswith("```\n")]
    assert value.endswith("\n```")
    return str(value)[4:-4].splitlines()


async def test_the_click_and_the_reveal_show_the_memory_chart(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    await fake_discord.reply_to(await fake_discord.slash("question", {"topic": TOPIC}))
    mid = fake_discord.posted[-1]
    ids = custom_ids(fake_discord.messages[mid])
    row = await latest_round(bot)
    question = bot.runtime.quiz.bank.get(row.question_id)
    assert question is not None and row.question_id.startswith("gen-mem-stage3@")
    assert "```" not in str(fake_discord.messages[mid]["embeds"])  # nothing given away
    right = right_option(bot, row)
    right_text = question.options[question.answer].en

    verdict = await fake_discord.reply_to(await fake_discord.click(mid, ids[right], user(1)))
    embed = verdict["embeds"][0]
    assert embed["fields"][1]["name"].startswith("Model states per GPU, ")
    lines = _chart(embed)
    assert [ln.split()[0] for ln in lines] == ["Plain", "Stage", "Stage", "Stage"]
    [marked] = [ln for ln in lines if ln.endswith(MARK)]
    assert marked.startswith("Stage 3 ") and right_text in marked

    await fake_discord.reply_to(
        await fake_discord.slash("close", who=user(1), permissions=MANAGE_GUILD)
    )
    await fake_discord.wait_for(lambda: fake_discord.messages[mid]["components"] == [])
    assert _chart(fake_discord.messages[mid]["embeds"][0]) == lines
