"""What a command costs in Slack calls beyond its work, in multi-workspace mode: the real AsyncApp
over signed HTTP against the fake Slack.

A workspace's authorisation (auth.test) is checked once per token and AUTH_TTL, not per request;
a person is looked up (users.info) once per NAME_TTL_SECONDS, an admin command once. The cache
never outlives a token: an uninstall, a re-installation or a token Slack revoked takes effect on
the next command.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from fake_slack import (
    FakeSlack,
    SlackHarness,
    install,
    open_oauth_harness,
    shown,
    signed_headers,
    slash_payload,
)
from test_slack_grid import gone
from test_slack_oauth import CHANNELS, A, B

from adapters.slack.authorize import AUTH_TTL
from adapters.slack.users import NAME_TTL_SECONDS
from bot.bank import Bank
from bot.clock import FakeClock

BOLT_REFUSES = "no longer available"  # Bolt's reply when it finds no valid installation


@pytest.fixture(name="oauth")
async def oauth_fixture(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> AsyncIterator[SlackHarness]:
    fake.add_user("UA1", "Ada Alpha")
    fake.add_user("UA2", "Alan Alpha")
    fake.add_user("UB1", "Bob Bravo")
    harness = await open_oauth_harness(fake, db_path, clock, bank)
    yield harness
    await harness.close()


async def ask(
    h: SlackHarness, team: str, text: str, user: str, channel: str = ""
) -> dict[str, Any]:
    """`/zeroquiz text` in `team` (in its usual channel, or `channel`): the private reply."""
    key = h.fake.new_key()
    payload = slash_payload(text, user, h.fake.response_url(key), channel or CHANNELS[team])
    assert await h.post(urlencode(payload | {"team_id": team})) == 200
    return await h.fake.reply(key)


def calls_since(fake: FakeSlack, start: int) -> Counter[str]:
    return Counter(call.method for call in fake.calls[start:])


def token_of(fake: FakeSlack, team: str) -> str:
    [token] = [token for token, owner in fake.tokens.items() if owner == team]
    return token


async def uninstall(h: SlackHarness, team: str) -> None:
    """Slack's app_uninstalled for `team`, signed, sent now; returns once it was acted on."""
    body = json.dumps({
        "token": "unused", "team_id": team, "api_app_id": "A0ZEROQUIZ",
        "event": {"type": "app_uninstalled"}, "type": "event_callback",
        "event_id": f"Ev{time.monotonic_ns()}", "event_time": int(time.time()),
    })  # fmt: skip
    assert await h.post(body, signed_headers(body) | {"Content-Type": "application/json"}) == 200
    await gone(h, team)


async def test_commands_after_the_first_cost_no_auth_test_and_no_lookup_until_the_caches_expire(
    oauth: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    assert await install(oauth, A) == 200
    assert await install(oauth, B) == 200
    start = len(fake.calls)
    await ask(oauth, A, "stats", "UA1")
    await ask(oauth, B, "stats", "UB1")
    assert calls_since(fake, start) == {"auth.test": 2, "users.info": 2}  # each workspace, once
    start = len(fake.calls)
    for _ in range(3):
        assert "Your ZeroQuiz stats" in shown((await ask(oauth, A, "stats", "UA1"))["blocks"])
    await ask(oauth, A, "stats", "UA2")  # someone new in a workspace checked already
    assert calls_since(fake, start) == {"users.info": 1}
    # The workspace's authorisation is checked again after AUTH_TTL, the name after its own.
    await clock.advance(AUTH_TTL.total_seconds())
    start = len(fake.calls)
    await ask(oauth, A, "stats", "UA1")
    assert calls_since(fake, start) == {"auth.test": 1}
    await clock.advance(NAME_TTL_SECONDS)
    start = len(fake.calls)
    await ask(oauth, A, "stats", "UA1")  # the name known is used, and a fresh one fetched
    await fake.wait_until(lambda: calls_since(fake, start)["users.info"] == 1, "a fresh lookup")
    await ask(oauth, A, "stats", "UA1")
    assert calls_since(fake, start) == {"auth.test": 1, "users.info": 1}


async def test_an_admin_command_looks_the_person_up_once(
    oauth: SlackHarness, fake: FakeSlack
) -> None:
    fake.add_user("UA9", "Grace Alpha", admin=True)
    assert await install(oauth, A) == 200
    await ask(oauth, A, "stats", "UA1")  # the workspace's authorisation is checked
    for _ in range(2):  # a fresh admin check each time, which also brings the name at first
        start = len(fake.calls)
        await ask(oauth, A, "window 45m", "UA9")
        assert calls_since(fake, start) == {"users.info": 1}
    fake.add_user("UA8", "Hedy Alpha", admin=True)
    start = len(fake.calls)
    key = fake.new_key()  # `pack add` opens a form (no reply): its admin check is the lookup
    payload = slash_payload("pack add", "UA8", fake.response_url(key), CHANNELS[A])
    assert await oauth.post(urlencode(payload | {"team_id": A})) == 200
    await fake.wait_until(lambda: bool(fake.modals), "the pack form")
    assert calls_since(fake, start) == {"users.info": 1, "views.open": 1}


async def test_an_uninstall_or_a_new_token_takes_effect_on_the_next_command(
    oauth: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    assert await install(oauth, A) == 200
    old = token_of(fake, A)
    assert "Question posted." in shown((await ask(oauth, A, "question", "UA1"))["blocks"])
    fake.revoke(old)
    await uninstall(oauth, A)
    start = len(fake.calls)
    assert BOLT_REFUSES in str(await ask(oauth, A, "stats", "UA1"))
    assert calls_since(fake, start) == {}  # refused for want of an installation: no call at all
    await clock.advance(60)
    assert await install(oauth, A) == 200
    new = token_of(fake, A)
    start = len(fake.calls)
    reply = await ask(oauth, A, "question", "UA1", "C0ALPHA2")
    assert "Question posted." in shown(reply["blocks"])
    # Bolt checked the new token first, and no call was made with the old (Slack names none).
    assert fake.calls[start].method == "auth.test"
    assert {c.team for c in fake.calls[start:]} == {A} and new in fake.tokens


async def test_a_token_revoked_unheard_of_is_checked_again_once_slack_rejects_it(
    oauth: SlackHarness, fake: FakeSlack
) -> None:
    """Slack revoked A's token, and no removal event came (yet): the installation is still
    stored. The cached authorisation lets a command through until a call with the token is
    rejected; from the next command on, the token is checked again and refused."""
    assert await install(oauth, A) == 200
    assert "Question posted." in shown((await ask(oauth, A, "question", "UA1"))["blocks"])
    fake.revoke(token_of(fake, A))
    reply = await ask(oauth, A, "question", "UA1", "C0ALPHA2")
    assert "token was rejected" in shown(reply["blocks"])
    start = len(fake.calls)
    assert BOLT_REFUSES in str(await ask(oauth, A, "stats", "UA1"))
    assert calls_since(fake, start) == {"auth.test": 1}
