"""Daily questions end to end on Slack: an admin schedules one, the clock reaches it, it appears.

The real AsyncApp over signed HTTP against the fake Web API; time is the fake clock.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from fake_slack import (
    CHANNEL,
    FakeSlack,
    SlackHarness,
    block_problems,
    shown,
)

from bot.clock import FakeClock


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2026, 1, 5, 8, 0, tzinfo=UTC))  # a Monday, before 09:00


async def test_admin_schedules_daily_and_it_posts_at_nine(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    refused = await slack.ask("daily 09:00 UTC", user="U1")
    assert "Only admins can do that." in shown(refused["blocks"])
    bad = await slack.ask("daily 9am Mars/Olympus", user="UADMIN")
    assert "is not a time" in shown(bad["blocks"])
    set_reply = await slack.ask("daily 09:00 UTC", user="UADMIN")
    text = shown(set_reply["blocks"])
    assert set_reply["response_type"] == "ephemeral"
    assert "Daily question scheduled." in text and "2026-01-05 09:00 (UTC)" in text
    assert fake.calls_to("chat.postMessage") == []

    await clock.advance(to=datetime(2026, 1, 5, 8, 59, tzinfo=UTC))
    await slack.runtime.scheduler.caught_up()
    assert fake.calls_to("chat.postMessage") == []
    await clock.advance(to=datetime(2026, 1, 5, 9, 0, tzinfo=UTC))
    await slack.runtime.scheduler.caught_up()
    await fake.wait_until(lambda: len(fake.calls_to("chat.postMessage")) == 1, "the daily post")
    [post] = fake.calls_to("chat.postMessage")
    assert post.args["channel"] == CHANNEL
    assert block_problems(post.args["blocks"]) == []
    assert "Daily question" in shown(post.args["blocks"])

    shown_now = shown((await slack.ask("daily", user="UADMIN"))["blocks"])
    assert "2026-01-06 09:00 (UTC)" in shown_now  # the next one, Tuesday
    await clock.advance(3600)
    await slack.runtime.scheduler.caught_up()
    assert len(fake.calls_to("chat.postMessage")) == 1  # once per day
