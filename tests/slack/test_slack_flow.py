"""End to end over HTTP: the real AsyncApp on loopback, signed requests, a fake Web API."""

from __future__ import annotations

import json
import time
from pathlib import Path
from urllib.parse import quote, urlencode

import pytest
from fake_slack import (
    CHANNEL,
    FakeSlack,
    SlackHarness,
    block_problems,
    open_harness,
    shown,
    signed_headers,
    slash_payload,
)

from bot.bank import Bank, load_bank
from bot.clock import FakeClock


@pytest.fixture(name="bank", scope="module")
def hand_written_bank() -> Bank:
    """These tests find the posted question by its text, so they ask only hand-written ones (a
    generated question's flow is in tests/slack/test_slack_generated.py)."""
    return Bank(load_bank().questions)


def round_of(slack: SlackHarness) -> int:
    _, message = slack.question()
    actions = next(b for b in message["blocks"] if b["type"] == "actions")
    return int(actions["elements"][0]["value"].split(":")[0])


def correct_letter(slack: SlackHarness, bank: Bank) -> str:
    """The letter of the right option, as the channel shows it."""
    _, message = slack.question()
    text = shown(message["blocks"])
    for q in bank.questions:
        if q.prompt.en in text:
            right = q.options[q.answer].en
            return next(ln for ln in text.splitlines() if ln.endswith(right))[1]
    raise AssertionError("question not in the bank")


async def test_question_is_posted_and_clicks_on_a_to_d_are_answered_privately(
    slack: SlackHarness, fake: FakeSlack, bank: Bank
) -> None:
    reply = await slack.ask("question")
    assert reply["response_type"] == "ephemeral"
    assert "Question posted." in shown(reply["blocks"])
    [post] = fake.calls_to("chat.postMessage")
    assert post.args["channel"] == CHANNEL
    assert block_problems(post.args["blocks"]) == []
    right = correct_letter(slack, bank)
    _, message = slack.question()
    letters = [
        e["text"]["text"]
        for b in message["blocks"]
        if b["type"] == "actions"
        for e in b["elements"]
        if e["action_id"] != "zq_typed"  # a generated question's Type it: no letter
    ]
    for i, letter in enumerate(letters):
        user = f"U{i + 1}"
        fake.add_user(user, f"Player {i + 1}")
        status, key = await slack.click(letter, user=user)
        assert status == 200
        answer = await fake.reply(key)
        assert answer["response_type"] == "ephemeral"
        assert answer["replace_original"] is False
        text = shown(answer["blocks"])
        assert ("Correct!" in text) == (letter == right), text
        assert f"The answer is {right})" in text
        assert "*Why:*" in text
    # Nothing private reached the channel: one public message, never an ephemeral post.
    assert len(fake.calls_to("chat.postMessage")) == 1
    assert fake.calls_to("chat.postEphemeral") == []


