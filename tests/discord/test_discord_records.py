"""Questions in and results out on Discord, through the real client against the fake gateway:
an admin attaches a Moodle GIFT file to `/zeroquiz pack action:add` and it becomes a pack whose
questions keep their per-answer feedback; `/zeroquiz results` and `/zeroquiz insights format:`
come back as private attachments; a member who is no admin gets neither."""

from __future__ import annotations

import csv
import io
import json

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

GIFT = b"""\
// A team's Moodle export
$CATEGORY: $course$/ZeRO/Stages

::stage-3::Which ZeRO stage also shards the parameters? {
  =Stage 3 #Right: stage 3 partitions parameters too.
  ~Stage 1 #Stage 1 shards only the optimizer states.
  ~Stage 2 #Stage 2 adds the gradients, not the parameters.
}

::free-text::Name the collective that gathers shards. {=all-gather =allgather}
"""


async def test_an_attached_gift_file_becomes_a_pack_with_its_feedback(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    token = await fake_discord.slash_with_file(
        "pack", {"action": "add"}, "file", "moodle.gift", GIFT, permissions=MANAGE_GUILD
    )
    said = text_of(await fake_discord.reply_to(token))
    assert "Pack `moodle` saved as version 1: 1 question(s)" in said
    assert "moodle.gift:10" in said  # the short-answer question, left out with its line
    await fake_discord.reply_to(
        await fake_discord.slash("questions", {"source": "team"}, permissions=MANAGE_GUILD)
    )
    await fake_discord.reply_to(await fake_discord.slash("question"))
    await fake_discord.wait_for(lambda: len(fake_discord.posted) == 1)
    mid = fake_discord.posted[-1]
    row = await latest_round(bot)
    question = await bot.runtime.quiz.library.get(row.question_id)  # the pack's, scoped
    assert question is not None and question.tags == ("stages",)
    order = presenter.display_order(row, question)
    stage_1 = next(i for i, o in enumerate(question.options) if o.en == "Stage 1")
    ids = custom_ids(fake_discord.messages[mid])
    reply = await fake_discord.reply_to(
        await fake_discord.click(mid, ids[order.index(stage_1)], user(5))
    )
    mistake, why = reply["embeds"][0]["fields"][:2]
    assert mistake["value"] == "Stage 1 shards only the optimizer states."  # GIFT's feedback
    assert why["value"].endswith("Right: stage 3 partitions parameters too.")  # its own feedback


async def test_results_and_insights_come_back_as_private_files_for_admins_only(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    await fake_discord.reply_to(await fake_discord.slash("question"))
    await fake_discord.wait_for(lambda: len(fake_discord.posted) == 1)
    mid = fake_discord.posted[-1]
    ids = custom_ids(fake_discord.messages[mid])
    row = await latest_round(bot)
    right = right_option(bot, row)
    for n in range(3):
        await fake_discord.reply_to(await fake_discord.click(mid, ids[right], user(n + 1)))

    token = await fake_discord.slash("results", {"period": "all"}, permissions=MANAGE_GUILD)
    reply = await fake_discord.reply_to(token)
    assert reply["flags"] & EPHEMERAL and "3 row(s)" in text_of(reply)
    [(name, data)] = await fake_discord.attachments_of(token)
    assert name == "zeroquiz-results-all.csv"
    rows = list(csv.DictReader(io.StringIO(data.decode())))
    assert len(rows) == 3 and {r["question"] for r in rows} == {row.question_id}
    assert all(r["correct"] == "true" and r["letter"] == "ABCDE"[right] for r in rows)

    token = await fake_discord.slash(
        "insights", {"period": "all", "format": "json"}, permissions=MANAGE_GUILD
    )
    await fake_discord.reply_to(token)
    [(name, data)] = await fake_discord.attachments_of(token)
    assert name == "zeroquiz-insights-all.json"
    item = row.question_id.partition("@")[0]
    assert [q["answers"] for q in json.loads(data)["questions"] if q["question"] == item] == [3]

    token = await fake_discord.slash("results")  # by a member who can't manage the server
    assert "Only admins" in text_of(await fake_discord.reply_to(token))
    assert await fake_discord.attachments_of(token) == []
