"""A Slack call that never answers ends at the client's timeout (issue 34): slack_sdk applies its
timeout only to a session it makes itself, so ZeroQuiz's own session carries it. The person is
told Slack isn't answering, the round stays open to be posted by a later pass, and the app goes
on answering (over signed HTTP against the fake Slack)."""

from __future__ import annotations

from pathlib import Path

from fake_slack import CHANNEL, TEAM, FakeSlack, open_harness, shown

from bot.bank import Bank
from bot.clock import FakeClock
from bot.model import ChannelRef

HUNG = 4.0  # seconds the fake holds chat.postMessage: past the timeout and its retries
TIMEOUT = 0.5


async def test_a_post_that_never_answers_ends_and_the_round_waits_for_a_later_pass(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> None:
    slack = await open_harness(fake, db_path, clock, bank, api_timeout=TIMEOUT)
    try:
        fake.late["chat.postMessage"] = HUNG
        reply = await slack.ask("question")
        assert "isn't answering right now" in shown(reply["blocks"])
        [row] = await slack.runtime.store.rounds.in_channel(ChannelRef("slack", TEAM, CHANNEL))
        assert row.posted_at is None and row.closed_at is None  # posted by a later pass
        assert "Your ZeroQuiz stats" in shown((await slack.ask("stats"))["blocks"])  # still here
    finally:
        fake.late.clear()
        await slack.close()
