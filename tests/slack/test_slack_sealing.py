"""Sealed bot tokens, on both backends: bound to their workspace, opened by any key of
ZEROQUIZ_TOKEN_KEY (newest first), checked at start-up, and sealed again with the newest key.

The real AsyncApp in multi-workspace HTTP mode against the fake Slack; the rows are written
through the Store, as a copy of one row into another (or an older release) would leave them.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from fake_slack import (
    CLIENT_SECRET,
    TOKEN_KEY,
    FakeSlack,
    install,
    oauth_env,
    open_oauth_harness,
    shown,
)
from pg_server import on_both_backends
from test_slack_oauth import CHANNELS, A, B, ask, posts_in

from adapters.exitcodes import EX_CONFIG
from adapters.runtime import ConfigError
from adapters.slack.config import load_config
from adapters.slack.sealing import Sealer
from bot.bank import Bank
from bot.clock import FakeClock
from bot.model import ChannelRef
from bot.ports import Refused
from bot.storage import Store
from bot.storage.installations import InstallationRecord
from bot.views import NoticeView

pytestmark = on_both_backends

NEW_KEY = "bmV3LWtleS1mb3Itcm90YXRpb24tdGVzdHMtMzJieXQ="


async def row_of(target: str, team: str) -> InstallationRecord:
    store = await Store.open(target)
    try:
        row = await store.installations.find(None, team)
    finally:
        await store.close()
    assert row is not None
    return row


async def test_a_sealed_token_copied_into_another_workspaces_row_is_refused(
    fake: FakeSlack,
    db_target: str,
    clock: FakeClock,
    bank: Bank,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fake.add_user("UA1", "Ada Alpha")
    h = await open_oauth_harness(fake, db_target, clock, bank)
    try:
        assert await install(h, A) == 200
        assert await install(h, B) == 200
        rows = h.runtime.store.installations
        b = await rows.find(None, B)
        assert b is not None
        # Someone with write access to the database moves B's sealed token into A's row.
        await rows.save(InstallationRecord(A, "", b.bot_token_sealed, "BX", "UBX", ""), clock.now())
        caplog.set_level(logging.INFO)
        reply = await ask(h, A, "question", "UA1")
        assert "reinstall" in shown(reply.get("blocks") or []) + str(reply.get("text"))
        assert posts_in(fake, CHANNELS[A]) == []  # nothing went to A with B's token
        assert any("sealed for another workspace" in r.getMessage() for r in caplog.records)
        port = h.surface.slack_port
        assert port is not None
        with pytest.raises(Refused):
            await port.post_notice(ChannelRef("slack", A, CHANNELS[A]), NoticeView("en", "hi"))
        assert posts_in(fake, CHANNELS[A]) == []
    finally:
        await h.close()


async def test_tokens_sealed_by_the_previous_format_still_open_and_are_sealed_again_bound(
    fake: FakeSlack, db_target: str, clock: FakeClock, bank: Bank
) -> None:
    fake.add_user("UA1", "Ada Alpha")
    fake.add_user("UB1", "Bob Bravo")
    fake.tokens["xoxb-legacy-a"] = A
    fake.tokens["xoxb-legacy-b"] = B
    legacy = Fernet(TOKEN_KEY.encode())
    store = await Store.open(db_target)  # as the previous release left them: bare Fernet tokens
    try:
        sealed = legacy.encrypt(b"xoxb-legacy-a").decode()
        await store.installations.save(
            InstallationRecord(A, "", sealed, "BA", "UBA", ""), clock.now()
        )
    finally:
        await store.close()
    h = await open_oauth_harness(fake, db_target, clock, bank)
    try:
        # Sealed again at start-up, bound to A, with the same token inside.
        assert (await row_of(db_target, A)).bot_token_sealed.startswith("zq2:")
        assert "Question posted." in shown((await ask(h, A, "question", "UA1"))["blocks"])
        assert posts_in(fake, CHANNELS[A]) == [A]
        # One written in the old format while running is opened, and sealed again on reading.
        sealed = legacy.encrypt(b"xoxb-legacy-b").decode()
        await h.runtime.store.installations.save(
            InstallationRecord(B, "", sealed, "BB", "UBB", ""), clock.now()
        )
        assert "Question posted." in shown((await ask(h, B, "question", "UB1"))["blocks"])
        assert posts_in(fake, CHANNELS[B]) == [B]
        assert (await row_of(db_target, B)).bot_token_sealed.startswith("zq2:")
    finally:
        await h.close()


async def test_a_wrong_key_stops_start_up_and_a_rotation_keeps_every_workspace(
    fake: FakeSlack, db_target: str, clock: FakeClock, bank: Bank
) -> None:
    fake.add_user("UA1", "Ada Alpha")
    h = await open_oauth_harness(fake, db_target, clock, bank)
    try:
        assert await install(h, A) == 200
    finally:
        await h.close()
    # Only a new key, not the one the tokens were sealed with: start-up stops, naming the
    # variable and never a key.
    with pytest.raises(ConfigError) as wrong:
        await open_oauth_harness(fake, db_target, clock, bank, key=NEW_KEY)
    message = str(wrong.value)
    assert "ZEROQUIZ_TOKEN_KEY" in message and "\n" not in message
    assert NEW_KEY not in message and TOKEN_KEY not in message
    # Rotation: the new key first, the old one after it. Everything opens, and is sealed again
    # with the new key at start-up ...
    h = await open_oauth_harness(fake, db_target, clock, bank, key=f"{NEW_KEY},{TOKEN_KEY}")
    try:
        assert "Question posted." in shown((await ask(h, A, "question", "UA1"))["blocks"])
    finally:
        await h.close()
    sealed = (await row_of(db_target, A)).bot_token_sealed
    assert Sealer.from_setting(NEW_KEY).open(A, sealed).stale is False
    # ... so the old key can go (the first question closed: one open per channel).
    h = await open_oauth_harness(fake, db_target, clock, bank, key=NEW_KEY)
    try:
        await h.runtime.quiz.close_latest(ChannelRef("slack", A, CHANNELS[A]))
        assert "Question posted." in shown((await ask(h, A, "question", "UA1"))["blocks"])
        assert posts_in(fake, CHANNELS[A]) == [A, A]
    finally:
        await h.close()


def test_each_key_of_a_rotation_is_checked_and_none_is_shown(fake: FakeSlack) -> None:
    env = oauth_env(fake)
    for bad, where in (
        (f"{NEW_KEY},not-a-key-secret", "entry 2 of 2"),
        (f"{NEW_KEY},,{TOKEN_KEY}", "an empty entry"),
        ("not-a-key-secret", "the key"),
    ):
        with pytest.raises(ConfigError, match="ZEROQUIZ_TOKEN_KEY is malformed") as error:
            load_config(env | {"ZEROQUIZ_TOKEN_KEY": bad})
        assert where in str(error.value)
        assert "not-a-key-secret" not in str(error.value) and NEW_KEY not in str(error.value)
    config = load_config(env | {"ZEROQUIZ_TOKEN_KEY": f" {NEW_KEY} , {TOKEN_KEY} "})
    assert config is not None and config.oauth is not None


async def test_serve_with_a_key_that_opens_no_stored_token_exits_78_with_one_line(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> None:
    h = await open_oauth_harness(fake, db_path, clock, bank)
    try:
        assert await install(h, A) == 200
    finally:
        await h.close()
    root = Path(__file__).resolve().parents[2]
    env = oauth_env(fake, key=NEW_KEY) | {"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "adapters.cli", "serve", "--db", str(db_path), "--port", "0",
        env=env, cwd=root, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await asyncio.wait_for(child.communicate(), 60)
    assert child.returncode == EX_CONFIG, err
    [line] = err.decode().strip().splitlines()
    assert "ZEROQUIZ_TOKEN_KEY" in line and "opens none" in line
    assert NEW_KEY not in line and TOKEN_KEY not in line and CLIENT_SECRET not in line
