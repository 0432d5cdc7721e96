"""A Slack call that never answers ends at the client's timeout (issue 34): slack_sdk applies its
timeout only to a session it makes itself, so ZeroQuiz's own session carries it. The person is
told Slack isn't answering, the round stays open to be posted by a later pass, and the app goes
on answering (over signed HTTP against the fake Slack). The timeout is logged in one line naming
the method, the workspace and the seconds, and counted in the metrics by method."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest
from fake_slack import BOT_TOKEN, CHANNEL, TEAM, FakeSlack, open_harness, shown

from bot.bank import Bank
from bot.clock import FakeClock
from bot.model import ChannelRef

HUNG = 4.0  # seconds the fake holds chat.postMessage: past the timeout and its retries
TIMEOUT = 0.5


async def test_a_post_that_never_answers_ends_and_the_round_waits_for_a_later_pass(
    fake: FakeSlack,
    db_path: Path,
    clock: FakeClock,
    bank: Bank,
    caplog: pytest.LogCaptureFixture,
) -> None:
    slack = await open_harness(fake, db_path, clock, bank, api_timeout=TIMEOUT)
    try:
        fake.late["chat.postMessage"] = HUNG
        started = time.monotonic()
        reply = await slack.ask("question")
        assert time.monotonic() - started < HUNG  # ended by the timeout, not by the answer
        assert "isn't answering right now" in shown(reply["blocks"])
        said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        timed_out = [line for line in said if "no answer within" in line]
        assert timed_out == [f"Slack chat.postMessage for workspace {TEAM}: no answer within 0.5 s"]
        assert not any(BOT_TOKEN in line for line in said)
        live = slack.runtime.metrics.load()
        counted = {"service": "slack", "call": "chat.postMessage"}
        assert live.registry.get_sample_value("zeroquiz_timeouts_total", counted) == 1
        [row] = await slack.runtime.store.rounds.in_channel(ChannelRef("slack", TEAM, CHANNEL))
        assert row.posted_at is None and row.closed_at is None  # posted by a later pass
        assert "Your ZeroQuiz stats" in shown((await slack.ask("stats"))["blocks"])  # still here
    finally:
        fake.late.clear()
        await slack.close()
