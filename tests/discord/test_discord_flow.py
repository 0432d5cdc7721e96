"""End to end: the real discord.py client against the fake Discord on loopback.

What a server's members would notice: the question appears with letter buttons, a click gets a
private verdict with the explanation, the public count moves without an edit per click, buttons
outlive a restart, the reveal replaces the question at the deadline, and admin actions need
Manage Server.
"""

from __future__ import annotations

import asyncio
import copy
import time
from datetime import timedelta
from typing import Any

from fake_discord import (
    CHANNEL_ID,
    EPHEMERAL,
    GUILD_ID,
    MANAGE_GUILD,
    BotFactory,
    FakeDiscord,
    RunningBot,
    answers,
    latest_round,
    letter_ids,
    right_option,
    text_of,
    user,
)

from bot import presenter
from bot.model import ChannelRef
from bot.storage import RoundRecord

Json = dict[str, Any]


async def post_question(fake: FakeDiscord, bot: RunningBot) -> tuple[int, list[str], RoundRecord]:
    reply = await fake.reply_to(await fake.slash("question"))
    assert reply["flags"] & EPHEMERAL and text_of(reply) == "Question posted."
    mid = fake.posted[-1]
    return mid, letter_ids(fake.messages[mid]), await latest_round(bot)


async def test_question_and_private_answers_with_the_explanation(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    mid, ids, row = await post_question(fake_discord, bot)
    question = bot.runtime.quiz.bank.get(row.question_id)
    assert question is not None
    message = fake_discord.messages[mid]
    assert message["embeds"][0]["description"].startswith(question.prompt.en)
    labels = [c["label"] for r in message["components"] for c in r["components"]]
    assert labels == list("ABCDE"[: len(question.options)])

    right = right_option(bot, row)
    wrong = (right + 1) % len(ids)
    first = await fake_discord.reply_to(await fake_discord.click(mid, ids[right], user(1)))
    assert first["flags"] & EPHEMERAL
    assert text_of(first).startswith("✅ Correct!") and "+10 points" in text_of(first)
    assert first["embeds"][0]["fields"][0]["value"] == question.explanation.en
    second = await fake_discord.reply_to(await fake_discord.click(mid, ids[wrong], user(2)))
    assert text_of(second).startswith(f"❌ Not quite: you chose {'ABCDE'[wrong]}")
    reason = question.reason(presenter.display_order(row, question)[wrong])
    assert reason is not None  # every bundled wrong option says why (test_discord_reasons.py)
    assert [f["value"] for f in second["embeds"][0]["fields"][:2]] == [
        reason.en,
        question.explanation.en,
    ]
    again = await fake_discord.reply_to(await fake_discord.click(mid, ids[wrong], user(1)))
    assert text_of(again).startswith(f"You already answered {'ABCDE'[right]}")
    assert await answers(bot) == 2

    # The public count follows, coalesced: one edit at the first answer, one after the interval
    # (the first may show both answers already, when the second is recorded before it reads).
    await bots.clock.advance(5)
    await fake_discord.wait_for(lambda: len(fake_discord.edits_of(mid)) >= 2)
    assert len(fake_discord.edits_of(mid)) == 2
    assert "2 answered so far" in fake_discord.messages[mid]["embeds"][0]["footer"]["text"]
    assert fake_discord.messages[mid]["components"]  # buttons stay while the round is open


async def test_hundred_people_clicking_twice_record_exactly_hundred_answers(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    mid, ids, _ = await post_question(fake_discord, bot)
    people = [user(100 + i) for i in range(100)]
    started = time.monotonic()
    tokens = await asyncio.gather(
        *(fake_discord.click(mid, ids[i % len(ids)], who) for i, who in enumerate(people)),
        *(fake_discord.click(mid, ids[(i + 1) % len(ids)], who) for i, who in enumerate(people)),
    )
    replies = [await fake_discord.reply_to(token, timeout=30) for token in tokens]
    elapsed = time.monotonic() - started
    assert await answers(bot) == 100
    assert all(r["flags"] & EPHEMERAL for r in replies)
    slowest = max(fake_discord.response_delay(token) for token in tokens)
    assert slowest < 3.0  # inside Discord's window, for every one of the 200 clicks
    already = [r for r in replies if text_of(r).startswith("You already answered")]
    assert len(already) == 100  # every second click is told its first answer counts
    await bots.clock.advance(5)
    await bot.runtime.tally.drain()
    await fake_discord.wait_for(
        lambda: "100 answered so far" in fake_discord.messages[mid]["embeds"][0]["footer"]["text"]
    )
    edits = len(fake_discord.edits_of(mid))
    assert 1 <= edits <= 3
    print(f"\n200 clicks: all replied in {elapsed:.2f}s, slowest {slowest:.2f}s, {edits} edits")


async def test_buttons_work_after_a_restart_and_reveal_comes_at_the_deadline(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    first = await bots.start()
    mid, ids, row = await post_question(fake_discord, first)
    await bots.stop(first)

    second = await bots.start()
    assert fake_discord.identifies == 2
    right = right_option(second, row)
    reply = await fake_discord.reply_to(await fake_discord.click(mid, ids[right], user(3)))
    assert text_of(reply).startswith("✅ Correct!")
    assert fake_discord.messages[mid]["components"]

    await bots.clock.advance(599)
    await second.runtime.scheduler.caught_up()
    assert fake_discord.messages[mid]["components"]  # not yet
    on_screen = copy.deepcopy(fake_discord.messages[mid])
    await bots.clock.advance(1)
    await second.runtime.scheduler.caught_up()
    await fake_discord.wait_for(lambda: fake_discord.messages[mid]["components"] == [])
    embed = fake_discord.messages[mid]["embeds"][0]
    marked = [ln for ln in embed["description"].splitlines() if ln.startswith("✅")]
    assert len(marked) == 1 and marked[0].startswith(f"✅ **{'ABCDE'[right]})**")
    question = second.runtime.quiz.bank.get(row.question_id)
    assert question is not None
    assert embed["fields"][0]["value"] == question.explanation.en
    assert "1 · 100%" in embed["fields"][1]["value"]
    assert embed["footer"]["text"].splitlines() == [
        "1 of 1 answered right",
        "Fastest correct answer: User 3 in 0.0 s",
    ]
    # Someone whose screen still showed the buttons clicks after the deadline.
    late = await fake_discord.reply_to(
        await fake_discord.click(mid, ids[right], user(4), seen=on_screen)
    )
    assert text_of(late) == "This question is closed, so answers no longer count."


async def test_leaderboard_stats_and_close_needs_manage_server(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    mid, ids, row = await post_question(fake_discord, bot)
    right = right_option(bot, row)
    ana, budi = user(1, "Ana"), user(2, "Budi")
    await fake_discord.reply_to(await fake_discord.click(mid, ids[right], ana))
    await fake_discord.reply_to(await fake_discord.click(mid, ids[(right + 1) % len(ids)], budi))

    board = await fake_discord.reply_to(
        await fake_discord.slash("leaderboard", {"period": "week"}, who=budi)
    )
    lines = text_of(board).splitlines()
    assert board["embeds"][0]["title"] == "ZeroQuiz leaderboard · this week"
    assert lines[0] == "1. Ana · 10 pts · 1 right"
    assert lines[-1] == "**You: #2 · 0 pts · 0 right**"
    stats = await fake_discord.reply_to(await fake_discord.slash("stats", who=ana))
    fields = {f["name"]: f["value"] for f in stats["embeds"][0]["fields"]}
    assert fields["Answered"] == "1" and fields["Correct"] == "1" and fields["Accuracy"] == "100%"

    refused = await fake_discord.reply_to(await fake_discord.slash("close", who=budi))
    assert text_of(refused) == "Only admins can do that."
    assert fake_discord.messages[mid]["components"]
    closed = await fake_discord.reply_to(
        await fake_discord.slash("close", who=ana, permissions=MANAGE_GUILD)
    )
    assert text_of(closed) == "Closed the open question."
    assert fake_discord.messages[mid]["components"] == []
    footer = fake_discord.messages[mid]["embeds"][0]["footer"]["text"]
    assert footer.startswith("1 of 2 answered right\nFastest correct answer: Ana")


async def test_long_rounds_stop_live_edits_after_an_hour_and_reveal_in_a_new_message(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    """A question open for hours (like a daily one): Discord caps edits of hour-old messages."""
    fake_discord.refuse_old_edits = True
    bot = await bots.start()
    channel = ChannelRef("discord", str(GUILD_ID), str(CHANNEL_ID))
    await bot.runtime.quiz.rounds.start_round(channel, window=timedelta(hours=3))
    [mid] = fake_discord.posted
    ids = letter_ids(fake_discord.messages[mid])
    row = await latest_round(bot)
    await fake_discord.reply_to(await fake_discord.click(mid, ids[0], user(1)))
    await fake_discord.wait_for(lambda: len(fake_discord.edits_of(mid)) == 1)

    await bots.clock.advance(3601)
    late = await fake_discord.reply_to(await fake_discord.click(mid, ids[0], user(2)))
    assert text_of(late).startswith(("✅", "❌"))  # the click itself still answers
    await bots.clock.advance(10)
    await bot.runtime.tally.drain()
    assert len(fake_discord.edits_of(mid)) == 1 and fake_discord.refused_edits == 0

    await bots.clock.advance(3 * 3600)
    await bot.runtime.scheduler.caught_up()
    await fake_discord.wait_for(lambda: len(fake_discord.posted) == 2)
    assert fake_discord.refused_edits == 1  # one try to edit, then a new message
    reveal = fake_discord.messages[fake_discord.posted[1]]
    right = "ABCDE"[right_option(bot, row)]
    assert f"✅ **{right})**" in reveal["embeds"][0]["description"]
    assert reveal["components"] == []
    assert reveal["embeds"][0]["footer"]["text"].split("\n")[0].endswith("of 2 answered right")


async def test_daily_subcommand_sets_a_schedule_for_admins_only(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    await bots.start()
    options = {"time": "09:00", "timezone": "Asia/Jakarta", "days": "mon-fri", "window_hours": 8}
    refused = await fake_discord.reply_to(await fake_discord.slash("daily", options))
    assert text_of(refused) == "Only admins can do that."
    token = await fake_discord.slash("daily", options, permissions=MANAGE_GUILD)
    text = text_of(await fake_discord.reply_to(token))
    assert text.startswith("Daily question scheduled.") and "09:00 (Asia/Jakarta)" in text
    off = await fake_discord.slash("daily", {"off": True}, permissions=MANAGE_GUILD)
    assert text_of(await fake_discord.reply_to(off)) == "Daily question stopped for this channel."


async def test_stopping_finishes_the_click_being_answered_before_disconnecting(
    bots: BotFactory, fake_discord: FakeDiscord
) -> None:
    bot = await bots.start()
    mid, ids, _ = await post_question(fake_discord, bot)
    fake_discord.hold_callbacks = asyncio.Event()
    token = await fake_discord.click(mid, ids[0], user(1))
    await fake_discord.wait_for(lambda: token in fake_discord.responses)
    stopping = asyncio.create_task(bots.stop(bot))
    for _ in range(20):
        await asyncio.sleep(0)
    assert not stopping.done() and fake_discord.connected == 1  # still answering the click
    fake_discord.hold_callbacks.set()
    await asyncio.wait_for(stopping, 10)
    assert fake_discord.connected == 0
    assert bot.surface.gate.count == 0 and not bot.surface.gate.enter()


async def test_start_posts_a_numbered_run(bots: BotFactory, fake_discord: FakeDiscord) -> None:
    await bots.start()
    reply = await fake_discord.reply_to(await fake_discord.slash("start", {"count": 2}))
    assert text_of(reply) == "A run of 2 questions has started."
    [mid] = fake_discord.posted
    assert fake_discord.messages[mid]["embeds"][0]["title"] == "ZeroQuiz · Question 1/2"
    await bots.clock.advance(600)
    await fake_discord.wait_for(lambda: len(fake_discord.posted) == 2)  # the next one follows
    second = fake_discord.messages[fake_discord.posted[1]]["embeds"][0]["title"]
    assert second == "ZeroQuiz · Question 2/2"
    assert fake_discord.messages[mid]["components"] == []  # the first was revealed
