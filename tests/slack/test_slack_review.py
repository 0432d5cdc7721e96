"""The personal review on Slack, end to end: the real Bolt app over signed HTTP against the fake
Slack. `/zeroquiz review` answers with an ephemeral message with letter buttons; a click is
recorded (the card rescheduled) before its acknowledgement and replaces that ephemeral with the
verdict, the explanation and Next / Stop; Next until nothing is due; a click after a restart
(a new app on the same database file) still works; the Home tab shows the count due and a
"Review now" button whose review stays in the Home tab."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fake_slack import (
    HOME_BLOCKS,
    TEAM,
    FakeSlack,
    SlackHarness,
    block_problems,
    click_payload,
    open_harness,
    shown,
    signed_headers,
)
from helpers import scrape

from adapters.health import start_server
from adapters.slack.port import PLATFORM
from bot.bank import Bank
from bot.clock import FakeClock
from bot.model import UserRef
from bot.reviewing import decode

ADA = UserRef(PLATFORM, TEAM, "U1")
MONTH = 30 * 24 * 3600


def buttons(message: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The message's buttons by label."""
    found: dict[str, dict[str, Any]] = {}
    for block in message["blocks"]:
        if block["type"] == "actions":
            found |= {e["text"]["text"]: e for e in block["elements"]}
    return found


async def answered_twice(slack: SlackHarness, fake: FakeSlack, clock: FakeClock) -> None:
    """Ada answers two channel questions; a month later both cards are due."""
    for _ in range(2):
        await slack.ask("question")
        status, key = await slack.click("A", user="U1")
        assert status == 200
        await fake.reply(key)
        await slack.ask("close", user="UADMIN")
    await clock.advance(MONTH)


async def press(
    slack: SlackHarness, message: dict[str, Any], label: str, *, home: bool = False
) -> tuple[int, str]:
    """Click a button of a private message (or of the Home tab): (ack status, reply key)."""
    key = slack.fake.new_key()
    button = buttons(message)[label]
    url = slack.fake.response_url(key)
    payload = click_payload("1767600000.000200", {"text": "", **message}, button, "U1", url)
    if home:  # a click in the Home tab: a view, no message and no response_url
        payload.pop("response_url")
        payload.pop("message")
        payload.pop("channel")
        payload["container"] = {"type": "view", "view_id": "V1"}
        payload["view"] = {"id": "V1", "type": "home", "blocks": message["blocks"]}
    return await slack.post("payload=" + quote(json.dumps(payload))), key


async def step(slack: SlackHarness, message: dict[str, Any], label: str) -> dict[str, Any]:
    status, key = await press(slack, message, label)
    assert status == 200
    reply = await slack.fake.reply(key)
    assert reply["replace_original"] is True and reply["response_type"] == "ephemeral"
    assert block_problems(reply["blocks"]) == []
    return reply


def right_letter(bank: Bank, message: dict[str, Any]) -> str:
    """The letter of the right option on a review card, read from its buttons' tokens."""
    for label, button in buttons(message).items():
        click = decode(button["value"])
        assert click is not None
        question = bank.get(click.question_id)
        if question is not None and click.option == question.answer:
            return label
    raise AssertionError("no right option among the buttons")


async def test_review_next_until_done_then_a_click_after_a_restart(
    fake: FakeSlack, clock: FakeClock, bank: Bank, db_path: Path
) -> None:
    slack = await open_harness(fake, db_path, clock, bank)
    try:
        board, second = await first_app(slack, fake, clock, bank)
    finally:
        await slack.close()
    # A new app on the same database file: the second card's buttons still work.
    fresh = await open_harness(fake, db_path, clock, bank)
    try:
        done = await step(fresh, second, right_letter(bank, second))
        text = shown(done["blocks"])
        assert "✅" in text and "*Why:*" in text and "That was the last card due." in text
        assert set(buttons(done)) == {"Report"}  # nothing more due: no Next, only Report
        again = await step(fresh, second, "A")  # the same card once more: no second review
        assert "Already reviewed" in shown(again["blocks"])
        nothing = await fresh.ask("review", user="U1")
        assert "Nothing to review right now." in shown(nothing["blocks"])
        assert shown((await fresh.ask("leaderboard all"))["blocks"]) == board  # scores untouched
    finally:
        await fresh.close()


