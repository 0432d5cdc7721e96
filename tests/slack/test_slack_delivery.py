"""What reaches the channel when Slack refuses, messages vanish, or a run goes on by itself."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import yaml
from fake_slack import (
    CHANNEL,
    FakeSlack,
    SlackHarness,
    is_reveal,
    shown,
)

from adapters.slack.handlers import COMMAND
from adapters.slack.shapes import EVENTS
from adapters.slack.surface import EVENTS_PATH
from bot.clock import FakeClock
from bot.commands import REGISTRY

ROOT = Path(__file__).resolve().parents[2]


async def test_failed_reveal_is_logged_retried_and_keeps_the_answers(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    await slack.ask("question")
    ts, _ = slack.question()
    for user in ("U1", "U2"):
        await fake.reply((await slack.click("A", user=user))[1])
    await fake.wait_until(lambda: bool(fake.calls_to("chat.update")), "the live count")
    fake.errors["chat.update"] = ["fatal_error"]
    caplog.set_level(logging.WARNING)
    await clock.advance(10 * 60)
    await slack.runtime.scheduler.caught_up()
    assert not is_reveal(fake.messages[ts]["blocks"])  # Slack refused the edit
    assert f"chat.update to channel {CHANNEL} failed: fatal_error" in caplog.text
    await clock.advance(30)  # the core retries the reveal
    await slack.runtime.scheduler.caught_up()
    assert is_reveal(fake.messages[ts]["blocks"])
    assert "of 2 answered right" in shown(fake.messages[ts]["blocks"])


async def test_reveal_of_a_deleted_question_is_posted_anew(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    await slack.ask("question")
    ts, _ = slack.question()
    del fake.messages[ts]  # someone deleted the question
    await clock.advance(10 * 60)
    await slack.runtime.scheduler.caught_up()
    last = fake.calls_to("chat.postMessage")[-1]
    assert len(fake.calls_to("chat.postMessage")) == 2 and is_reveal(last.args["blocks"])


async def test_a_run_posts_each_question_then_the_standings(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    reply = await slack.ask("start 2")
    assert "A run of 2 questions has started." in shown(reply["blocks"])
    assert "Question 1/2" in shown(slack.question()[1]["blocks"])
    await fake.reply((await slack.click("A", user="U1"))[1])
    await clock.advance(10 * 60)
    await slack.runtime.scheduler.caught_up()
    assert "Question 2/2" in shown(slack.question()[1]["blocks"])
    await clock.advance(10 * 60)
    await slack.runtime.scheduler.caught_up()
    standings = shown(fake.calls_to("chat.postMessage")[-1].args["blocks"])
    assert "ZeroQuiz · Results of this run" in standings
    assert "Ada Lovelace" in standings or "Nobody scored" in standings
    assert "<@" not in standings


def test_manifest_matches_what_the_app_uses() -> None:
    manifest = yaml.safe_load((ROOT / "deploy" / "slack-manifest.yaml").read_text())
    [command] = manifest["features"]["slash_commands"]
    assert command["command"] == COMMAND
    assert manifest["settings"]["interactivity"]["is_enabled"] is True
    assert manifest["features"]["app_home"]["home_tab_enabled"] is True  # app_home_opened
    assert manifest["settings"]["socket_mode_enabled"] is True
    # chat.postMessage/chat.update need chat:write; users.info needs users:read; reading a
    # channel back after a crash (conversations.history) channels:history and groups:history;
    # a review reminder's direct message (conversations.open) im:write, reading it back im:history.
    assert set(manifest["oauth_config"]["scopes"]["bot"]) == {
        "commands",
        "chat:write",
        "chat:write.public",
        "users:read",
        "channels:history",
        "groups:history",
        "im:write",
        "im:history",
    }
    # The events the app registers listeners for, and nothing else; over HTTP they come to the
    # same /slack/events address as everything else, in Socket Mode over the socket.
    events = manifest["settings"]["event_subscriptions"]
    assert events["bot_events"] == list(EVENTS)
    assert "request_url" not in events  # Socket Mode, as written: commented out
    text = (ROOT / "deploy" / "slack-manifest.yaml").read_text()
    assert text.count(f"# request_url: https://quiz.example.com{EVENTS_PATH}") == 2
    # The usage hint names every command there is, in the order `help` lists them.
    hinted = [part.split()[0] for part in command["usage_hint"].split(" | ")]
    assert hinted == [spec.name for spec in REGISTRY]
    assert len(command["usage_hint"]) <= 1000
