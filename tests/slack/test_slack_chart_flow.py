"""A memory question over signed HTTP: the click's private answer and the reveal both carry the
stages' chart in a code block, the asked stage marked with the drawn answer."""

from __future__ import annotations

import pytest
from fake_slack import FakeSlack, SlackHarness, block_problems, shown

from bot.bank import Bank, load_bank
from bot.charts import MARK
from bot.clock import FakeClock


@pytest.fixture(name="bank", scope="module")
def stage2_only() -> Bank:
    return Bank([], [t for t in load_bank().templates if t.id == "gen-mem-stage2"])


def _chart_lines(text: str) -> list[str]:
    """The lines inside the message's one code block."""
    assert text.count("```") == 2, text
    return text.split("```")[1].splitlines()


async def test_the_click_and_the_reveal_show_the_memory_chart(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock, bank: Bank
) -> None:
    await slack.ask("question stages")
    _, message = slack.question()
    actions = next(b for b in message["blocks"] if b["type"] == "actions")
    view = await slack.runtime.quiz.rounds.question_view(
        int(actions["elements"][0]["value"].split(":")[0])
    )
    assert view is not None and view.question_id.startswith("gen-mem-stage2@")
    question = bank.get(view.question_id)
    assert question is not None
    right_text = question.options[question.answer].en
    text = shown(message["blocks"])
    assert "```" not in text  # the open question gives nothing away
    right = next(ln for ln in text.splitlines() if ln.endswith(right_text))[1]

    answer = await fake.reply((await slack.click(right, user="U1"))[1])
    assert block_problems(answer["blocks"]) == []
    private = shown(answer["blocks"])
    assert "*Model states per GPU, " in private
    lines = _chart_lines(private)
    assert [ln.split()[0] for ln in lines] == ["Plain", "Stage", "Stage", "Stage"]
    [marked] = [ln for ln in lines if ln.endswith(MARK)]
    assert marked.startswith("Stage 2 ") and right_text in marked

    await clock.advance(10 * 60)
    await slack.runtime.scheduler.caught_up()
    reveal = fake.calls_to("chat.update")[-1]
    assert block_problems(reveal.args["blocks"]) == []
    assert _chart_lines(shown(reveal.args["blocks"])) == lines
