"""More clicks than the bot can answer: the extra ones are refused unrecorded, never accepted
into a backlog; every click that got HTTP 200 is recorded and gets its private reply."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fake_slack import FakeSlack, open_harness, shown

from adapters.slack import handlers
from bot.bank import Bank
from bot.clock import FakeClock

SLOTS = 3


async def test_clicks_beyond_the_slots_are_refused_and_not_recorded(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(handlers, "CLICK_SLOTS", SLOTS)
    monkeypatch.setattr(handlers, "ADMIT_SECONDS", 0.2)
    slack = await open_harness(fake, db_path, clock, bank)
    try:
        await slack.ask("question")
        _, message = slack.question()
        actions = next(b for b in message["blocks"] if b["type"] == "actions")
        round_id = int(actions["elements"][0]["value"].split(":")[0])
        recorded = slack.runtime.store.rounds.total_answers
        fake.reply_gate = asyncio.Event()  # private replies hang: every slot stays busy
        people = [f"UL{n}" for n in range(SLOTS + 4)]
        for person in people:
            fake.add_user(person, f"Load {person}")
        first = [await slack.click("A", user=p) for p in people[:SLOTS]]
        assert [status for status, _ in first] == [200] * SLOTS
        refused = [await slack.click("B", user=p) for p in people[SLOTS:]]
        assert [status for status, _ in refused] == [503] * 4  # Slack shows its own error
        assert await recorded(round_id) == SLOTS  # only the 200s

        fake.reply_gate.set()  # the platform catches up: every acknowledged click is answered
        await fake.wait_until(
            lambda: all(fake.replies[key] for _, key in first), "the held private replies"
        )
        assert all("Correct!" in shown(fake.replies[k][0]["blocks"]) or "Not quite"
                   in shown(fake.replies[k][0]["blocks"]) for _, k in first)  # fmt: skip
        status, key = await slack.click("B", user=people[-1])  # a slot is free again
        assert status == 200
        await fake.reply(key)
        assert await recorded(round_id) == SLOTS + 1
    finally:
        fake.reply_gate = None
        await slack.close()