async def first_app(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock, bank: Bank
) -> tuple[str, dict[str, Any]]:
    """The review's first card answered, Next pressed: (the leaderboard, the second card)."""
    await answered_twice(slack, fake, clock)
    board = shown((await slack.ask("leaderboard all"))["blocks"])
    card = await slack.ask("review", user="U1")
    assert card["response_type"] == "ephemeral" and block_problems(card["blocks"]) == []
    assert "ZeroQuiz · Review" in shown(card["blocks"]) and "Cards due for review: 2." in shown(
        card["blocks"]
    )
    letters = [label for label in buttons(card) if len(label) == 1]
    assert letters == sorted(letters) and len(letters) >= 2
    quiz = slack.runtime.quiz
    cards_before = await quiz.store.cards.of(ADA)
    # The click is recorded before Slack sees the ack.
    status, key = await press(slack, card, right_letter(bank, card))
    assert status == 200
    cards_after = await quiz.store.cards.of(ADA)
    assert cards_after != cards_before and cards_after[-1][1].timestamp() > clock.now().timestamp()
    verdict = await fake.reply(key)
    assert verdict["replace_original"] is True
    text = shown(verdict["blocks"])
    assert "✅ Correct!" in text and "*Why:*" in text and "Still due: 1." in text
    assert set(buttons(verdict)) == {"Next", "Stop", "Report"}
    second = await step(slack, verdict, "Next")
    assert "Cards due for review: 1." in shown(second["blocks"])
    return board, second


