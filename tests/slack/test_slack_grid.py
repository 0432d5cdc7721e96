"""Multi-workspace mode in an Enterprise Grid world, on both backends: the real AsyncApp over
signed HTTP against the fake Slack.

Each request acts on the workspace Bolt authorised; an org-wide install is refused with a page;
a workspace installed before it joined a Grid keeps working; removal events older than the
installation, or seen before, change nothing; a token Slack rejects is read again from the
database (where another replica stored a re-installation's); ZEROQUIZ_SLACK_ADMINS entries are
scoped to their workspace.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from fake_slack import (
    FakeSlack,
    SlackHarness,
    begin_install,
    install,
    open_harness,
    open_oauth_harness,
    shown,
    slash_payload,
)
from fake_slack import signed_headers as sign
from pg_server import on_both_backends
from test_slack_home import home_opened
from test_slack_oauth import CHANNELS, A, B, ask, posts_in

from bot.bank import Bank
from bot.clock import FakeClock

pytestmark = on_both_backends

GRID = "E0GRID"


@pytest.fixture(name="grid")
async def grid_fixture(
    fake: FakeSlack, db_target: str, clock: FakeClock, bank: Bank
) -> AsyncIterator[SlackHarness]:
    fake.add_user("UA1", "Ada Alpha")
    fake.add_user("UB1", "Bob Bravo")
    harness = await open_oauth_harness(fake, db_target, clock, bank)
    yield harness
    await harness.close()


def removal(
    team: str, sent: datetime, *, event_id: str | None = None, **extra: Any
) -> tuple[str, dict[str, str]]:
    """A signed app_uninstalled event for `team`, sent by Slack at `sent`."""
    body = {
        "token": "unused", "team_id": team, "api_app_id": "A0ZEROQUIZ",
        "event": {"type": "app_uninstalled"}, "type": "event_callback",
        "event_id": event_id or f"Ev{time.monotonic_ns()}", "event_time": int(sent.timestamp()),
        **extra,
    }  # fmt: skip
    text = json.dumps(body)
    return text, sign(text) | {"Content-Type": "application/json"}


async def logged(caplog: pytest.LogCaptureFixture, words: str) -> None:
    """Wait (bounded) for a log line: the only trace a removal that changes nothing leaves."""
    deadline = time.monotonic() + 10
    while not any(words in r.getMessage() for r in caplog.records):
        assert time.monotonic() < deadline, f"no log line with {words!r}"
        await asyncio.sleep(0.01)


async def gone(h: SlackHarness, team: str) -> None:
    deadline = time.monotonic() + 10
    while await h.runtime.store.installations.find(None, team) is not None:
        assert time.monotonic() < deadline, f"the installation of {team} was not deleted"
        await asyncio.sleep(0.01)


async def test_an_event_acts_on_the_workspace_bolt_authorised_not_the_bodys_team_id(
    grid: SlackHarness,
) -> None:
    """Bolt authorises an event by `authorizations[0]`; a body whose team_id names another
    workspace must not reach that other workspace's installation."""
    assert await install(grid, A) == 200
    assert await install(grid, B) == 200
    authorizations = [
        {"enterprise_id": None, "team_id": A, "user_id": f"UBOT{A}", "is_bot": True,
         "is_enterprise_install": False}
    ]  # fmt: skip
    text, headers = removal(B, grid.runtime.clock.now(), authorizations=authorizations)
    assert await grid.post(text, headers) == 200
    await gone(grid, A)
    assert await grid.runtime.store.installations.find(None, B) is not None
    assert "Question posted." in shown((await ask(grid, B, "question", "UB1"))["blocks"])


