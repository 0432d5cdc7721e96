"""Type it on Slack, over signed HTTP against the real Bolt app: a generated question carries a
Type it button; it opens a form with one text field; what is no number is refused inside the form
and counts nothing; a number is recorded before the form is acknowledged, graded within the
rounding's tolerance, and answered privately with the worked calculation (and a named mistake's
reason); a second answer, typed or clicked, changes nothing; the reveal counts the typed ones."""

from __future__ import annotations

from typing import Any

import pytest
from fake_slack import FakeSlack, SlackHarness, block_problems, shown
from test_slack_review import buttons, open_home, press

from bot.bank import Bank, load_bank
from bot.clock import FakeClock
from bot.model import Question

TYPE_IT = "Type it"


@pytest.fixture(name="bank", scope="module")
def offload_only() -> Bank:
    return Bank([], [t for t in load_bank().templates if t.id == "gen-offload-gpu"])


def letter_of(message: dict[str, Any], option: str) -> str:
    """The letter of the option shown as `option` ("*B)* 31.4 GB")."""
    return next(ln for ln in shown(message["blocks"]).splitlines() if ln.endswith(option))[1]


async def open_form(slack: SlackHarness, fake: FakeSlack, user: str) -> tuple[dict[str, Any], str]:
    """Click Type it as `user`: the form it opened, and the response_url key of that click."""
    opened = len(fake.modals)
    status, key = await slack.click(TYPE_IT, user=user)
    assert status == 200
    await fake.wait_until(lambda: len(fake.modals) > opened, "the Type it form")
    return fake.modals[-1], key


async def test_a_typed_number_counts_once_and_the_reveal_counts_it(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock, bank: Bank
) -> None:
    await slack.ask("question")
    ts, message = slack.question()
    assert block_problems(message["blocks"]) == []
    round_id = int(buttons(message)["A"]["value"].split(":")[0])
    assert buttons(message)[TYPE_IT]["value"] == str(round_id)
    row = await slack.runtime.quiz.rounds.round_row(round_id)
    assert row is not None
    question: Question | None = bank.get(row.question_id)
    assert question is not None
    key_text = question.options[question.answer].en  # "31.4 GB"

    form, key = await open_form(slack, fake, "U1")
    assert form["callback_id"] == "zeroquiz_typed"
    assert form["title"]["text"] == "Type the number"
    assert form["blocks"][0]["label"]["text"] == "Your answer, in GB"
    status, refused = await slack.submit(form, {"number": "about thirty"}, user="U1")
    assert status == 200 and refused["response_action"] == "errors"
    assert "type a number like" in refused["errors"]["number"]
    assert await slack.runtime.quiz.store.rounds.total_answers(round_id) == 0

    typed = key_text.lower().replace(" ", "")  # "31.4gb": any case, no space
    status, closed = await slack.submit(form, {"number": typed}, user="U1")
    assert status == 200 and closed == {}  # the form closes: the answer is recorded
    assert await slack.runtime.quiz.store.rounds.total_answers(round_id) == 1
    verdict = await fake.reply(key)
    assert block_problems(verdict["blocks"]) == []
    text = shown(verdict["blocks"])
    assert f"✅ Correct! You typed {typed}." in text and "+10 points" in text
    assert f"= {key_text}" in text  # the worked calculation
    assert "Report" in buttons(verdict)

    status, again = await slack.submit(form, {"number": "1"}, user="U1")  # the form sent again
    assert status == 200 and again == {}
    await fake.wait_until(lambda: len(fake.replies[key]) == 2, "the second verdict")
    assert f"You already answered ({typed})" in shown(fake.replies[key][1]["blocks"])
    right_letter = letter_of(message, key_text)
    wrong_letter = next(x for x in "ABCD" if x != right_letter)
    clicked = await fake.reply((await slack.click(wrong_letter, user="U1"))[1])
    assert f"You already answered ({typed})" in shown(clicked["blocks"])  # a click after: nothing

    mistaken = next(o for o in range(4) if question.reason(o) is not None)
    reason = question.reason(mistaken)
    assert reason is not None
    mistake = question.options[mistaken].en.replace(".", ",")  # the decimal comma, in English
    form2, key2 = await open_form(slack, fake, "U2")
    status, closed = await slack.submit(form2, {"number": mistake}, user="U2")
    assert status == 200 and closed == {}
    wrong = shown((await fake.reply(key2))["blocks"])
    assert f"❌ Not quite: you typed {mistake}." in wrong
    assert f"Why {mistake} is not right:* {reason.en}" in wrong

    await fake.reply((await slack.click(right_letter, user="U3"))[1])

    await clock.advance(10 * 60)
    await slack.runtime.scheduler.caught_up()
    reveal = fake.calls_to("chat.update")[-1]
    assert reveal.args["ts"] == ts and block_problems(reveal.args["blocks"]) == []
    revealed = shown(reveal.args["blocks"])
    assert "2 of 3 answered right" in revealed
    assert "⌨️ 2 typed the number, 1 of them right" in revealed


