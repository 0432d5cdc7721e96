"""A team's question packs from Slack, end to end over signed HTTP: `/zeroquiz pack add` opens a
modal, its `view_submission` stores a one-language pack, and the next `/zeroquiz question` in a
channel set to the team's packs posts one of its questions; another workspace in the same
process never sees it; a non-admin is refused; a broken pack is answered with its lines and
stores nothing; one question written in the second modal joins a pack."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from fake_slack import (
    TEAM,
    FakeSlack,
    SlackHarness,
    install,
    open_harness,
    open_oauth_harness,
    shown,
    slash_payload,
)

from bot.bank import Bank
from bot.clock import FakeClock
from bot.model import ChannelRef, TeamRef

ADMIN = "UADMIN"
PACK = """\
language: en
questions:
  - id: nodes
    prompt: "How many GPUs does one node of our cluster hold?"
    options:
      - "4"
      - text: "8"
        correct: true
    explanation: "Every node of our cluster has 8 GPUs."
"""


@pytest.fixture
async def admin_slack(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> AsyncIterator[SlackHarness]:
    harness = await open_harness(fake, db_path, clock, bank, admins=frozenset({ADMIN}))
    yield harness
    await harness.close()


async def open_modal(slack: SlackHarness, fake: FakeSlack, text: str) -> dict[str, Any]:
    before = len(fake.modals)
    await slack.command(text, user=ADMIN)
    await fake.wait_until(lambda: len(fake.modals) > before, "the modal to open")
    return fake.modals[-1]


async def reply_to(fake: FakeSlack, modal: dict[str, Any]) -> str:
    import json

    key = json.loads(modal["private_metadata"])["u"].rsplit("/", 1)[1]
    return shown((await fake.reply(key))["blocks"])


async def test_an_admin_pastes_a_pack_and_the_channel_asks_its_question(
    admin_slack: SlackHarness, fake: FakeSlack
) -> None:
    modal = await open_modal(admin_slack, fake, "pack add")
    assert modal["callback_id"] == "zeroquiz_pack_add"
    status, ack = await admin_slack.submit(modal, {"name": "our-cluster", "yaml": PACK}, ADMIN)
    assert status == 200 and ack == {}
    assert "Pack `our-cluster` saved as version 1" in await reply_to(fake, modal)
    assert "team" in shown((await admin_slack.ask("questions team", user=ADMIN))["blocks"])
    reply = await admin_slack.ask("question", user="U2")
    assert "Question posted." in shown(reply["blocks"])
    _, message = admin_slack.question()
    assert "How many GPUs does one node of our cluster hold?" in shown(message["blocks"])
    listed = shown((await admin_slack.ask("pack list", user=ADMIN))["blocks"])
    assert "our-cluster" in listed
    # Another workspace served by the same process: its channel, set to its own packs, draws
    # from the bundled bank; its pack list is empty.
    other = "T0OTHER"
    for text in ("questions team", "question"):
        key = fake.new_key()
        payload = slash_payload(text, ADMIN, fake.response_url(key), "C0OTHER") | {"team_id": other}
        assert await admin_slack.post(urlencode(payload)) == 200
        await fake.reply(key)
    _, theirs = admin_slack.question()
    assert "our cluster" not in shown(theirs["blocks"])
    store = admin_slack.runtime.store
    assert await store.packs.list(TeamRef("slack", other)) == []


async def test_a_non_admin_gets_no_form_and_a_submission_is_refused(
    admin_slack: SlackHarness, fake: FakeSlack
) -> None:
    reply = await admin_slack.ask("pack add", user="U2")
    assert "admins" in shown(reply["blocks"]).lower()
    assert fake.modals == []
    modal = await open_modal(admin_slack, fake, "pack add")
    status, _ = await admin_slack.submit(modal, {"name": "x", "yaml": PACK}, user="U2")
    assert status == 200
    assert "admins" in (await reply_to(fake, modal)).lower()
    assert await admin_slack.runtime.store.packs.list(TeamRef("slack", TEAM)) == []


async def test_a_broken_pack_is_answered_with_its_lines_and_stores_nothing(
    admin_slack: SlackHarness, fake: FakeSlack
) -> None:
    modal = await open_modal(admin_slack, fake, "pack add")
    broken = PACK.replace("correct: true", "correct: maybe")
    status, ack = await admin_slack.submit(modal, {"name": "ours", "yaml": broken}, ADMIN)
    assert status == 200
    assert ack["response_action"] == "errors"
    first = "pack.yaml:6: question 'nodes' has 0 options marked correct; exactly one must be"
    assert ack["errors"]["yaml"] == first
    text = await reply_to(fake, modal)
    assert "Pack not saved: 2 problem(s)" in text
    assert "pack.yaml:8: 'correct' must be true or false" in text
    assert "pack.yaml:6: question 'nodes' has 0 options marked correct" in text
    listed = shown((await admin_slack.ask("pack list", user=ADMIN))["blocks"])
    assert "no packs yet" in listed


async def test_one_question_written_in_the_form_joins_a_pack(
    admin_slack: SlackHarness, fake: FakeSlack
) -> None:
    modal = await open_modal(admin_slack, fake, "pack question")
    assert modal["callback_id"] == "zeroquiz_pack_question"
    values = {
        "pack": "from-chat",
        "prompt": "Which stage shards the parameters?",
        "options": "Stage 1\n*Stage 3",
        "explanation": "Only stage 3 shards the parameters.",
    }
    status, ack = await admin_slack.submit(modal, values, ADMIN)
    assert status == 200 and ack == {}
    assert "Pack `from-chat` saved as version 1: 1 question(s)" in await reply_to(fake, modal)
    exported = shown((await admin_slack.ask("pack export from-chat", user=ADMIN))["blocks"])
    assert "Which stage shards the parameters?" in exported and "```" in exported


async def test_a_garbage_submission_of_our_modal_is_a_400_and_changes_nothing(
    admin_slack: SlackHarness, fake: FakeSlack
) -> None:
    import json
    from urllib.parse import quote

    from fake_slack import signed_headers

    payload = {
        "type": "view_submission",
        "team": {"id": TEAM},
        "user": {"id": ADMIN, "team_id": TEAM},
        "view": {"callback_id": "zeroquiz_pack_add", "state": {"values": ["not", "a", "map"]}},
    }
    body = "payload=" + quote(json.dumps(payload))
    assert await admin_slack.post(body, signed_headers(body)) == 400
    assert await admin_slack.runtime.store.packs.list(TeamRef("slack", TEAM)) == []


async def test_two_installed_workspaces_keep_their_packs_apart(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> None:
    """Multi-workspace mode, two real installations (OAuth) in one process: workspace A's admin
    adds a pack; A's channel set to team packs asks it, B's never draws it and B lists none."""
    a, b = "T0ALPHA", "T0BRAVO"
    channels = {a: "C0ALPHA", b: "C0BRAVO"}
    slack = await open_oauth_harness(fake, db_path, clock, bank)
    try:
        assert await install(slack, a) == 200 and await install(slack, b) == 200

        async def ask(team: str, text: str) -> str:
            key = fake.new_key()
            payload = slash_payload(text, ADMIN, fake.response_url(key), channels[team])
            assert await slack.post(urlencode(payload | {"team_id": team})) == 200
            return shown((await fake.reply(key))["blocks"])

        key = fake.new_key()
        payload = slash_payload("pack add", ADMIN, fake.response_url(key), channels[a])
        assert await slack.post(urlencode(payload | {"team_id": a})) == 200
        await fake.wait_until(lambda: len(fake.modals) == 1, "the modal to open")
        assert [c.team for c in fake.calls_to("views.open")] == [a]  # with A's own token
        status, _ = await slack.submit(fake.modals[0], {"name": "ours", "yaml": PACK}, ADMIN, a)
        assert status == 200
        assert "Pack `ours` saved as version 1" in await reply_to(fake, fake.modals[0])
        for team in (a, b):
            assert "team" in await ask(team, "questions team")
            assert "Question posted." in await ask(team, "question")
        posted = {m["channel"]: shown(m["blocks"]) for m in fake.posted.values()}
        assert "How many GPUs does one node of our cluster hold?" in posted[channels[a]]
        assert "our cluster" not in posted[channels[b]]
        for team, expected in ((a, True), (b, False)):  # all a channel can draw, there
            drawn = await slack.runtime.quiz.library.for_channel_ref(
                ChannelRef("slack", team, channels[team])
            )
            assert any("our cluster" in q.prompt.en for q in drawn.questions) is expected
        assert "ours" in await ask(a, "pack list")
        assert "no packs yet" in await ask(b, "pack list")
        assert await slack.runtime.store.packs.list(TeamRef("slack", b)) == []
    finally:
        await slack.close()
