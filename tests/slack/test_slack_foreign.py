"""Signed requests in shapes Slack sends every app, which aren't ZeroQuiz's: `app_rate_limited`,
an organisation-level event without a team_id, a click on an element without a value, a click
in another app's Home tab. Each gets HTTP 200 and one log line (not "malformed", not 404), and
changes nothing; the bot keeps answering."""

from __future__ import annotations

import json
import logging
import time
from typing import Any
from urllib.parse import quote

import pytest
from fake_slack import TEAM, FakeSlack, SlackHarness, shown, signed_headers
from properties import assert_no_tracebacks


def signed_json(body: dict[str, Any]) -> tuple[str, dict[str, str]]:
    text = json.dumps(body)
    return text, signed_headers(text) | {"Content-Type": "application/json"}


def interactive(payload: Any) -> str:
    return "payload=" + quote(json.dumps(payload))


def lines(caplog: pytest.LogCaptureFixture, before: int) -> list[str]:
    return [r.getMessage() for r in caplog.records[before:] if r.name.startswith("adapters")]


async def still_playing(slack: SlackHarness, fake: FakeSlack) -> None:
    status, key = await slack.click("A", user="U2")
    assert status == 200
    text = shown((await fake.reply(key))["blocks"])
    assert "Correct!" in text or "Not quite" in text, text


async def test_app_rate_limited_gets_200_and_a_warning(
    slack: SlackHarness, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="adapters")
    await slack.ask("question")
    body = {  # as Slack's Events API documents it; sent without any subscription
        "token": "unused",
        "type": "app_rate_limited",
        "team_id": TEAM,
        "minute_rate_limited": 1518467820,
        "api_app_id": "A0ZEROQUIZ",
    }
    before = len(caplog.records)
    assert await slack.post(*signed_json(body)) == 200
    [line] = lines(caplog, before)
    assert "app_rate_limited" in line and TEAM in line and "minute 1518467820" in line, line
    warned = [r for r in caplog.records[before:] if r.levelno == logging.WARNING]
    assert len(warned) == 1
    await still_playing(slack, fake)
    assert_no_tracebacks(caplog)


async def test_an_org_level_event_without_team_id_is_answered_200_quietly(
    slack: SlackHarness, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="adapters")
    body = {  # an Enterprise Grid org-wide event: the organisation, no workspace
        "token": "unused",
        "enterprise_id": "E0ORG",
        "api_app_id": "A0ZEROQUIZ",
        "event": {"type": "user_change", "user": {"id": "U1", "team_id": "T0OTHER"}},
        "type": "event_callback",
        "event_id": f"Ev{time.monotonic_ns()}",
        "event_time": int(time.time()),
        "authorizations": [
            {"enterprise_id": "E0ORG", "team_id": None, "user_id": "UBOT", "is_bot": True}
        ],
        "is_ext_shared_channel": False,
    }
    for shape in (body, body | {"team_id": None}):
        before = len(caplog.records)
        assert await slack.post(*signed_json(shape)) == 200
        [line] = lines(caplog, before)
        assert "not ZeroQuiz's" in line and "without a team_id" in line, line
        assert all(r.levelno < logging.WARNING for r in caplog.records[before:])
    assert fake.calls_to("chat.postMessage") == []
    assert_no_tracebacks(caplog)


async def test_clicks_on_elements_zeroquiz_never_draws_are_answered_200_quietly(
    slack: SlackHarness, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="adapters")
    await slack.ask("question")
    link = slack.click_body("A", "U1", "link")  # a link button in a message: no value
    link["actions"][0] = {
        "type": "button", "action_id": "open_docs", "block_id": "b1",
        "text": {"type": "plain_text", "text": "Docs"}, "url": "https://example.com",
        "action_ts": f"{time.time():.6f}",
    }  # fmt: skip
    select = slack.click_body("A", "U1", "select")  # a select menu: selected_option, no value
    select["actions"][0] = {
        "type": "static_select", "action_id": "pick", "block_id": "b2",
        "selected_option": {"text": {"type": "plain_text", "text": "x"}, "value": "x"},
        "action_ts": f"{time.time():.6f}",
    }  # fmt: skip
    home: dict[str, Any] = {  # another app's Home tab: a view, no response_url, no channel
        "type": "block_actions",
        "team": {"id": TEAM, "domain": "zq"},
        "user": {"id": "U1", "username": "u1", "team_id": TEAM},
        "api_app_id": "A0OTHERAPP",
        "container": {"type": "view", "view_id": "V0HOME"},
        "trigger_id": "1.2.3",
        "view": {"id": "V0HOME", "type": "home", "app_id": "A0OTHERAPP", "blocks": []},
        "actions": [
            {"type": "button", "action_id": "refresh", "block_id": "b3", "value": "r",
             "action_ts": f"{time.time():.6f}"}
        ],
    }  # fmt: skip
    for payload in (link, select, home):
        before = len(caplog.records)
        assert await slack.post(interactive(payload)) == 200, payload
        [line] = lines(caplog, before)
        assert "not ZeroQuiz's" in line and "answered 200" in line, line
        assert all(r.levelno < logging.WARNING for r in caplog.records[before:])
    await fake.wait_until(lambda: slack.surface.inflight.count == 0, "the handlers to finish")
    assert fake.replies["link"] == [] and fake.replies["select"] == []
    await still_playing(slack, fake)
    assert_no_tracebacks(caplog)