async def test_type_it_on_a_closed_question_opens_no_form(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    await slack.ask("question")
    await clock.advance(10 * 60)
    await slack.runtime.scheduler.caught_up()
    status, key = await slack.click(TYPE_IT, user="U1")
    assert status == 200
    assert "This question is closed" in shown((await fake.reply(key))["blocks"])
    assert fake.modals == []


async def test_a_drill_card_and_a_review_card_at_home_take_the_number_typed(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock, bank: Bank
) -> None:
    await slack.ask("question")
    _, message = slack.question()
    row = await slack.runtime.quiz.rounds.round_row(
        int(buttons(message)["A"]["value"].split(":")[0])
    )
    assert row is not None
    question = bank.get(row.question_id)
    assert question is not None
    key_text = question.options[question.answer].en
    form, key = await open_form(slack, fake, "U1")
    assert (await slack.submit(form, {"number": "99999"}, user="U1"))[1] == {}
    assert "❌ Not quite: you typed 99999." in shown((await fake.reply(key))["blocks"])
    await slack.ask("close", user="UADMIN")

    card = await slack.ask("drill", user="U1")  # the miss, privately, with Type it
    assert block_problems(card["blocks"]) == [] and TYPE_IT in buttons(card)
    opened = len(fake.modals)
    status, reply_key = await press(slack, card, TYPE_IT)
    assert status == 200
    await fake.wait_until(lambda: len(fake.modals) > opened, "the card's Type it form")
    status, refused = await slack.submit(fake.modals[-1], {"number": "lots"}, user="U1")
    assert "type a number like" in refused["errors"]["number"]  # the card is unchanged
    status, closed = await slack.submit(fake.modals[-1], {"number": key_text}, user="U1")
    assert status == 200 and closed == {}
    verdict = await fake.reply(reply_key)
    assert verdict["replace_original"] is True and block_problems(verdict["blocks"]) == []
    text = shown(verdict["blocks"])
    assert f"✅ Correct! You typed {key_text}." in text and "Drill over: 0 missed" in text

    await clock.advance(60 * 24 * 3600)  # due again: reviewed from the Home tab
    page = await open_home(slack, fake)
    assert (await press(slack, page, "Review now", home=True))[0] == 200
    await fake.wait_until(lambda: len(fake.calls_to("views.publish")) == 2, "the card at home")
    home_card = fake.homes["U1"]
    opened = len(fake.modals)
    assert (await press(slack, home_card, TYPE_IT, home=True))[0] == 200
    await fake.wait_until(lambda: len(fake.modals) > opened, "the Home card's form")
    status, closed = await slack.submit(fake.modals[-1], {"number": key_text}, user="U1")
    assert status == 200 and closed == {}
    await fake.wait_until(lambda: len(fake.calls_to("views.publish")) == 3, "the verdict at home")
    assert f"✅ Correct! You typed {key_text}." in shown(fake.homes["U1"]["blocks"])
