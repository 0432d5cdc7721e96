"""Slack teaches the wrong pick, over HTTP: the real AsyncApp, signed requests, a fake Web API.

Whoever clicks a wrong option is told privately why that option is wrong (its own reason, not
another's), then why the key is right; the reveal names the most picked wrong option's reason.
"""

from __future__ import annotations

from fake_slack import FakeSlack, SlackHarness, block_problems, shown, texts

from adapters.slack.mrkdwn import escape
from bot import presenter
from bot.clock import FakeClock
from bot.model import LETTERS, Question

TOPIC = "checkpointing"  # hand-written questions only: every wrong option has its own reason


async def posted(slack: SlackHarness) -> tuple[Question, tuple[int, ...]]:
    """The question in the channel and its display order, from the round the store holds."""
    await slack.ask(f"question {TOPIC}")
    _, message = slack.question()
    actions = next(b for b in message["blocks"] if b["type"] == "actions")
    round_id = int(actions["elements"][0]["value"].split(":")[0])
    row = await slack.runtime.store.rounds.get(round_id)
    assert row is not None
    question = slack.runtime.quiz.bank.get(row.question_id)
    assert question is not None and TOPIC in question.tags
    return question, presenter.display_order(row, question)


async def test_each_wrong_click_is_told_its_own_options_reason_before_the_explanation(
    slack: SlackHarness, fake: FakeSlack
) -> None:
    question, order = await posted(slack)
    reasons = {escape(question.reason(src).en) for src in order if src != question.answer}  # type: ignore[union-attr]
    for slot, src in enumerate(order):
        letter = LETTERS[slot]
        user = f"U{slot + 1}"
        fake.add_user(user, f"Player {slot + 1}")
        answer = await fake.reply((await slack.click(letter, user=user))[1])
        assert answer["response_type"] == "ephemeral"
        assert block_problems(answer["blocks"]) == []
        sections = texts(answer["blocks"])
        why = next(i for i, text in enumerate(sections) if text.startswith("*Why:*"))
        if src == question.answer:
            assert "Correct!" in sections[0]
            assert not any(reason in shown(answer["blocks"]) for reason in reasons)
            continue
        reason = question.reason(src)
        assert reason is not None
        mistake = f"*Why {letter} is not right:* {escape(reason.en)}"
        assert sections[why - 1] == mistake  # the option's reason, then why the key is right
        others = reasons - {escape(reason.en)}
        assert not any(other in shown(answer["blocks"]) for other in others)


async def test_the_reveal_shows_the_most_picked_wrong_answers_reason(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    question, order = await posted(slack)
    wrong = [slot for slot, src in enumerate(order) if src != question.answer]
    right = order.index(question.answer)
    for user, slot in (("U1", right), ("U2", wrong[0]), ("U3", wrong[2]), ("U4", wrong[2])):
        fake.add_user(user, user)
        await fake.reply((await slack.click(LETTERS[slot], user=user))[1])
    await clock.advance(10 * 60)
    await slack.runtime.scheduler.caught_up()
    reveal = fake.calls_to("chat.update")[-1]
    assert block_problems(reveal.args["blocks"]) == []
    reason = question.reason(order[wrong[2]])
    assert reason is not None
    letter = LETTERS[wrong[2]]
    line = f"*Most picked wrong answer, {letter}: why it is not right:* {escape(reason.en)}"
    assert line in texts(reveal.args["blocks"])
    other = question.reason(order[wrong[0]])
    assert other is not None and escape(other.en) not in shown(reveal.args["blocks"])
