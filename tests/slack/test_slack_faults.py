"""Slack failing on purpose: server errors, rate limits, cut connections and a slow API, on the
Web API and on response_url. Whatever fails in passing is tried again; the question is posted
once, the reveal lands when its retry is due, and every verdict arrives once."""

from __future__ import annotations

import asyncio

from fake_slack import FakeSlack, SlackHarness, is_reveal, shown, verdict_for

from adapters.slack.replies import MAX_USES
from bot.clock import FakeClock
from bot.delivery import REVEAL_RETRY


def questions(fake: FakeSlack) -> list[str]:
    """The question messages the channel shows (buttons still on, or turned into the reveal)."""
    return [ts for ts, m in fake.posted.items() if any(b["type"] == "actions" for b in m["blocks"])]


async def test_a_server_error_on_a_post_is_retried_at_once_and_posts_once(
    slack: SlackHarness, fake: FakeSlack
) -> None:
    fake.server_errors["chat.postMessage"] = [500, 503]  # slack_sdk retries both
    reply = shown((await slack.ask("question"))["blocks"])
    assert "Question posted." in reply
    assert len(fake.calls_to("chat.postMessage")) == 3
    assert len(questions(fake)) == 1


async def test_server_errors_left_after_the_retries_post_later_exactly_once(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    fake.server_errors["chat.postMessage"] = [500, 500, 500]
    reply = shown((await slack.ask("question"))["blocks"])
    assert "isn't answering right now" in reply
    assert questions(fake) == []
    await clock.advance(15)  # the scheduler wakes for the retry by itself
    await fake.wait_until(lambda: len(questions(fake)) == 1, "the question, posted later")
    await clock.advance(60)
    await slack.runtime.scheduler.caught_up()
    assert len(questions(fake)) == 1


async def test_a_failed_reveal_arrives_when_its_retry_is_due_with_nothing_else_open(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    await slack.ask("question")
    ts, _ = slack.question()
    await fake.reply((await slack.click("A", user="U1"))[1])
    # The click's live count is an edit too: let it land first, so the faults meet the reveal.
    await fake.wait_until(
        lambda: "1 answered so far" in shown(fake.messages[ts]["blocks"]), "the live count"
    )
    fake.server_errors["chat.update"] = [500, 503, 500]  # more than slack_sdk retries
    fake.rate_limits["chat.update"] = 1
    closed = shown((await slack.ask("close", user="UADMIN"))["blocks"])
    assert "Closed the open question." in closed
    assert not is_reveal(fake.messages[ts]["blocks"])
    await clock.advance(REVEAL_RETRY.first.total_seconds() - 1)
    await slack.runtime.scheduler.caught_up()
    assert not is_reveal(fake.messages[ts]["blocks"])  # not before its time
    await clock.advance(1)  # no other round, no command: only the planned wake can reveal it
    await fake.wait_until(lambda: is_reveal(fake.messages[ts]["blocks"]), "the reveal")
    assert "of 1 answered right" in shown(fake.messages[ts]["blocks"])
    assert len(questions(fake)) == 1


async def test_a_verdict_whose_response_url_fails_is_sent_again_once(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    await slack.ask("question")
    fake.respond_faults = [500, "reset", 429]
    status, key = await slack.click("B", user="U2")
    assert status == 200  # acknowledged: the answer is recorded whatever the reply meets
    await fake.wait_until(lambda: fake.respond_calls[key] == 1, "the first try")
    for step in (1, 5, 30):  # the backoff, on the clock
        await clock.advance(step)
        await fake.wait_until(lambda: bool(fake.replies[key]) or not fake.respond_faults, "a try")
    await fake.wait_until(lambda: bool(fake.replies[key]), "the verdict")
    assert verdict_for("B", fake.replies[key][0]["blocks"])
    assert fake.respond_calls[key] == 4 and len(fake.replies[key]) == 1
    again = await fake.reply((await slack.click("C", user="U2"))[1])
    assert "already answered B" in shown(again["blocks"])  # recorded once, on the first click


async def test_a_response_url_is_used_five_times_at_most_and_a_refusal_once(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    await slack.ask("question")
    fake.respond_faults = [503] * 10
    _, failing = await slack.click("A", user="U1")
    await fake.wait_until(lambda: fake.respond_calls[failing] == 1, "the first try")
    for _ in range(40):  # 40 minutes: past the URL's 30-minute life
        await clock.advance(60)
        await asyncio.sleep(0)
    await fake.wait_until(lambda: fake.respond_calls[failing] == MAX_USES, "five uses")
    fake.respond_faults = [404]
    _, refused = await slack.click("A", user="U2")
    await fake.wait_until(lambda: fake.respond_calls[refused] == 1, "the refused reply")
    await clock.advance(10 * 60)
    await slack.runtime.scheduler.caught_up()
    assert fake.respond_calls[refused] == 1
    assert fake.respond_calls[failing] == MAX_USES
