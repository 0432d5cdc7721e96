"""Discord teaches the wrong pick: the real client against the fake Discord on loopback.

A member who clicks a wrong option is told privately why that option is wrong (its own reason,
not another option's), then why the key is right; the reveal names the most picked wrong option
and its reason for the whole channel.
"""

from __future__ import annotations

from fake_discord import (
    EPHEMERAL,
    BotFactory,
    FakeDiscord,
    custom_ids,
    latest_round,
    right_option,
    text_of,
    user,
)

from bot import presenter

TOPIC = "checkpointing"  # hand-written questions only: every wrong option has its own reason


async def test_each_wrong_click_gets_its_own_options_reason_then_the_explanation(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    await fake_discord.reply_to(await fake_discord.slash("question", {"topic": TOPIC}))
    mid = fake_discord.posted[-1]
    ids = custom_ids(fake_discord.messages[mid])
    row = await latest_round(bot)
    question = bot.runtime.quiz.bank.get(row.question_id)
    assert question is not None and TOPIC in question.tags
    order = presenter.display_order(row, question)
    right = right_option(bot, row)
    reasons = {question.reason(src).en for src in order if src != question.answer}  # type: ignore[union-attr]
    for slot in range(len(ids)):
        reply = await fake_discord.reply_to(
            await fake_discord.click(mid, ids[slot], user(10 + slot))
        )
        assert reply["flags"] & EPHEMERAL
        fields = reply["embeds"][0]["fields"]
        if slot == right:
            assert text_of(reply).startswith("✅ Correct!")
            assert [f["name"] for f in fields][:1] == ["Why"]
            assert not reasons & {f["value"] for f in fields}
            continue
        letter = "ABCDE"[slot]
        reason = question.reason(order[slot])
        assert reason is not None
        assert text_of(reply).startswith(f"❌ Not quite: you chose {letter}")
        assert fields[0] == {
            "name": f"Why {letter} is not right",
            "value": reason.en,
            "inline": False,
        }
        assert fields[1]["name"] == "Why" and fields[1]["value"] == question.explanation.en
        assert not (reasons - {reason.en}) & {f["value"] for f in fields}  # no other's reason


async def test_the_reveal_names_the_most_picked_wrong_option_and_why(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    await fake_discord.reply_to(
        await fake_discord.slash("question", {"topic": TOPIC, "level": "easy"})
    )
    mid = fake_discord.posted[-1]
    ids = custom_ids(fake_discord.messages[mid])
    row = await latest_round(bot)
    question = bot.runtime.quiz.bank.get(row.question_id)
    assert question is not None
    order = presenter.display_order(row, question)
    right = right_option(bot, row)
    wrong = [slot for slot in range(len(ids)) if slot != right]
    picks = [right, wrong[1], wrong[1], wrong[0]]  # wrong[1] is the most picked wrong option
    for n, slot in enumerate(picks):
        await fake_discord.reply_to(await fake_discord.click(mid, ids[slot], user(20 + n)))
    await bots.clock.advance(600)
    await bot.runtime.scheduler.caught_up()
    await fake_discord.wait_for(lambda: fake_discord.messages[mid]["components"] == [])
    embed = fake_discord.messages[mid]["embeds"][0]
    letter = "ABCDE"[wrong[1]]
    reason = question.reason(order[wrong[1]])
    assert reason is not None
    names = [f["name"] for f in embed["fields"]]
    assert names[0] == "Why" and "How people answered" in names
    mistake = embed["fields"][-1]
    assert mistake["name"] == f"Most picked wrong answer, {letter}: why it is not right"
    assert mistake["value"] == reason.en
