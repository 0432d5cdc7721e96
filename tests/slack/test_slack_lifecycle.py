"""Restarts and shutdown: reveals survive a restart; stopping finishes acknowledged clicks."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
import pytest
from fake_slack import FakeSlack, open_harness, shown

from bot.bank import Bank
from bot.clock import FakeClock


def reveals(fake: FakeSlack, ts: str) -> list[str]:
    """Texts of the chat.update calls that turned message `ts` into its reveal."""
    return [
        shown(c.args["blocks"])
        for c in fake.calls_to("chat.update")
        if c.args["ts"] == ts and all(b["type"] != "actions" for b in c.args["blocks"])
    ]


async def test_reveal_arrives_after_a_restart_past_the_deadline(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> None:
    first = await open_harness(fake, db_path, clock, bank)
    try:
        await first.ask("question")
        ts, _ = first.question()
        for user in ("U1", "U2"):
            await fake.reply((await first.click("A", user=user))[1])
    finally:
        await first.close()
    assert reveals(fake, ts) == []

    await clock.advance(11 * 60)  # the app was down when the deadline passed
    second = await open_harness(fake, db_path, clock, bank)
    try:
        # No nudge from the test: starting the app alone must bring the overdue reveal.
        await fake.wait_until(lambda: bool(reveals(fake, ts)), "the reveal after the restart")
        [reveal] = reveals(fake, ts)
        assert "of 2 answered right" in reveal
        await clock.advance(3600)
        await second.runtime.scheduler.caught_up()
        assert len(reveals(fake, ts)) == 1  # revealed once, not on every pass
    finally:
        await second.close()


async def test_buttons_keep_working_across_a_restart_before_the_deadline(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> None:
    first = await open_harness(fake, db_path, clock, bank)
    await first.ask("question")
    ts, _ = first.question()
    await fake.reply((await first.click("B", user="U1"))[1])
    await first.close()

    second = await open_harness(fake, db_path, clock, bank)
    try:
        status, key = await second.click("C", user="U2")  # the old message's button
        assert status == 200
        assert "*Why:*" in shown((await fake.reply(key))["blocks"])
        await clock.advance(10 * 60)
        await second.runtime.scheduler.caught_up()
        [reveal] = reveals(fake, ts)
        assert "of 2 answered right" in reveal
    finally:
        await second.close()


async def test_stop_lets_acknowledged_clicks_finish_then_refuses_new_ones(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> None:
    slack = await open_harness(fake, db_path, clock, bank)
    url = slack.surface.url
    assert url is not None
    try:
        await slack.ask("question")
        fake.reply_gate = asyncio.Event()
        status, key = await slack.click("A", user="U1")
        assert status == 200
        await fake.wait_until(lambda: slack.surface.inflight.count == 1, "the click in flight")
        stopping = asyncio.create_task(slack.surface.stop())
        await fake.wait_until(lambda: slack.surface.url is None, "the server to close")
        assert not stopping.done()  # still waiting for the acknowledged click
        fake.reply_gate.set()
        await asyncio.wait_for(stopping, 5)
        assert len(fake.replies[key]) == 1
        with pytest.raises(aiohttp.ClientConnectionError):
            await slack.http.post(url, data=b"payload=%7B%7D")
    finally:
        fake.reply_gate = None
        await slack.runtime.close()
        await slack.http.close()
