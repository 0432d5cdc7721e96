"""Drill my misses on Slack, end to end over signed HTTP: `/zeroquiz drill` answers privately
with the most recent miss and letter buttons; a click replaces that private message with the
verdict, the option's own reason, and Next; one answered right leaves the list."""

from __future__ import annotations

from typing import Any

import pytest
from fake_slack import CHANNEL, TEAM, FakeSlack, SlackHarness, block_problems, shown
from test_slack_flow import correct_letter
from test_slack_review import buttons, step

from bot.bank import Bank, load_bank
from bot.clock import FakeClock
from bot.model import ChannelRef
from bot.reviewing import decode


@pytest.fixture(name="bank", scope="module")
def hand_written_bank() -> Bank:
    """The channel's question is found by its text (test_slack_flow): hand-written ones."""
    return Bank(load_bank().questions)


def letter(bank: Bank, message: dict[str, Any], *, right: bool) -> str:
    for label, button in buttons(message).items():
        click = decode(button["value"])
        assert click is not None
        question = bank.get(click.question_id)
        if question is not None and (click.option == question.answer) == right:
            return label
    raise AssertionError("no such option")


def asked(message: dict[str, Any]) -> str:
    click = decode(next(iter(buttons(message).values()))["value"])
    assert click is not None
    return click.question_id


async def test_a_drill_over_http_asks_the_misses_and_a_right_answer_leaves(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock, bank: Bank
) -> None:
    missed = []
    for _ in range(2):
        await clock.advance(60)
        await slack.ask("question")
        right = correct_letter(slack, bank)
        wrong = next(x for x in "ABCD" if x != right)
        await fake.reply((await slack.click(wrong, user="U1"))[1])
        rounds = await slack.runtime.store.rounds.in_channel(ChannelRef("slack", TEAM, CHANNEL))
        missed.append(rounds[-1].question_id)
        await slack.ask("close", user="UADMIN")

    card = await slack.ask("drill", user="U1")
    assert card["response_type"] == "ephemeral" and block_problems(card["blocks"]) == []
    assert "ZeroQuiz · Drill" in shown(card["blocks"]) and asked(card) == missed[1]
    verdict = await step(slack, card, letter(bank, card, right=False))
    text = shown(verdict["blocks"])
    assert "Not quite" in text and "is not right:*" in text  # the option's own reason
    second = await step(slack, verdict, "Next")
    assert asked(second) == missed[0]
    done = await step(slack, second, letter(bank, second, right=True))
    assert "Drill over: 1 missed question(s) left" in shown(done["blocks"])
    left = await slack.ask("drill", user="U1")
    assert asked(left) == missed[1]  # missed again in this drill; the other left the list
    nothing = await slack.ask("drill", user="U2")
    assert "Nothing missed" in shown(nothing["blocks"])
