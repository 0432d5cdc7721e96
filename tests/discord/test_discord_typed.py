"""Type it on Discord, through the real client against the fake gateway: a generated question
carries a Type it button; it opens a modal with one text field; what is no number is answered
ephemerally with how to type one and counts nothing; a number is recorded before the modal's
submission is answered, graded within the rounding's tolerance, with the worked calculation and a
named mistake's reason; a second answer, typed or clicked, changes nothing; the reveal counts the
typed answers."""

from __future__ import annotations

import pytest
from fake_discord import (
    EPHEMERAL,
    MANAGE_GUILD,
    BotFactory,
    FakeDiscord,
    Json,
    answers,
    custom_ids,
    latest_round,
    right_option,
    text_of,
    user,
)

from bot import presenter
from bot.bank import Bank, load_bank


@pytest.fixture(name="bank", scope="module")
def offload_only() -> Bank:
    return Bank([], [t for t in load_bank().templates if t.id == "gen-offload-gpu"])


async def typed(fake: FakeDiscord, mid: int, custom_id: str, who: Json, number: str) -> Json:
    """Click Type it as `who`, type `number` in the modal and submit it: the ephemeral reply."""
    clicked = await fake.click(mid, custom_id, who)
    await fake.wait_for(lambda: fake.responses.get(clicked))
    modal = fake.modal_of(clicked)
    return await fake.reply_to(await fake.submit_modal(modal, {"number": number}, who=who))


async def test_a_typed_number_counts_once_and_the_reveal_counts_it(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    await fake_discord.reply_to(await fake_discord.slash("question"))
    mid = fake_discord.posted[-1]
    row = await latest_round(bot)
    question = bot.runtime.quiz.bank.get(row.question_id)
    assert question is not None
    ids = custom_ids(fake_discord.messages[mid])
    type_it = ids[-1]
    labels = [c["label"] for r in fake_discord.messages[mid]["components"] for c in r["components"]]
    assert type_it == f"zqt:{row.id}" and labels[-1] == "Type it"

    clicked = await fake_discord.click(mid, type_it, user(1))
    await fake_discord.wait_for(lambda: fake_discord.responses.get(clicked))
    modal = fake_discord.modal_of(clicked)
    assert modal["title"] == "Type the number"
    [field] = modal["components"][0]["components"]
    assert field["label"] == "Your answer, in GB" and field["max_length"] == 40
    submitted = await fake_discord.submit_modal(modal, {"number": "about thirty"}, who=user(1))
    refused = await fake_discord.reply_to(submitted)
    assert refused["flags"] & EPHEMERAL and "type a number like" in text_of(refused)
    assert await answers(bot) == 0  # counted nothing

    key_text = question.options[question.answer].en
    right = await typed(fake_discord, mid, type_it, user(1), f"  {key_text.upper()} ")
    assert right["flags"] & EPHEMERAL
    assert text_of(right).startswith(f"✅ Correct! You typed {key_text.upper()}.")
    worked = right["embeds"][0]["fields"][0]["value"]
    assert worked == question.explanation.en and f"= {key_text}" in worked  # the calculation
    assert await answers(bot) == 1

    again = await typed(fake_discord, mid, type_it, user(1), "1")
    assert text_of(again).startswith(f"You already answered ({key_text.upper()})")
    letter = (right_option(bot, row) + 1) % len(question.options)
    clicked_after = await fake_discord.reply_to(await fake_discord.click(mid, ids[letter], user(1)))
    assert text_of(clicked_after).startswith(f"You already answered ({key_text.upper()})")
    assert await answers(bot) == 1

    order = presenter.display_order(row, question)
    mistaken = next(o for o in order if question.reason(o) is not None)
    reason = question.reason(mistaken)
    assert reason is not None
    number = question.options[mistaken].en.removesuffix(" GB")
    wrong = await typed(fake_discord, mid, type_it, user(2), number)
    assert text_of(wrong).startswith(f"❌ Not quite: you typed {number}.")
    why = wrong["embeds"][0]["fields"][0]
    assert (why["name"], why["value"]) == (f"Why {number} is not right", reason.en)

    await fake_discord.reply_to(await fake_discord.click(mid, ids[right_option(bot, row)], user(3)))
    closed = await fake_discord.reply_to(
        await fake_discord.slash("close", who=user(1), permissions=MANAGE_GUILD)
    )
    assert text_of(closed) == "Closed the open question."
    await fake_discord.wait_for(lambda: fake_discord.messages[mid]["components"] == [])
    footer = fake_discord.messages[mid]["embeds"][0]["footer"]["text"]
    assert footer.startswith("2 of 3 answered right\n⌨️ 2 typed the number, 1 of them right")

    late = await fake_discord.click(mid, type_it, user(4))  # a copy still showing the button
    await fake_discord.wait_for(lambda: fake_discord.responses.get(late))
    assert "This question is closed" in text_of(await fake_discord.reply_to(late))


async def test_a_drill_card_takes_the_number_typed(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    await fake_discord.reply_to(await fake_discord.slash("question"))
    mid = fake_discord.posted[-1]
    row = await latest_round(bot)
    question = bot.runtime.quiz.bank.get(row.question_id)
    assert question is not None
    missed = await typed(
        fake_discord, mid, custom_ids(fake_discord.messages[mid])[-1], user(1), "9"
    )
    assert text_of(missed).startswith("❌ Not quite: you typed 9.")
    await fake_discord.reply_to(await fake_discord.slash("close", permissions=MANAGE_GUILD))

    drill = await fake_discord.slash("drill")
    card = await fake_discord.reply_to(drill)
    assert card["flags"] & EPHEMERAL
    card_id = fake_discord.response_ids[drill]
    type_it = custom_ids(fake_discord.messages[card_id])[-1]
    assert type_it.startswith("zqt:b")  # the card's answer token (a drill's)
    clicked = await fake_discord.click(card_id, type_it, user(1))
    await fake_discord.wait_for(lambda: fake_discord.responses.get(clicked))
    modal = fake_discord.modal_of(clicked)
    refused = await fake_discord.reply_to(
        await fake_discord.submit_modal(modal, {"number": "lots"}, clicked=clicked)
    )
    assert "type a number like" in text_of(refused)  # a new private reply: the card stays
    assert custom_ids(fake_discord.messages[card_id])[-1] == type_it

    key_text = question.options[question.answer].en
    clicked = await fake_discord.click(card_id, type_it, user(1))  # the modal closed: again
    await fake_discord.wait_for(lambda: fake_discord.responses.get(clicked))
    modal = fake_discord.modal_of(clicked)
    submitted = await fake_discord.submit_modal(modal, {"number": key_text}, clicked=clicked)
    await fake_discord.wait_for(lambda: fake_discord.responses.get(submitted))
    [response] = fake_discord.responses[submitted]
    assert response["type"] == 7  # UPDATE_MESSAGE: the card becomes its verdict
    verdict = fake_discord.messages[card_id]
    assert f"\n\n✅ Correct! You typed {key_text}. The answer is" in text_of(verdict)
    assert "Drill over: 0 missed" in verdict["embeds"][0]["footer"]["text"]
