"""A generated question on Discord, end to end with the real discord.py: the topic only a
template matches posts the drawn numbers, a click gets the worked arithmetic, a restart keeps
the numbers, and `/zeroquiz close` reveals the same question again."""

from __future__ import annotations

import pytest
from fake_discord import (
    EPHEMERAL,
    MANAGE_GUILD,
    BotFactory,
    FakeDiscord,
    custom_ids,
    latest_round,
    right_option,
    text_of,
    user,
)

from bot import presenter
from bot.bank import Bank, load_bank

TOPIC = "offload-math"  # a tag of the template only, so no hand-written question can be asked


def with_tagged_template() -> Bank:
    """The bundled questions and one template, tagged with a topic of its own."""
    bundled = load_bank()
    offload = next(t for t in bundled.templates if t.id == "gen-offload-gpu")
    return Bank(bundled.questions, [offload._replace(tags=(*offload.tags, TOPIC))])


@pytest.fixture(name="bank", scope="module")
def tagged_bank() -> Bank:
    return with_tagged_template()


async def test_a_generated_question_is_posted_answered_kept_over_a_restart_and_revealed(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    first = await bots.start()
    posted = await fake_discord.reply_to(await fake_discord.slash("question", {"topic": TOPIC}))
    assert posted["flags"] & EPHEMERAL and text_of(posted) == "Question posted."
    mid = fake_discord.posted[-1]
    ids = custom_ids(fake_discord.messages[mid])
    row = await latest_round(first)
    assert row.question_id.startswith("gen-offload-gpu@")
    question = first.runtime.quiz.bank.get(row.question_id)
    assert question is not None
    message = fake_discord.messages[mid]
    assert message["embeds"][0]["description"].startswith(question.prompt.en)  # drawn numbers
    right = right_option(first, row)
    right_text = question.options[question.answer].en
    assert right_text.endswith(" GB") and right_text in message["embeds"][0]["description"]

    verdict = await fake_discord.reply_to(await fake_discord.click(mid, ids[right], user(1)))
    assert verdict["flags"] & EPHEMERAL and text_of(verdict).startswith("✅ Correct!")
    worked = verdict["embeds"][0]["fields"][0]["value"]
    assert worked == question.explanation.en and f"= {right_text}" in worked

    # A restart, with a bank loaded afresh (nothing drawn is remembered but the round's id).
    await bots.stop(first)
    bots.bank = with_tagged_template()
    second = await bots.start()
    assert second.runtime.quiz.bank is not first.runtime.quiz.bank
    assert ids[-1] == f"zqt:{row.id}"  # Type it, after the letters (test_discord_typed.py)
    wrong = (right + 1) % len(question.options)
    late = await fake_discord.reply_to(await fake_discord.click(mid, ids[wrong], user(2)))
    assert text_of(late) == (
        f"❌ Not quite: you chose {'ABCD'[wrong]}. The answer is {'ABCD'[right]}) {right_text}"
    )
    # The drawn number's own mistake, drawn again after the restart, then the worked answer.
    reason = question.reason(presenter.display_order(row, question)[wrong])
    assert reason is not None
    mistake, why = late["embeds"][0]["fields"][:2]
    assert (mistake["name"], mistake["value"]) == (f"Why {'ABCD'[wrong]} is not right", reason.en)
    assert why["value"] == question.explanation.en

    closed = await fake_discord.reply_to(
        await fake_discord.slash("close", who=user(1), permissions=MANAGE_GUILD)
    )
    assert text_of(closed) == "Closed the open question."
    await fake_discord.wait_for(lambda: fake_discord.messages[mid]["components"] == [])
    embed = fake_discord.messages[mid]["embeds"][0]
    assert embed["description"].startswith(question.prompt.en)  # the same numbers again
    marked = [ln for ln in embed["description"].splitlines() if ln.startswith("✅")]
    assert len(marked) == 1 and marked[0].startswith(f"✅ **{'ABCD'[right]})**")
    assert right_text in marked[0]
    assert embed["fields"][0]["value"] == question.explanation.en
    assert embed["footer"]["text"].startswith("1 of 2 answered right")
