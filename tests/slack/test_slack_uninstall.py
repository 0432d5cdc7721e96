"""Slack's app_uninstalled and tokens_revoked: a removed workspace's names go, its dailies stop.

Decided: the answers stay. They hold no name (a player is a Slack user ID), and deleting them
would change reveal counts and other people's totals; a removed workspace's leaderboard, if it
ever came back, shows user IDs until names are learnt again. Another workspace in the same
database is untouched, and the process keeps serving.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from fake_slack import (
    CHANNEL,
    TEAM,
    FakeSlack,
    SlackHarness,
    open_harness,
    shown,
    signed_headers,
    slash_payload,
)

from bot.bank import Bank
from bot.clock import FakeClock

OTHER = "T0OTHER"


def event_body(event: dict[str, Any], team: str = TEAM) -> dict[str, Any]:
    return {
        "token": "unused",
        "team_id": team,
        "api_app_id": "A0ZEROQUIZ",
        "event": event,
        "type": "event_callback",
        "event_id": f"Ev{time.monotonic_ns()}",
        "event_time": int(time.time()),
    }


def signed_json(body: dict[str, Any]) -> tuple[str, dict[str, str]]:
    text = json.dumps(body)
    return text, signed_headers(text) | {"Content-Type": "application/json"}


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def names(db: Path) -> dict[tuple[str, str], str]:
    found = rows(
        db,
        "SELECT t.team, p.platform_user, p.display_name FROM players p"
        " JOIN teams t ON t.id = p.team_id",
    )
    return {(team, user): name for team, user, name in found}


def schedules(db: Path) -> dict[str, int]:
    found = rows(
        db,
        "SELECT t.team, s.active FROM schedules s JOIN channels c ON c.id = s.channel_id"
        " JOIN teams t ON t.id = c.team_id",
    )
    return dict(found)


async def in_team(
    slack: SlackHarness, team: str, text: str, user: str, channel: str = CHANNEL
) -> dict[str, Any]:
    """`/zeroquiz text` typed in `team`'s workspace (same app, same database)."""
    key = slack.fake.new_key()
    payload = slash_payload(text, user, slack.fake.response_url(key), channel) | {"team_id": team}
    assert await slack.post(urlencode(payload)) == 200
    return await slack.fake.reply(key)


async def answer_in(slack: SlackHarness, team: str, user: str) -> None:
    key = slack.fake.new_key()
    body = slack.click_body("A", user, key)
    body["team"]["id"] = team
    body["user"]["team_id"] = team
    assert await slack.post("payload=" + quote(json.dumps(body))) == 200
    await slack.fake.reply(key)


async def two_workspaces(slack: SlackHarness, fake: FakeSlack, db: Path) -> None:
    """In each workspace: a daily schedule, a question answered, the answerer's name stored."""
    for team, user in ((TEAM, "U1"), (OTHER, "U2")):
        assert "scheduled" in shown(
            (await in_team(slack, team, "daily 09:00 UTC", "UADMIN"))["blocks"]
        )
        # In a channel of its own: the daily question is open in the first (one per channel).
        await in_team(slack, team, "question", "UADMIN", channel="C0ASKED")
        await answer_in(slack, team, user)
    await fake.wait_until(
        lambda: (
            names(db).get((TEAM, "U1")) == "Ada Lovelace"
            and names(db).get((OTHER, "U2")) == "Alan Turing"
        ),
        "both names stored",
    )
    assert schedules(db) == {TEAM: 1, OTHER: 1}


async def test_app_uninstalled_over_http_clears_names_and_stops_dailies(
    slack: SlackHarness, fake: FakeSlack, db_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="adapters.slack.handlers")
    await two_workspaces(slack, fake, db_path)
    answers_before = rows(db_path, "SELECT COUNT(*) FROM answers")[0][0]
    assert answers_before == 2

    text, headers = signed_json(event_body({"type": "app_uninstalled"}))
    assert await slack.post(text, headers) == 200
    await fake.wait_until(lambda: schedules(db_path) == {TEAM: 0, OTHER: 1}, "TEAM's daily off")
    await fake.wait_until(lambda: names(db_path).get((TEAM, "U1")) == "", "TEAM's names gone")
    assert all(name == "" for (team, _), name in names(db_path).items() if team == TEAM)
    assert names(db_path)[(OTHER, "U2")] == "Alan Turing"  # the other workspace keeps its own
    assert rows(db_path, "SELECT COUNT(*) FROM answers")[0][0] == answers_before  # kept

    def uninstall_lines() -> list[str]:
        return [r.getMessage() for r in caplog.records if "app_uninstalled" in r.getMessage()]

    # The handler logs after its last write, which the polls above may see first.
    await fake.wait_until(lambda: bool(uninstall_lines()), "the uninstall's log line")
    assert uninstall_lines() == [
        f"slack: app_uninstalled in workspace {TEAM}: 1 stored names cleared, "
        "1 daily schedules stopped"
    ]
    # Still serving: the other workspace plays on; a repeat of the event changes nothing.
    # (In another channel: the first still has its question open, one per channel.)
    posted = await in_team(slack, OTHER, "question", "U2", channel="C0SECOND")
    assert "Question posted." in shown(posted["blocks"])
    assert await slack.post(*signed_json(event_body({"type": "app_uninstalled"}))) == 200
    assert schedules(db_path) == {TEAM: 0, OTHER: 1}


async def test_an_event_unsigned_malformed_or_not_ours_is_refused(
    slack: SlackHarness, db_path: Path
) -> None:
    text, headers = signed_json(event_body({"type": "app_uninstalled"}))
    assert await slack.post(text, headers | {"X-Slack-Signature": "v0=" + "0" * 64}) == 401
    assert await slack.post(*signed_json(event_body({"type": "app_uninstalled"}, team=""))) == 400
    assert await slack.post(*signed_json(event_body({"type": 7}))) == 400
    revoked = {"type": "tokens_revoked", "tokens": ["U1"]}
    assert await slack.post(*signed_json(event_body(revoked))) == 400
    assert await slack.post(*signed_json(event_body({"type": "app_mention"}))) == 404
    verify = json.dumps({"type": "url_verification", "challenge": "c-123", "token": "unused"})
    assert (
        await slack.post(verify, signed_headers(verify) | {"Content-Type": "application/json"})
        == 200
    )


async def test_tokens_revoked_over_socket_mode(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> None:
    socket = await open_harness(fake, db_path, clock, bank, socket=True)
    try:
        assert "scheduled" in shown((await socket.ask("daily 09:00 UTC", user="UADMIN"))["blocks"])
        await socket.ask("question", user="UADMIN")
        await fake.reply((await socket.click("A", user="U1"))[1])
        await fake.wait_until(lambda: names(db_path).get((TEAM, "U1")) == "Ada Lovelace", "name")
        # User tokens only: the bot keeps working, nothing is cleared.
        users_only = {"type": "tokens_revoked", "tokens": {"oauth": ["U1"]}}
        await fake.send_envelope("events_api", event_body(users_only))
        assert schedules(db_path) == {TEAM: 1}
        bot = {"type": "tokens_revoked", "tokens": {"oauth": [], "bot": ["UBOT"]}}
        await fake.send_envelope("events_api", event_body(bot))
        await fake.wait_until(lambda: schedules(db_path) == {TEAM: 0}, "the daily stopped")
        await fake.wait_until(lambda: names(db_path)[(TEAM, "U1")] == "", "the name cleared")
        assert rows(db_path, "SELECT COUNT(*) FROM answers")[0][0] == 1
    finally:
        await socket.close()