async def test_an_org_wide_install_is_refused_with_a_page_and_uninstalled_again(
    grid: SlackHarness, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    state, cookie = await begin_install(grid)
    assert grid.surface.base_url is not None
    async with grid.http.get(
        grid.surface.base_url + "/slack/oauth_redirect",
        params={"code": fake.approve_org(GRID), "state": state},
        headers={"Cookie": cookie},
    ) as response:
        page = await response.text()
        assert response.status == 400
    assert "ZeroQuiz was not installed" in page and "one workspace at a time" in page
    assert await grid.runtime.store.installations.every() == []
    # The org's token was handed back: Slack no longer lists the app in the org.
    [uninstall] = fake.calls_to("apps.uninstall")
    assert uninstall.team == GRID and not any(t == GRID for t in fake.tokens.values())
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


async def test_a_workspace_that_joined_a_grid_after_installing_keeps_working(
    grid: SlackHarness, fake: FakeSlack, caplog: pytest.LogCaptureFixture
) -> None:
    assert await install(grid, A) == 200  # a standalone workspace: no enterprise then
    caplog.set_level(logging.INFO)
    key = fake.new_key()
    payload = {
        "token": "unused", "team_id": A, "team_domain": "alpha", "enterprise_id": GRID,
        "enterprise_name": "Grid", "is_enterprise_install": "false", "channel_id": CHANNELS[A],
        "channel_name": "quiz", "user_id": "UA1", "user_name": "ada", "command": "/zeroquiz",
        "text": "question", "api_app_id": "A0ZEROQUIZ", "response_url": fake.response_url(key),
        "trigger_id": "1.2.3",
    }  # fmt: skip
    assert await grid.post(urlencode(payload)) == 200
    assert "Question posted." in shown((await fake.reply(key))["blocks"])
    assert posts_in(fake, CHANNELS[A]) == [A]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_late_removal_event_leaves_the_newer_installation_and_repeats_are_ignored(
    grid: SlackHarness, fake: FakeSlack, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    store = grid.runtime.store.installations
    uninstalled_at = clock.now()
    await clock.advance(60)
    assert await install(grid, A) == 200  # installed again a minute after it was removed
    # Slack's retry of the removal from before the re-install arrives late.
    text, headers = removal(A, uninstalled_at, event_id="EvOLD")
    assert await grid.post(text, headers | {"X-Slack-Retry-Num": "1"}) == 200
    await logged(caplog, "older than its installation")
    assert await store.find(None, A) is not None
    assert "Question posted." in shown((await ask(grid, A, "question", "UA1"))["blocks"])
    # A removal sent now is acted on once ...
    text, headers = removal(A, clock.now() + timedelta(seconds=5), event_id="EvNOW")
    assert await grid.post(text, headers) == 200
    await gone(grid, A)
    await clock.advance(60)
    assert await install(grid, A) == 200
    # ... and its repeat (same event_id) does not remove the installation made since.
    text, headers = removal(A, clock.now() + timedelta(seconds=5), event_id="EvNOW")
    assert await grid.post(text, headers | {"X-Slack-Retry-Num": "2"}) == 200
    await logged(caplog, "EvNOW of T0ALPHA was handled before")
    assert await store.find(None, A) is not None


async def test_a_second_replica_drops_the_revoked_token_and_reads_the_new_one(
    grid: SlackHarness, fake: FakeSlack, db_target: str, clock: FakeClock, bank: Bank
) -> None:
    """Two apps on one database: workspace A uninstalls and installs again through the first;
    the second still holds A's old token, is told by Slack it is revoked, and reads the new one.
    """
    other = await open_oauth_harness(fake, db_target, clock, bank)
    try:
        assert await install(grid, A) == 200
        [old] = [t for t, team in fake.tokens.items() if team == A]
        assert "Question posted." in shown((await ask(other, A, "question", "UA1"))["blocks"])
        fake.revoke(old)  # the workspace removed the app: Slack revokes its token ...
        text, headers = removal(A, clock.now() + timedelta(seconds=5))
        assert await grid.post(text, headers) == 200
        await gone(grid, A)
        await clock.advance(60)
        assert await install(grid, A) == 200  # ... and installs it again, through `grid`
        [new] = [t for t, team in fake.tokens.items() if team == A]
        # Someone opens the Home tab through `other`: its lookups and views.publish get there.
        text = json.dumps(home_opened("UA1") | {"team_id": A})
        assert await other.post(text, sign(text) | {"Content-Type": "application/json"}) == 200
        await fake.wait_until(lambda: "UA1" in fake.homes, "the Home tab of UA1")
        assert [c.team for c in fake.calls_to("views.publish")] == [A]
        # A question in another channel of A, posted by `other`, which held `old`.
        key = fake.new_key()
        payload = slash_payload("question", "UA1", fake.response_url(key), "C0ALPHA2")
        assert await other.post(urlencode(payload | {"team_id": A})) == 200
        assert "Question posted." in shown((await fake.reply(key))["blocks"])
        assert posts_in(fake, "C0ALPHA2") == [A]  # made with `new`, read from the database
        assert new in fake.tokens and old not in fake.tokens
    finally:
        await other.close()


async def test_scoped_admins_are_admins_in_their_own_workspace_only(
    fake: FakeSlack, db_target: str, clock: FakeClock, bank: Bank
) -> None:
    fake.add_user("UA1", "Ada Alpha")
    harness = await open_oauth_harness(
        fake, db_target, clock, bank, env={"ZEROQUIZ_SLACK_ADMINS": f"{A}:UA1"}
    )
    try:
        assert await install(harness, A) == 200
        assert await install(harness, B) == 200
        in_a = shown((await ask(harness, A, "daily 09:00 UTC", "UA1"))["blocks"])
        assert "scheduled" in in_a
        in_b = shown((await ask(harness, B, "daily 09:00 UTC", "UA1"))["blocks"])
        assert "Only admins can do that." in in_b
    finally:
        await harness.close()


async def test_a_scoped_admin_in_single_workspace_mode_is_admin_only_in_that_workspace(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> None:
    slack = await open_harness(fake, db_path, clock, bank, admins=frozenset({"T0OTHER:U2"}))
    try:
        assert "Only admins" in shown((await slack.ask("lang id", user="U2"))["blocks"])
        key = fake.new_key()
        payload = slash_payload("lang id", "U2", fake.response_url(key), "C0OTHER")
        assert await slack.post(urlencode(payload | {"team_id": "T0OTHER"})) == 200
        assert "Bahasa Indonesia" in shown((await fake.reply(key))["blocks"])
    finally:
        await slack.close()
