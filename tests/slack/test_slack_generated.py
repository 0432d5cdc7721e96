"""A generated question over signed HTTP: posted with its drawn numbers, answered privately with
the worked arithmetic, revealed with the same numbers."""

from __future__ import annotations

import pytest
from fake_slack import FakeSlack, SlackHarness, block_problems, shown

from bot.bank import Bank, load_bank
from bot.clock import FakeClock


@pytest.fixture(name="bank", scope="module")
def offload_only() -> Bank:
    return Bank([], [t for t in load_bank().templates if t.id == "gen-offload-gpu"])


async def test_a_generated_question_is_asked_answered_and_revealed_with_its_numbers(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock, bank: Bank
) -> None:
    await slack.ask("question offload")
    ts, message = slack.question()
    assert block_problems(message["blocks"]) == []
    actions = next(b for b in message["blocks"] if b["type"] == "actions")
    view = await slack.runtime.quiz.rounds.question_view(
        int(actions["elements"][0]["value"].split(":")[0])
    )
    assert view is not None and view.question_id.startswith("gen-offload-gpu@")
    question = bank.get(view.question_id)
    assert question is not None
    text = shown(message["blocks"])
    assert question.prompt.en in text  # the drawn numbers, as posted
    right_text = question.options[question.answer].en
    right = next(ln for ln in text.splitlines() if ln.endswith(right_text))[1]
    wrong = next(x for x in "ABCD" if x != right)

    answer = await fake.reply((await slack.click(right, user="U1"))[1])
    private = shown(answer["blocks"])
    assert "Correct!" in private and f"The answer is {right})" in private
    assert f"= {right_text}" in private  # the worked arithmetic ends in the answer
    await fake.reply((await slack.click(wrong, user="U2"))[1])

    await clock.advance(10 * 60)
    await slack.runtime.scheduler.caught_up()
    reveal = fake.calls_to("chat.update")[-1]
    assert reveal.args["ts"] == ts and block_problems(reveal.args["blocks"]) == []
    revealed = shown(reveal.args["blocks"])
    assert f"✅ *{right})*" in revealed and right_text in revealed
    assert "*Why:*" in revealed and f"= {right_text}" in revealed  # the same numbers again
    assert "1 of 2 answered right" in revealed
