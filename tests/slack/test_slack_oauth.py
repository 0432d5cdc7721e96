"""Multi-workspace mode over HTTP: the real AsyncApp's OAuth flow against the fake Slack's
oauth.v2.access, workspaces side by side on one database, each with its own bot token."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest
import yaml
from fake_slack import (
    CLIENT_ID,
    CLIENT_SECRET,
    SECRET,
    FakeSlack,
    SlackHarness,
    begin_install,
    click_payload,
    finish_install,
    install,
    open_oauth_harness,
    shown,
    signed_headers,
    slash_payload,
)
from test_slack_home import home_opened

from adapters.exitcodes import EX_CONFIG
from adapters.runtime import ConfigError
from adapters.slack.config import load_config
from adapters.slack.shapes import EVENTS
from adapters.slack.surface import BOT_SCOPES, EVENTS_PATH, REDIRECT_PATH
from bot.bank import Bank
from bot.clock import FakeClock
from bot.model import ChannelRef
from bot.ports import Refused
from bot.views import NoticeView

A, B = "T0ALPHA", "T0BRAVO"
CHANNELS = {A: "C0ALPHA", B: "C0BRAVO"}


@pytest.fixture(name="oauth")
async def oauth_fixture(fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank) -> Any:
    fake.add_user("UA1", "Ada Alpha")
    fake.add_user("UB1", "Bob Bravo")
    harness = await open_oauth_harness(fake, db_path, clock, bank)
    yield harness
    await harness.close()


async def ask(h: SlackHarness, team: str, text: str, user: str) -> dict[str, Any]:
    key = h.fake.new_key()
    payload = slash_payload(text, user, h.fake.response_url(key), CHANNELS[team])
    payload["team_id"] = team
    assert await h.post(urlencode(payload)) == 200
    return await h.fake.reply(key)


def question_in(fake: FakeSlack, channel: str) -> tuple[str, dict[str, Any]]:
    for ts, message in reversed(fake.posted.items()):
        if message["channel"] == channel and any(b["type"] == "actions" for b in message["blocks"]):
            return ts, message
    raise AssertionError(f"no question in {channel}")


def round_id(message: dict[str, Any]) -> int:
    actions = next(b for b in message["blocks"] if b["type"] == "actions")
    return int(actions["elements"][0]["value"].split(":")[0])


async def click(
    h: SlackHarness, channel: str, letter: str, user: str, team: str
) -> tuple[int, str]:
    """Click `letter` on the latest question in `channel`, in a payload signed for `team`."""
    ts, message = question_in(h.fake, channel)
    actions = next(b for b in message["blocks"] if b["type"] == "actions")
    button = next(e for e in actions["elements"] if e["text"]["text"] == letter)
    key = h.fake.new_key()
    body = click_payload(ts, message, button, user, h.fake.response_url(key))
    body["team"]["id"] = body["user"]["team_id"] = team
    body["channel"]["id"] = body["container"]["channel_id"] = channel
    return await h.post("payload=" + quote(json.dumps(body))), key


def posts_in(fake: FakeSlack, channel: str) -> list[str]:
    """The workspace whose token posted each message in `channel`."""
    return [c.team for c in fake.calls_to("chat.postMessage") if c.args["channel"] == channel]


async def test_the_install_flow_stores_a_workspace_and_refuses_bad_or_reused_states(
    oauth: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    state, cookie = await begin_install(oauth)
    assert await finish_install(oauth, fake.approve(A), state, cookie) == 200
    assert fake.calls_to("oauth.v2.access")[-1].args["code"].startswith(f"code-{A}")
    assert await oauth.runtime.store.installations.find(None, A) is not None
    # The same state again (a replayed redirect): refused before any code is exchanged.
    replay = fake.approve(B)
    assert await finish_install(oauth, replay, state, cookie) >= 400
    assert replay in fake.codes  # never sent to oauth.v2.access
    # A state this app never issued, with a cookie to match it.
    forged = fake.approve(B)
    assert await finish_install(oauth, forged, "forged", "slack-app-oauth-state=forged") >= 400
    # A state that waited too long (over ten minutes).
    late, late_cookie = await begin_install(oauth)
    await clock.advance(11 * 60)
    assert await finish_install(oauth, fake.approve(B), late, late_cookie) >= 400
    assert forged in fake.codes
    assert await oauth.runtime.store.installations.find(None, B) is None


async def test_two_workspaces_post_with_their_own_tokens_and_keep_separate_scores(
    oauth: SlackHarness, fake: FakeSlack, bank: Bank
) -> None:
    assert await install(oauth, A) == 200
    assert await install(oauth, B) == 200
    for team, user in ((A, "UA1"), (B, "UB1")):
        reply = await ask(oauth, team, "question", user)
        assert "Question posted." in shown(reply["blocks"])
        status, key = await click(oauth, CHANNELS[team], "A", user, team)
        assert status == 200
        assert (await fake.reply(key))["response_type"] == "ephemeral"
    assert posts_in(fake, CHANNELS[A]) == [A] and posts_in(fake, CHANNELS[B]) == [B]
    board_a = shown((await ask(oauth, A, "leaderboard", "UA1"))["blocks"])
    board_b = shown((await ask(oauth, B, "leaderboard", "UB1"))["blocks"])
    assert "Ada Alpha" in board_a and "Bob Bravo" not in board_a
    assert "Bob Bravo" in board_b and "Ada Alpha" not in board_b
    # A schedule set in workspace A is A's alone.
    assert "scheduled" in shown((await ask(oauth, A, "daily 09:00 UTC", "UADMIN"))["blocks"])
    in_a = shown((await ask(oauth, A, "daily", "UADMIN"))["blocks"])
    assert "Daily question here at 09:00" in in_a
    assert "no daily question" in shown((await ask(oauth, B, "daily", "UADMIN"))["blocks"])


async def test_a_click_forged_with_another_workspaces_team_is_refused_and_changes_nothing(
    oauth: SlackHarness, fake: FakeSlack
) -> None:
    assert await install(oauth, A) == 200
    assert await install(oauth, B) == 200
    await ask(oauth, B, "question", "UB1")
    _, message = question_in(fake, CHANNELS[B])
    status, key = await click(oauth, CHANNELS[B], "A", "UA1", team=A)  # signed, but for A
    assert status == 200
    assert "no longer" in shown((await fake.reply(key))["blocks"]).lower()
    assert await oauth.runtime.store.rounds.total_answers(round_id(message)) == 0
    board = shown((await ask(oauth, A, "leaderboard", "UA1"))["blocks"])
    assert "Ada Alpha" not in board


async def test_uninstall_deletes_the_installation_and_the_other_workspace_keeps_working(
    oauth: SlackHarness, fake: FakeSlack
) -> None:
    assert await install(oauth, A) == 200
    assert await install(oauth, B) == 200
    await ask(oauth, A, "question", "UA1")  # A's token is now cached by the port
    body = json.dumps({
        "token": "unused", "team_id": A, "api_app_id": "A0ZEROQUIZ",
        "event": {"type": "app_uninstalled"}, "type": "event_callback",
        "event_id": f"Ev{time.monotonic_ns()}", "event_time": int(time.time()),
    })  # fmt: skip
    headers = signed_headers(body) | {"Content-Type": "application/json"}
    assert await oauth.post(body, headers) == 200
    store = oauth.runtime.store.installations
    deadline = time.monotonic() + 10
    while await store.find(None, A) is not None:
        assert time.monotonic() < deadline, "the installation was not deleted"
        await asyncio.sleep(0.01)
    assert await store.find(None, B) is not None
    assert "Question posted." in shown((await ask(oauth, B, "question", "UB1"))["blocks"])
    # The port forgot A's token too: nothing more reaches A, and Slack saw no call with it.
    port = oauth.surface.slack_port
    assert port is not None
    calls = len(fake.calls)
    with pytest.raises(Refused):
        await port.post_notice(ChannelRef("slack", A, CHANNELS[A]), NoticeView("en", "hi"))
    assert len(fake.calls) == calls


async def test_a_restart_keeps_the_installations_and_tokens_are_sealed_at_rest(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> None:
    fake.add_user("UA1", "Ada Alpha")
    first = await open_oauth_harness(fake, db_path, clock, bank)
    try:
        assert await install(first, A) == 200
    finally:
        await first.close()
    second = await open_oauth_harness(fake, db_path, clock, bank)
    try:
        assert "Question posted." in shown((await ask(second, A, "question", "UA1"))["blocks"])
        assert posts_in(fake, CHANNELS[A]) == [A]
    finally:
        await second.close()
    issued = [t for t, team in fake.tokens.items() if team == A]
    assert issued
    files = [p for p in db_path.parent.iterdir() if p.name.startswith(db_path.name)]
    raw = b"".join(p.read_bytes() for p in files)
    assert b"installations" in raw  # the right file was read
    for token in issued:
        assert token.encode() not in raw


def test_oauth_mode_needs_a_valid_token_key_and_never_shows_it() -> None:
    env = {
        "SLACK_CLIENT_ID": CLIENT_ID,
        "SLACK_CLIENT_SECRET": CLIENT_SECRET,
        "SLACK_SIGNING_SECRET": SECRET,
    }
    with pytest.raises(ConfigError, match="ZEROQUIZ_TOKEN_KEY is not set"):
        load_config(env)
    with pytest.raises(ConfigError, match="ZEROQUIZ_TOKEN_KEY is malformed") as bad:
        load_config(env | {"ZEROQUIZ_TOKEN_KEY": "not-a-fernet-key-secret"})
    assert "not-a-fernet-key-secret" not in str(bad.value)
    assert "\n" not in str(bad.value)


def test_the_distribution_manifest_matches_what_the_app_serves() -> None:
    root = Path(__file__).resolve().parents[2]
    manifest = yaml.safe_load((root / "deploy" / "slack-manifest-distributed.yaml").read_text())
    single = yaml.safe_load((root / "deploy" / "slack-manifest.yaml").read_text())
    settings = manifest["settings"]
    assert settings["socket_mode_enabled"] is False
    events_url = f"https://quiz.example.com{EVENTS_PATH}"
    assert settings["interactivity"]["request_url"] == events_url
    assert settings["event_subscriptions"]["request_url"] == events_url
    assert settings["event_subscriptions"]["bot_events"] == list(EVENTS)
    [command] = manifest["features"]["slash_commands"]
    assert command["url"] == events_url
    assert command["usage_hint"] == single["features"]["slash_commands"][0]["usage_hint"]
    oauth_config = manifest["oauth_config"]
    assert oauth_config["redirect_urls"] == [f"https://quiz.example.com{REDIRECT_PATH}"]
    assert oauth_config["scopes"]["bot"] == list(BOT_SCOPES)
    assert set(BOT_SCOPES) == set(single["oauth_config"]["scopes"]["bot"])


@pytest.mark.parametrize("key", [None, "not-a-fernet-key-secret"])
def test_serve_in_oauth_mode_without_a_good_key_exits_78_with_one_line(
    tmp_path: Path, key: str | None
) -> None:
    root = Path(__file__).resolve().parents[2]
    env = {
        "SLACK_CLIENT_ID": CLIENT_ID, "SLACK_CLIENT_SECRET": CLIENT_SECRET,
        "SLACK_SIGNING_SECRET": SECRET, "PYTHONPATH": str(root), "PATH": "/usr/bin:/bin",
        **({"ZEROQUIZ_TOKEN_KEY": key} if key else {}),
    }  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "adapters.cli", "serve", "--db", str(tmp_path / "x.sqlite3")],
        env=env, cwd=root, capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert done.returncode == EX_CONFIG, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert "ZEROQUIZ_TOKEN_KEY" in line and CLIENT_SECRET not in line
    assert key is None or key not in line


async def test_the_home_tab_is_published_with_the_workspaces_own_token(
    oauth: SlackHarness, fake: FakeSlack
) -> None:
    assert await install(oauth, A) == 200
    assert await install(oauth, B) == 200
    event = home_opened("UB1") | {"team_id": B}
    text = json.dumps(event)
    headers = signed_headers(text) | {"Content-Type": "application/json"}
    assert await oauth.post(text, headers) == 200
    await fake.wait_until(lambda: "UB1" in fake.homes, "the Home tab of UB1")
    assert [c.team for c in fake.calls_to("views.publish")] == [B]
