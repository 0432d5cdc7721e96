"""`/zeroquiz stop` over signed HTTP: the open question is revealed in place, the standings so far
are posted, and no further question follows even when the clock passes the window; the starter
and an admin may stop, someone else may not; a stop with no run."""

from __future__ import annotations

from fake_slack import FakeSlack, SlackHarness, shown

from bot.bank import Bank
from bot.clock import FakeClock


def right_letter(slack: SlackHarness, bank: Bank) -> str:
    _, message = slack.question()
    text = shown(message["blocks"])
    [question] = [q for q in bank.questions if q.prompt.en in text]
    right = question.options[question.answer].en
    return next(line for line in text.splitlines() if line.endswith(right))[1]


def questions_posted(fake: FakeSlack) -> int:
    return sum(
        any(b["type"] == "actions" for b in call.args["blocks"])
        for call in fake.calls_to("chat.postMessage")
    )


async def test_the_starter_stops_a_run_and_someone_else_may_not(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock, bank: Bank
) -> None:
    fake.add_user("U2", "Ada Lovelace")
    assert "A run of 3 questions" in shown((await slack.ask("start 3", user="U1"))["blocks"])
    ts, _ = slack.question()
    await fake.reply((await slack.click(right_letter(slack, bank), user="U2"))[1])

    refused = await slack.ask("stop", user="U2")
    assert refused["response_type"] == "ephemeral"
    assert "Only the person who started this run, or an admin" in shown(refused["blocks"])
    assert not [c for c in fake.calls_to("chat.update") if "Why:" in shown(c.args["blocks"])]

    reply = await slack.ask("stop", user="U1")
    assert reply["response_type"] == "ephemeral"
    assert "Run stopped" in shown(reply["blocks"])
    reveal = fake.calls_to("chat.update")[-1]
    assert reveal.args["ts"] == ts  # the open question, revealed in place
    assert all(b["type"] != "actions" for b in reveal.args["blocks"])
    assert "*Why:*" in shown(reveal.args["blocks"])
    standings = shown(fake.calls_to("chat.postMessage")[-1].args["blocks"])
    assert "Results of this run" in standings and "Ada Lovelace" in standings

    await clock.advance(60 * 60)  # far past the question's window
    await slack.runtime.scheduler.caught_up()
    assert questions_posted(fake) == 1  # no further question of the stopped run
    nothing = await slack.ask("stop", user="U1")
    assert "No run is going in this channel." in shown(nothing["blocks"])


async def test_an_admin_may_stop_someone_elses_run(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    await slack.ask("start 2", user="U1")
    reply = await slack.ask("stop", user="UADMIN")  # a workspace admin per users.info
    assert "Run stopped" in shown(reply["blocks"])
    assert "Nobody scored in this run." in shown(
        fake.calls_to("chat.postMessage")[-1].args["blocks"]
    )
    await clock.advance(60 * 60)
    await slack.runtime.scheduler.caught_up()
    assert questions_posted(fake) == 1
