"""Socket Mode: the same app over a websocket to a local server, no public URL."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from fake_slack import (
    APP_TOKEN,
    FakeSlack,
    block_problems,
    open_harness,
    shown,
    slash_payload,
)

from bot.bank import Bank
from bot.clock import FakeClock


async def test_command_and_click_over_socket_mode(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> None:
    slack = await open_harness(fake, db_path, clock, bank, socket=True)
    try:
        assert slack.surface.url is None  # no HTTP server in Socket Mode
        assert len(fake.calls_to("apps.connections.open")) == 1
        ack = await fake.send_envelope(
            "slash_commands", slash_payload("question", "U1", fake.response_url("cmd"))
        )
        assert set(ack) <= {"envelope_id", "payload"}  # an empty ack: the reply comes privately
        reply = await fake.reply("cmd")
        assert reply["response_type"] == "ephemeral"
        assert "Question posted." in shown(reply["blocks"])
        [post] = fake.calls_to("chat.postMessage")
        assert block_problems(post.args["blocks"]) == []

        _, key = await slack.click("A", user="U2")
        answer = await fake.reply(key)
        assert answer["response_type"] == "ephemeral" and answer["replace_original"] is False
        assert "*Why:*" in shown(answer["blocks"])
        # The display name is learnt after the ack (users.info in the background): wait for it
        # to be stored, as a person would see it a moment later.
        await fake.wait_until(lambda: stored_name(db_path, "U2") == "Alan Turing", "U2's name")
        leaderboard = await slack.ask("leaderboard all", user="U2")
        assert "Alan Turing" in shown(leaderboard["blocks"])
    finally:
        await slack.close()
    assert fake.sockets[-1].closed  # stop() closed the websocket
    assert APP_TOKEN not in str(slack.surface.config)


def stored_name(db: Path, user: str) -> str:
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        row = conn.execute(
            "SELECT display_name FROM players WHERE platform_user = ?", (user,)
        ).fetchone()
    return str(row[0]) if row else ""
