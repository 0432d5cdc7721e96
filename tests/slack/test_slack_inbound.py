"""Bad input over HTTP: every request is signed like Slack's (unless the test is about the
signature), the real AsyncApp answers, and nothing may end in a 5xx or a traceback."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from fake_slack import (
    SECRET,
    FakeSlack,
    SlackHarness,
    open_harness,
    shown,
    signed_headers,
    slash_payload,
)
from hypothesis import strategies as st
from properties import (
    JSON_VALUES,
    ODD_STRINGS,
    assert_no_tracebacks,
    mutations,
    run_examples,
    tracebacks,
)

from bot.bank import Bank
from bot.clock import FakeClock

FORM = "application/x-www-form-urlencoded"
INVALID = "That button is no longer valid."


def interactive(payload: Any) -> str:
    return "payload=" + quote(json.dumps(payload))


def round_of(slack: SlackHarness) -> int:
    _, message = slack.question()
    actions = next(b for b in message["blocks"] if b["type"] == "actions")
    return int(actions["elements"][0]["value"].split(":")[0])


async def answers(slack: SlackHarness) -> int:
    view = await slack.runtime.quiz.rounds.question_view(round_of(slack))
    assert view is not None
    return view.answer_count


async def verdict_after(slack: SlackHarness, fake: FakeSlack, user: str) -> None:
    """The bot still works: a plain click on the open question gets its verdict."""
    status, key = await slack.click("A", user=user)
    assert status == 200
    text = shown((await fake.reply(key))["blocks"])
    assert "Correct!" in text or "Not quite" in text, text


async def idle(slack: SlackHarness, fake: FakeSlack) -> None:
    """Every acknowledged request's work (private replies) is done."""
    await fake.wait_until(lambda: slack.surface.inflight.count == 0, "the handlers to finish")


@pytest.fixture
async def asked(slack: SlackHarness) -> SlackHarness:
    """The HTTP app with a question open in the channel."""
    await slack.ask("question")
    return slack


def logged_since(caplog: pytest.LogCaptureFixture, before: int) -> list[str]:
    return [r.getMessage() for r in caplog.records[before:]]


NOT_OBJECTS = {  # each case with one app: a running app per case would cost seconds
    "payload not JSON": "payload=" + quote("SECRET-LOOKING TEXT"),
    "payload empty": "payload=",
    "payload null": "payload=null",
    "payload a list": "payload=" + quote("[1, 2]"),
    "payload a number": "payload=42",
    "payload a string": "payload=" + quote('"block_actions"'),
    "payload 100,000 deep": "payload=" + "[" * 100_000 + "]" * 100_000,
    "payload 100 deep": "payload=" + quote('{"a":' * 100 + "1" + "}" * 100),
    "payload a 5000-digit number": "payload=" + "9" * 5000,
    "JSON body not JSON": "{not json",
    "JSON body, actions a string": '{"type": "block_actions", "actions": "A"}',
}