async def test_second_click_and_late_click_get_their_own_private_replies(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    await slack.ask("question")
    await fake.reply((await slack.click("B", user="U1"))[1])
    again = await fake.reply((await slack.click("A", user="U1"))[1])
    assert "You already answered B" in shown(again["blocks"])
    await clock.advance(11 * 60)
    await slack.runtime.scheduler.caught_up()
    # The message in the channel lost its buttons; a click from a stale client still gets an answer.
    late_body = slack.click_body("A", "U2", "late")
    await slack.post("payload=" + quote(json.dumps(late_body)))
    late = await fake.reply("late")
    assert "This question is closed" in shown(late["blocks"])


async def test_reveal_replaces_the_question_when_the_deadline_passes(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock, bank: Bank
) -> None:
    await slack.ask("question")
    ts, _ = slack.question()
    right = correct_letter(slack, bank)
    wrong = next(x for x in "ABCD" if x != right)
    for user, letter in (("U1", right), ("U2", right), ("UADMIN", wrong)):
        await fake.reply((await slack.click(letter, user=user))[1])
    await clock.advance(9 * 60)
    await slack.runtime.scheduler.caught_up()
    assert all("actions" in str(c.args["blocks"]) for c in fake.calls_to("chat.update"))
    await clock.advance(60)
    await slack.runtime.scheduler.caught_up()
    reveal = fake.calls_to("chat.update")[-1]
    assert reveal.args["ts"] == ts
    assert block_problems(reveal.args["blocks"]) == []
    text = shown(reveal.args["blocks"])
    assert all(b["type"] != "actions" for b in reveal.args["blocks"])
    assert f"✅ *{right})*" in text
    assert "*Why:*" in text
    assert f"*{right}* 2 (67%) ✅" in text
    assert "2 of 3 answered right" in text
    assert "Fastest correct answer: Ada Lovelace" in text


async def test_live_count_is_refreshed_on_the_public_message(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    await slack.ask("question")
    await fake.reply((await slack.click("A", user="U1"))[1])
    await fake.wait_until(lambda: bool(fake.calls_to("chat.update")), "a live count")
    assert "1 answered so far" in shown(fake.calls_to("chat.update")[-1].args["blocks"])
    await fake.reply((await slack.click("B", user="U2"))[1])
    assert len(fake.calls_to("chat.update")) == 1  # coalesced: the next edit waits its turn
    await clock.advance(5)
    await fake.wait_until(lambda: len(fake.calls_to("chat.update")) == 2, "the next live count")
    assert "2 answered so far" in shown(fake.calls_to("chat.update")[-1].args["blocks"])


async def test_bad_signature_or_stale_timestamp_is_refused_and_changes_nothing(
    slack: SlackHarness, fake: FakeSlack
) -> None:
    body = urlencode(slash_payload("question", "U1", fake.response_url("x")))
    forged = signed_headers(body, secret="0" * 32)
    stale = signed_headers(body, timestamp=int(time.time()) - 600)
    assert await slack.post(body, forged) == 401
    assert await slack.post(body, stale) == 401
    assert await slack.post(body + "&text=close", signed_headers(body)) == 401  # body tampered
    assert fake.calls_to("chat.postMessage") == []
    assert await slack.runtime.quiz.next_due() is None  # no round was opened

    await slack.ask("question")
    click = "payload=" + quote(json.dumps(slack.click_body("A", "U1", "y")))
    assert await slack.post(click, signed_headers(click, secret="1" * 32)) == 401
    view = await slack.runtime.quiz.rounds.question_view(round_of(slack))
    assert view is not None and view.answer_count == 0
    assert fake.replies["x"] == [] and fake.replies["y"] == []


async def test_leaderboard_and_stats_answer_with_the_right_numbers(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock, bank: Bank
) -> None:
    for _ in range(2):
        await slack.ask("question")
        right = correct_letter(slack, bank)
        wrong = next(x for x in "ABCD" if x != right)
        await fake.reply((await slack.click(right, user="U1"))[1])
        await fake.reply((await slack.click(wrong, user="U2"))[1])
        await fake.reply((await slack.click(right, user="U2"))[1])  # too late: first one counts
        await clock.advance(10 * 60)
        await slack.runtime.scheduler.caught_up()
    board = shown((await slack.ask("leaderboard week", user="U2"))["blocks"])
    assert "ZeroQuiz leaderboard · this week" in board
    assert "1. Ada Lovelace · 20 pts · 2 right" in board
    assert "2. Alan Turing · 0 pts · 0 right" in board
    assert "You: #2 · 0 pts · 0 right" in board
    assert "<@" not in board
    stats = (await slack.ask("stats", user="U1"))["blocks"]
    fields = [f["text"] for f in stats[1]["fields"]]
    assert fields[:4] == ["*Answered*\n2", "*Correct*\n2", "*Accuracy*\n100%", "*Points*\n20"]


async def test_admin_actions_are_checked_on_the_server(
    slack: SlackHarness, fake: FakeSlack
) -> None:
    await slack.ask("question")
    refused = await slack.ask("close", user="U1")
    assert "Only admins can do that." in shown(refused["blocks"])
    refused = await slack.ask("lang id", user="U1")
    assert "Only admins can do that." in shown(refused["blocks"])
    assert fake.calls_to("chat.update") == []  # the round is still open
    done = await slack.ask("close", user="UADMIN")  # a workspace admin per users.info
    assert "Closed the open question." in shown(done["blocks"])
    reveal = fake.calls_to("chat.update")[-1]
    assert all(b["type"] != "actions" for b in reveal.args["blocks"])
    fake.add_user("UOWNER", "Workspace Owner", owner=True)
    await slack.ask("lang id", user="UOWNER")  # owners count as admins too
    await slack.ask("question")
    assert "Ditutup" in shown(slack.question()[1]["blocks"])


async def test_listed_admin_may_act_without_being_a_workspace_admin(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> None:
    slack = await open_harness(fake, db_path, clock, bank, admins=frozenset({"U2"}))
    try:
        assert "Only admins" in shown((await slack.ask("lang id", user="U1"))["blocks"])
        reply = await slack.ask("lang id", user="U2")
        assert "Bahasa Indonesia" in shown(reply["blocks"])
    finally:
        await slack.close()


async def test_channel_the_app_cannot_post_to_gets_a_private_fix(
    slack: SlackHarness, fake: FakeSlack
) -> None:
    fake.errors["chat.postMessage"] = ["channel_not_found"]
    reply = await slack.ask("question", channel="CPRIVATE")
    text = shown(reply["blocks"])
    assert reply["response_type"] == "ephemeral"
    assert "I can't post in this channel" in text and "/invite @ZeroQuiz" in text
    assert await slack.runtime.quiz.next_due() is None  # the undelivered round is closed
    fake.errors["chat.postMessage"] = ["not_in_channel"]
    assert "/invite @ZeroQuiz" in shown((await slack.ask("start 3"))["blocks"])


async def test_unknown_words_and_empty_text_get_the_help(
    slack: SlackHarness, fake: FakeSlack
) -> None:
    for text in ("", "help", "frobnicate"):
        reply = await slack.ask(text)
        assert reply["response_type"] == "ephemeral"
        assert "/zeroquiz question" in shown(reply["blocks"])
    assert fake.calls_to("chat.postMessage") == []


async def test_rate_limited_or_dropped_post_is_retried(
    slack: SlackHarness, fake: FakeSlack
) -> None:
    fake.rate_limits["chat.postMessage"] = 1  # HTTP 429 with Retry-After: 0, then accepted
    reply = await slack.ask("question")
    assert "Question posted." in shown(reply["blocks"])
    assert len(fake.calls_to("chat.postMessage")) == 2
    assert len(fake.messages) == 1
    await slack.ask("close", user="UADMIN")
    fake.drops["chat.postMessage"] = 1  # the connection drops once, then the post goes through
    reply = await slack.ask("question")
    assert "Question posted." in shown(reply["blocks"])
    assert len(fake.calls_to("chat.postMessage")) == 4
    assert len(fake.messages) == 2


async def test_the_word_payload_in_a_command_does_not_lose_it(
    slack: SlackHarness, fake: FakeSlack
) -> None:
    body = urlencode(slash_payload("question", "U1", fake.response_url("z"), "CP", "payload-team"))
    assert await slack.post(body, signed_headers(body, secret="2" * 32)) == 401  # still checked
    assert fake.calls_to("chat.postMessage") == []
    reply = await slack.ask("question", channel="CPAYLOAD", channel_name="payload-team")
    assert "Question posted." in shown(reply["blocks"])
    reply = await slack.ask("start payload")
    assert "Choose between 1 and" in shown(reply["blocks"])
