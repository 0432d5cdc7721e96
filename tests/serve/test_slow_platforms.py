"""A slow platform: every call to Slack's Web API and response_url, and every Discord post, edit
and interaction answer, takes two seconds. Nothing times out and goes twice: the question is
posted once, everyone gets one verdict, and the reveal replaces the question once.

Both platforms run side by side on one clock, as in one `zeroquiz serve` with both surfaces, so
their slow calls overlap instead of adding up."""

from __future__ import annotations

import asyncio
import time

from fake_discord import (
    BotFactory,
    FakeDiscord,
    answers,
    custom_ids,
    text_of,
    user,
)
from fake_slack import FakeSlack, SlackHarness, is_reveal, shown, verdict_for

from bot.clock import FakeClock

SLOW = 2.0  # seconds per call
WAIT = 20.0


async def slack_until_clicked(slack: SlackHarness, fake: FakeSlack) -> tuple[str, list[str]]:
    """Ask and click on a slow Slack; returns (question ts, response_url keys) once recorded."""
    await slack.ask("help")  # U1's name is known from here on (users.info is not the point)
    fake.delay = SLOW
    asked = await slack.command("question")
    await fake.wait_until(lambda: len(fake.posted) == 1, "the question")
    ts, _ = slack.question()  # people click while the command's own reply is still on its way
    clicks = [await slack.click(letter, user=u) for letter, u in (("A", "U1"), ("B", "U2"))]
    assert all(status == 200 for status, _ in clicks)  # acknowledged = recorded
    return ts, [asked] + [key for _, key in clicks]


async def slack_after_deadline(fake: FakeSlack, ts: str, keys: list[str]) -> None:
    replies = await asyncio.gather(*(fake.reply(key) for key in keys))
    assert "Question posted." in shown(replies[0]["blocks"])
    assert [verdict_for(letter, r["blocks"]) for letter, r in zip("AB", replies[1:], strict=True)]
    await fake.wait_until(lambda: is_reveal(fake.messages[ts]["blocks"]), "the reveal")
    assert "of 2 answered right" in shown(fake.messages[ts]["blocks"])
    assert len(fake.calls_to("chat.postMessage")) == 1 and len(fake.posted) == 1
    assert all(len(fake.replies[key]) == 1 for key in keys)


async def discord_until_clicked(bots: BotFactory, fake: FakeDiscord) -> tuple[int, list[str]]:
    bot = await bots.start()
    fake.delay = SLOW
    asked = await fake.slash("question")
    await fake.wait_for(lambda: len(fake.posted) == 1, timeout=WAIT)
    mid = fake.posted[0]
    ids = custom_ids(fake.messages[mid])
    tokens = [await fake.click(mid, ids[i], user(10 + i)) for i in range(2)]
    await fake.wait_for(lambda: len(tokens) == 2, WAIT)
    deadline = time.monotonic() + WAIT
    while await answers(bot) < 2:  # recorded; their answers are on their slow way back
        assert time.monotonic() < deadline, "the clicks were not recorded"
        await asyncio.sleep(0.01)
    return mid, [asked, *tokens]


async def discord_after_deadline(
    bots: BotFactory, fake: FakeDiscord, mid: int, tokens: list[str]
) -> None:
    replies = await asyncio.gather(*(fake.reply_to(t, timeout=WAIT) for t in tokens))
    assert text_of(replies[0]) == "Question posted."
    assert all("answer is" in text_of(r) for r in replies[1:])
    await fake.wait_for(lambda: fake.messages[mid]["components"] == [], WAIT)
    assert len(fake.posted) == 1 and await answers(bots.running[0]) == 2
    assert all(len(fake.responses[t]) == 1 for t in tokens[1:])


async def test_a_slow_slack_and_a_slow_discord_post_once_answer_everyone_and_reveal_once(
    slack: SlackHarness,
    fake: FakeSlack,
    bots: BotFactory,
    fake_discord: FakeDiscord,
    clock: FakeClock,
) -> None:
    began = time.monotonic()
    (ts, keys), (mid, tokens) = await asyncio.gather(
        slack_until_clicked(slack, fake), discord_until_clicked(bots, fake_discord)
    )
    await clock.advance(10 * 60)  # the deadline passes while replies are still slow
    await asyncio.gather(
        slack_after_deadline(fake, ts, keys),
        discord_after_deadline(bots, fake_discord, mid, tokens),
    )
    assert time.monotonic() - began >= 2 * SLOW  # the fakes really were slow
