"""The personal review over Socket Mode: `/zeroquiz review` and a review click arrive as
envelopes on the websocket, and a click's envelope is acknowledged only once its card is
rescheduled (committed), as over HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fake_slack import (
    TEAM,
    FakeSlack,
    block_problems,
    click_payload,
    open_harness,
    shown,
    slash_payload,
)

from adapters.slack.port import PLATFORM
from bot.bank import Bank
from bot.clock import FakeClock
from bot.model import UserRef
from bot.reviewing import decode

ADA = UserRef(PLATFORM, TEAM, "U1")
MONTH = 30 * 24 * 3600


class Acks(dict[str, dict[str, Any]]):
    """The fake's acknowledgements, noting in `events` when each arrives."""

    def __init__(self, events: list[str]) -> None:
        super().__init__()
        self.events = events

    def __setitem__(self, key: str, value: dict[str, Any]) -> None:
        self.events.append("acknowledged")
        super().__setitem__(key, value)


def buttons(message: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        e["text"]["text"]: e
        for b in message["blocks"]
        if b["type"] == "actions"
        for e in b["elements"]
    }


async def test_review_and_a_review_click_over_socket_mode_ack_after_the_card_is_rescheduled(
    fake: FakeSlack,
    db_path: Path,
    clock: FakeClock,
    bank: Bank,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    slack = await open_harness(fake, db_path, clock, bank, socket=True)
    try:
        await slack.ask("question")
        await fake.reply((await slack.click("A", user="U1"))[1])
        await clock.advance(10 * 60)  # the question closes; a month later its card is due
        await slack.runtime.scheduler.caught_up()
        await clock.advance(MONTH)

        key = fake.new_key()
        ack = await fake.send_envelope(
            "slash_commands", slash_payload("review", "U1", fake.response_url(key))
        )
        assert set(ack) <= {"envelope_id", "payload"}  # the card comes privately, not in the ack
        card = await fake.reply(key)
        assert card["response_type"] == "ephemeral" and block_problems(card["blocks"]) == []
        assert "Cards due for review: 1." in shown(card["blocks"])
        letter, button = next(
            (label, b) for label, b in buttons(card).items() if is_right(bank, b["value"])
        )

        quiz = slack.runtime.quiz
        before = await quiz.store.cards.of(ADA)
        events: list[str] = []
        fake.acks = Acks(events)
        click = quiz.reviews.click

        async def noted(*args: Any, **kwargs: Any) -> Any:
            step = await click(*args, **kwargs)
            events.append("rescheduled")
            return step

        monkeypatch.setattr(quiz.reviews, "click", noted)
        key = fake.new_key()
        payload = click_payload(
            "1767600000.000200", {"text": "", **card}, button, "U1", fake.response_url(key)
        )
        await fake.send_envelope("interactive", payload)
        assert events == ["rescheduled", "acknowledged"]
        after = await quiz.store.cards.of(ADA)
        assert after != before and after[-1][1].timestamp() > clock.now().timestamp()

        verdict = await fake.reply(key)
        assert verdict["replace_original"] is True and verdict["response_type"] == "ephemeral"
        text = shown(verdict["blocks"])
        assert "✅ Correct!" in text and "*Why:*" in text and "That was the last card due." in text
        assert block_problems(verdict["blocks"]) == [] and letter in "ABCDE"
    finally:
        await slack.close()


def is_right(bank: Bank, value: str) -> bool:
    click = decode(value)
    if click is None:
        return False
    question = bank.get(click.question_id)
    return question is not None and click.option == question.answer