async def test_stop_unknown_topic_and_indonesian(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    await answered_twice(slack, fake, clock)
    unknown = shown((await slack.ask("review nosuchtopic", user="U1"))["blocks"])
    assert "nosuchtopic" in unknown and "`offload`" in unknown
    await slack.ask("lang id", user="UADMIN")
    card = await slack.ask("review", user="U1")
    assert "ZeroQuiz · Ulasan" in shown(card["blocks"])
    verdict = await step(slack, card, "B")
    assert "*Penjelasan:*" in shown(verdict["blocks"])
    stopped = await step(slack, verdict, "Berhenti")
    assert "Ulasan dihentikan" in shown(stopped["blocks"]) and buttons(stopped) == {}


async def test_home_shows_the_count_due_and_reviews_in_the_home_tab(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    await answered_twice(slack, fake, clock)
    event = {"type": "app_home_opened", "user": "U1", "channel": "D0", "tab": "home"}
    body = {
        "token": "unused", "team_id": TEAM, "api_app_id": "A0ZEROQUIZ", "type": "event_callback",
        "event": event | {"event_ts": "1767600000.000100"}, "event_id": "EvHome",
        "event_time": 1767600000,
    }  # fmt: skip
    text = json.dumps(body)
    headers = signed_headers(text) | {"Content-Type": "application/json"}
    assert await slack.post(text, headers) == 200
    await fake.wait_until(lambda: "U1" in fake.homes, "the Home tab")
    page = fake.homes["U1"]
    assert block_problems(page["blocks"], most_blocks=HOME_BLOCKS) == []
    assert "*Review cards due now*\n2" in shown(page["blocks"])
    assert "Review now" in buttons(page)
    status, _ = await press(slack, page, "Review now", home=True)
    assert status == 200
    await fake.wait_until(lambda: len(fake.calls_to("views.publish")) == 2, "the review at home")
    card = fake.homes["U1"]
    assert card["type"] == "home" and "Cards due for review: 2." in shown(card["blocks"])
    status, _ = await press(slack, card, "A", home=True)
    assert status == 200
    await fake.wait_until(lambda: len(fake.calls_to("views.publish")) == 3, "the verdict at home")
    verdict = fake.homes["U1"]
    assert "*Why:*" in shown(verdict["blocks"]) and set(buttons(verdict)) == {
        "Next",
        "Stop",
        "Report",
    }
    assert block_problems(verdict["blocks"], most_blocks=HOME_BLOCKS) == []
    status, _ = await press(slack, verdict, "Stop", home=True)
    await fake.wait_until(lambda: len(fake.calls_to("views.publish")) == 4, "the page again")
    assert "*Review cards due now*\n1" in shown(fake.homes["U1"]["blocks"])


async def open_home(slack: SlackHarness, fake: FakeSlack) -> dict[str, Any]:
    """U1 opens the app's Home tab (a signed app_home_opened event): the page published."""
    published = len(fake.calls_to("views.publish"))
    event = {"type": "app_home_opened", "user": "U1", "channel": "D0", "tab": "home"}
    body = {
        "token": "unused", "team_id": TEAM, "api_app_id": "A0ZEROQUIZ", "type": "event_callback",
        "event": event | {"event_ts": "1767600000.000100"}, "event_id": "EvHome2",
        "event_time": 1767600000,
    }  # fmt: skip
    text = json.dumps(body)
    assert (
        await slack.post(text, signed_headers(text) | {"Content-Type": "application/json"}) == 200
    )
    await fake.wait_until(lambda: len(fake.calls_to("views.publish")) > published, "the page")
    return fake.homes["U1"]


async def home_press(
    slack: SlackHarness, fake: FakeSlack, page: dict[str, Any], label: str
) -> dict[str, Any]:
    """Press a button of the Home tab: the page published in answer."""
    published = len(fake.calls_to("views.publish"))
    status, _ = await press(slack, page, label, home=True)
    assert status == 200
    await fake.wait_until(lambda: len(fake.calls_to("views.publish")) > published, "the answer")
    answer = fake.homes["U1"]
    assert answer["type"] == "home"
    assert block_problems(answer["blocks"], most_blocks=HOME_BLOCKS) == []
    return answer


async def test_the_last_card_reviewed_at_home_leaves_the_usual_page_below_its_verdict(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock, bank: Bank
) -> None:
    """No dead end: after the last due card the tab shows the verdict and, below it, the usual
    page again (stats, rank, top 10), drawn fresh without reopening the tab."""
    await answered_twice(slack, fake, clock)
    page = await open_home(slack, fake)
    card = await home_press(slack, fake, page, "Review now")
    verdict = await home_press(slack, fake, card, right_letter(bank, card))
    assert "Still due: 1." in shown(verdict["blocks"])
    assert "Top 10 this week" not in shown(verdict["blocks"])  # mid-review: the review alone
    second = await home_press(slack, fake, verdict, "Next")
    done = await home_press(slack, fake, second, right_letter(bank, second))
    text = shown(done["blocks"])
    assert "✅" in text and "That was the last card due." in text and "<!date^" in text
    verdict_at = text.index("That was the last card due.")
    for part in ("*Review cards due now*\n0", "Your rank this week", "Top 10 this week"):
        assert text.index(part) > verdict_at, part  # the page, below the verdict
    assert "Review now" not in buttons(done)  # nothing is due any more
    assert done["blocks"][0]["type"] == "header" and "Review" in shown(done["blocks"][:1])


async def test_review_clicks_are_counted_on_the_metrics_page(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock, bank: Bank
) -> None:
    """/metrics (on the health listener) counts review clicks by kind and the reviews that
    rescheduled a card by verdict; a repeated click is a click but no second review."""
    server = await start_server(slack.runtime.health, "127.0.0.1", 0)
    try:
        await review_clicks_counted(slack, fake, clock, bank, server.url + "/metrics")
    finally:
        await server.cleanup()


async def review_clicks_counted(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock, bank: Bank, url: str
) -> None:
    review_clicks = "zeroquiz_review_clicks_total"

    def kind(name: str) -> tuple[str, tuple[tuple[str, str], ...]]:
        return review_clicks, (("kind", name), ("platform", "slack"))

    assert (await scrape(url)).get(kind("answer"), 0) == 0
    await answered_twice(slack, fake, clock)
    card = await slack.ask("review", user="U1")
    verdict = await step(slack, card, right_letter(bank, card))
    again = await step(slack, card, right_letter(bank, card))  # the same card clicked again
    assert "Already reviewed" in shown(again["blocks"])
    second = await step(slack, verdict, "Next")
    wrong = next(label for label in buttons(second) if label != right_letter(bank, second))
    await step(slack, second, wrong)
    await step(slack, verdict, "Stop")
    after = await scrape(url)
    assert after[kind("answer")] == 3 and after[kind("next")] == 1 and after[kind("stop")] == 1
    recorded = "zeroquiz_reviews_recorded_total"
    assert after[(recorded, (("platform", "slack"), ("verdict", "correct")))] == 1
    assert after[(recorded, (("platform", "slack"), ("verdict", "wrong")))] == 1
    assert after[("zeroquiz_clicks_total", (("platform", "slack"),))] == 2  # answers, apart