async def test_a_payload_that_is_not_a_json_object_is_refused_with_400(
    asked: SlackHarness, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    for case, body in NOT_OBJECTS.items():
        before = len(caplog.records)
        assert await asked.post(body) == 400, case
        [line] = logged_since(caplog, before)
        assert line.startswith("slack: refused a malformed ") and line.endswith("answered 400")
        assert "SECRET" not in line  # the problem is named, the body is never logged
    assert_no_tracebacks(caplog)
    await verdict_after(asked, fake, "U2")


BAD_CLICKS: list[tuple[dict[str, Any], str]] = [
    ({"actions": None}, "actions is missing"),  # None: the key is dropped
    ({"actions": []}, "actions is not a non-empty list of objects"),
    ({"actions": [None]}, "actions is not a non-empty list of objects"),
    ({"actions": "zq_answer_A"}, "actions is not a list"),
    ({"user": "U1"}, "user.id is missing"),
    ({"user": {"id": 7}}, "user.id is missing"),
    ({"team": None, "user": {"id": "U1"}}, "no team ID"),
    ({"team": "T0TEAM"}, "team is not an object"),
    ({"response_url": None}, "response_url is missing"),
    ({"response_url": "file:///etc/passwd"}, "response_url is missing or not a URL"),
    ({"channel": []}, "channel is not an object"),
    ({"authorizations": "x"}, "authorizations is not a list of objects"),
    ({"enterprise": 5}, "enterprise is not an object"),
    ({"event": "x"}, "event is not an object"),
]
BAD_ACTIONS: list[dict[str, Any]] = [
    {"action_id": None},
    {"action_id": ["zq_answer_A"]},
    {"value": None},
    {"value": 7},
    {"value": {"round": 1}},
    {"value": "1:0" * 3000},  # longer than any button value Slack allows
]


async def test_a_click_missing_what_the_handler_needs_is_refused_with_400(
    asked: SlackHarness, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    for change, reason in BAD_CLICKS:
        payload = asked.click_body("A", "U1", "bad") | change
        if change.get("actions", 0) is None:
            del payload["actions"]
        before = len(caplog.records)
        assert await asked.post(interactive(payload)) == 400, reason
        [line] = logged_since(caplog, before)
        assert "malformed block_actions request" in line and reason in line, line
    for action in BAD_ACTIONS:
        payload = asked.click_body("A", "U1", "bad")
        payload["actions"][0] |= action
        assert await asked.post(interactive(payload)) == 400, action
    assert await answers(asked) == 0 and fake.replies["bad"] == []
    await verdict_after(asked, fake, "U1")
    assert_no_tracebacks(caplog)


ODD_VALUES = {
    "superscript two": "²:0",
    "superscript option": "{round}:²",
    "Arabic-Indic three": "٣:0",
    "5000-digit round": "9" * 5000 + ":0",
    "beyond int64": "9" * 19 + ":0",
    "huge option": "{round}:" + "1" * 40,
    "negative": "-1:0",
    "leading space": " {round}:0",
    "trailing newline": "{round}:0\n",
    "empty": "",
}


async def test_a_button_value_that_is_not_ours_gets_a_clear_private_reply(
    asked: SlackHarness, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    for case, value in ODD_VALUES.items():
        key = fake.new_key()
        payload = asked.click_body("A", "U1", key)
        payload["actions"][0]["value"] = value.replace("{round}", str(round_of(asked)))
        assert await asked.post(interactive(payload)) == 200, case
        reply = await fake.reply(key)
        assert reply["response_type"] == "ephemeral"
        assert shown(reply["blocks"]) == INVALID, case
    assert await answers(asked) == 0
    await verdict_after(asked, fake, "U1")  # nothing was recorded for U1 meanwhile
    assert_no_tracebacks(caplog)


async def test_the_invalid_button_reply_speaks_the_channels_language(
    slack: SlackHarness, fake: FakeSlack
) -> None:
    await slack.ask("lang id", user="UADMIN")
    await slack.ask("question")
    payload = slack.click_body("A", "U1", "odd")
    payload["actions"][0]["value"] = "²:0"
    assert await slack.post(interactive(payload)) == 200
    assert shown((await fake.reply("odd"))["blocks"]) == "Tombol itu sudah tidak berlaku."


async def test_a_slash_command_missing_a_field_is_refused_with_400(
    slack: SlackHarness, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    for missing in ("command", "user_id", "team_id", "channel_id", "response_url"):
        form = slash_payload("question", "U1", fake.response_url("cmd"))
        del form[missing]
        assert await slack.post(urlencode(form)) == 400, missing
    assert fake.calls_to("chat.postMessage") == [] and fake.replies["cmd"] == []
    assert_no_tracebacks(caplog)
    assert "Question posted." in shown((await slack.ask("question"))["blocks"])


async def test_a_slash_command_with_ill_typed_fields_is_refused_with_400(
    slack: SlackHarness, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    form = slash_payload("question", "U1", fake.response_url("cmd"))
    for change in ({"user_id": "U 1"}, {"response_url": "not a url"}, {"team_id": "T" * 65}):
        assert await slack.post(urlencode(form | change)) == 400
    as_json = json.dumps(form | {"user_id": ["U1"], "text": 5})  # a JSON body is read as JSON
    assert await slack.post(as_json) == 400
    assert fake.calls_to("chat.postMessage") == []
    assert_no_tracebacks(caplog)


async def test_another_command_or_action_is_answered_404_as_bolt_would(
    asked: SlackHarness, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    form = slash_payload("question", "U1", fake.response_url("cmd")) | {"command": "/other"}
    assert await asked.post(urlencode(form)) == 404
    payload = asked.click_body("A", "U1", "other")
    payload["actions"][0]["action_id"] = "something_else"
    assert await asked.post(interactive(payload)) == 404
    assert await asked.post(interactive({"type": "view_submission", "view": "x"})) == 404
    assert await answers(asked) == 0
    assert len(fake.calls_to("chat.postMessage")) == 1
    assert_no_tracebacks(caplog)


async def test_unsigned_or_badly_signed_bad_input_stays_401(
    asked: SlackHarness, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    body = "payload=null"
    now = str(int(time.time()))
    good = signed_headers(body)
    for headers in (
        {"Content-Type": FORM},  # no signature at all
        signed_headers(body, secret="0" * 32),
        signed_headers(body, timestamp=int(time.time()) - 600),
        good | {"X-Slack-Request-Timestamp": "soon"},
        good | {"X-Slack-Request-Timestamp": "9" * 5000},
        good | {"X-Slack-Request-Timestamp": now, "X-Slack-Signature": "v0=" + "é" * 64},
    ):
        assert await asked.post(body, headers) == 401, headers
    click = interactive(asked.click_body("A", "U1", "forged"))
    assert await asked.post(click, signed_headers(click, secret="1" * 32)) == 401
    assert await answers(asked) == 0
    assert_no_tracebacks(caplog)


async def test_a_body_that_is_not_utf8_is_refused_401_since_no_signature_can_hold(
    asked: SlackHarness, caplog: pytest.LogCaptureFixture
) -> None:
    """Slack signs UTF-8 text; slack_sdk's verifier reads the body as such. Even an HMAC made
    over these very bytes with the right secret is no signature it can check."""
    raw = b"payload=%7B%22type%22%3A%22block_actions%22%7D\xff\xfe"
    ts = str(int(time.time()))
    digest = hmac.new(SECRET.encode(), b"v0:" + ts.encode() + b":" + raw, hashlib.sha256)
    headers = {
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": "v0=" + digest.hexdigest(),
        "Content-Type": FORM,
    }
    assert asked.surface.url is not None
    async with asked.http.post(asked.surface.url, data=raw, headers=headers) as response:
        assert response.status == 401
    assert_no_tracebacks(caplog)


async def test_a_body_over_a_mebibyte_is_refused_while_being_read(
    slack: SlackHarness, caplog: pytest.LogCaptureFixture
) -> None:
    body = "payload=" + "x" * (1024 * 1024)
    assert await slack.post(body) == 413
    assert_no_tracebacks(caplog)


async def test_url_verification_and_ssl_check_still_work(slack: SlackHarness) -> None:
    body = json.dumps({"token": "t", "challenge": "c-123", "type": "url_verification"})
    headers = signed_headers(body) | {"Content-Type": "application/json"}
    assert slack.surface.url is not None
    async with slack.http.post(slack.surface.url, data=body, headers=headers) as response:
        assert response.status == 200
        assert await response.json() == {"challenge": "c-123"}
    assert await slack.post("ssl_check=1&token=t") == 200
    assert await slack.post("ssl_check=1&token=t", {"Content-Type": FORM}) == 200  # as Bolt does
    bad = json.dumps({"type": "url_verification", "challenge": ["c"]})
    assert await slack.post(bad, signed_headers(bad) | {"Content-Type": "application/json"}) == 400


async def test_a_name_no_database_can_store_does_not_lose_the_answer(
    asked: SlackHarness, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    """JSON's "\\ud800" decodes to a lone surrogate, which SQLite refuses: and the answers of
    everyone in the same group commit with it."""
    payload = asked.click_body("A", "UNEW", "surrogate")
    payload["user"]["username"] = "\ud800"
    assert await asked.post(interactive(payload)) == 200
    text = shown((await fake.reply("surrogate"))["blocks"])
    assert "Correct!" in text or "Not quite" in text
    assert_no_tracebacks(caplog)


async def test_socket_mode_acknowledges_a_malformed_click_and_acts_on_nothing(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank, caplog: pytest.LogCaptureFixture
) -> None:
    """Socket Mode bodies skip the HTTP front door: Bolt's own routing would fail on these."""
    slack = await open_harness(fake, db_path, clock, bank, socket=True)
    try:
        await slack.ask("question")
        changes: list[dict[str, Any]] = [
            {"actions": []},
            {"actions": [None]},
            {"actions": "zq_answer_A"},
            {"actions": [{"action_id": ["zq_answer_A"], "value": "1:0"}]},
            {"user": None},
            {"response_url": 5},
        ]
        for change in changes:
            payload = slack.click_body("A", "U1", "bad") | change
            await fake.send_envelope("interactive", payload)  # waits for the acknowledgement
        lines = [r.getMessage() for r in caplog.records]
        assert len(lines) == len(changes)
        assert all(line.startswith("slack: refused a malformed block_actions") for line in lines)
        odd = slack.click_body("A", "U1", "odd")
        odd["actions"][0]["value"] = "²:0"
        await fake.send_envelope("interactive", odd)
        assert shown((await fake.reply("odd"))["blocks"]) == INVALID
        assert await answers(slack) == 0 and fake.replies["bad"] == []
        caplog.clear()
        # Fields Bolt reads while building its request, before any middleware can look.
        for change in ({"authorizations": "x"}, {"enterprise": 5}):
            await fake.send_envelope("interactive", slack.click_body("A", "U1", "bad") | change)
        assert_no_tracebacks(caplog)
        assert [r.getMessage().startswith("slack: refused a") for r in caplog.records] == [True] * 2
        assert await answers(slack) == 0 and fake.replies["bad"] == []
        await verdict_after(slack, fake, "U1")
        assert_no_tracebacks(caplog)
    finally:
        await slack.close()


# -- properties ---------------------------------------------------------------------------------
async def test_random_signed_bodies_never_get_a_5xx_or_a_traceback(
    asked: SlackHarness, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    click = asked.click_body("A", "UFUZZ", "fuzz")
    command = slash_payload("help", "U1", fake.response_url("fuzz-command"))
    odd_value = st.builds(
        lambda value: click | {"actions": [click["actions"][0] | {"value": value}]}, ODD_STRINGS
    )
    bodies = st.one_of(
        JSON_VALUES.map(interactive),  # a payload of any JSON shape
        mutations(click, ODD_STRINGS).map(interactive),  # a real click, damaged
        odd_value.map(interactive),
        mutations(command, st.text(max_size=20)).map(lambda form: urlencode(form)),
        st.text(max_size=200),  # any text at all, signed
    )

    async def check(body: str) -> None:
        before = len(caplog.records)
        status = await asked.post(body)
        assert status < 500, status
        assert tracebacks(caplog.records[before:]) == []

    await run_examples(bodies, check, max_examples=150)
    await verdict_after(asked, fake, "UAFTER")
    await idle(asked, fake)
    assert_no_tracebacks(caplog)
