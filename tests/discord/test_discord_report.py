"""The Report control on Discord, through the real client against the fake gateway: the private
verdict carries a Report button; it opens a modal (a select of reasons, a note); the submission is
stored once and answered ephemerally; admins see it in `/zeroquiz reports`; never the key."""

from __future__ import annotations

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


async def test_report_from_the_verdict_reaches_the_admins_once(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    await fake_discord.reply_to(await fake_discord.slash("question"))
    mid = fake_discord.posted[-1]
    row = await latest_round(bot)
    ids = custom_ids(fake_discord.messages[mid])
    token = await fake_discord.click(mid, ids[right_option(bot, row)], user(1))
    verdict = await fake_discord.reply_to(token)
    assert verdict["flags"] & EPHEMERAL and text_of(verdict).startswith("✅ Correct!")
    [report] = [c for r in verdict["components"] for c in r["components"]]
    assert report["label"] == "Report" and report["custom_id"] == f"zqp:en:{row.question_id}"

    clicked = await fake_discord.click(
        fake_discord.response_ids[token], report["custom_id"], user(1)
    )
    await fake_discord.wait_for(lambda: fake_discord.responses.get(clicked))
    modal = fake_discord.modal_of(clicked)
    submitted = await fake_discord.submit_modal(
        modal, {"reason": ["unclear"], "note": "@everyone option B reads like A"}
    )
    thanks = text_of(await fake_discord.reply_to(submitted))
    assert "Thanks: your report (unclear) is with the admins." in thanks
    question = bot.runtime.quiz.bank.get(row.question_id)
    assert question is not None and question.options[question.answer].en not in thanks
    once_more = await fake_discord.click(
        fake_discord.response_ids[token], report["custom_id"], user(1)
    )  # the same person, the same question: a second report changes nothing
    await fake_discord.wait_for(lambda: fake_discord.responses.get(once_more))
    again = await fake_discord.submit_modal(fake_discord.modal_of(once_more), {"reason": ["typo"]})
    assert "already" in text_of(await fake_discord.reply_to(again))

    listed = await fake_discord.reply_to(
        await fake_discord.slash("reports", permissions=MANAGE_GUILD)
    )
    assert "1 open" in text_of(listed) and "option B reads like A" in text_of(listed)
    assert listed.get("allowed_mentions", {}).get("parse", []) == []  # a note never pings
    refused = await fake_discord.reply_to(await fake_discord.slash("reports"))
    assert "Only admins" in text_of(refused)
