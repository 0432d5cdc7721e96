"""What `zeroquiz serve` logs at start: its version, the bank, the schema upgrade as it goes, the
database (its password hidden), the surfaces; in JSON, times in ISO 8601; errors as one readable
line, not an object's repr.

A real `serve` child against the fake Discord, on a file an old release left (schema v2).
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from datetime import UTC, datetime
from pathlib import Path

from fake_discord import FakeDiscord
from serve_process import Serve, discord_env, discord_ready, start_serve

from adapters.exitcodes import EX_TEMPFAIL
from adapters.logs import brief
from bot.model import ChannelRef
from bot.storage import SCHEMA_VERSION

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from history import make_v2_history


def records(text: str) -> list[dict[str, str]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


async def test_start_up_says_version_bank_upgrade_database_and_surfaces_in_iso_json(
    fake_discord: FakeDiscord, tmp_path: Path, serves: list[Serve]
) -> None:
    db = tmp_path / "old.sqlite3"
    make_v2_history(db, answers=2000, players=50, seed=4, rounds=100)
    env = discord_env(fake_discord) | {"ZEROQUIZ_LOG_FORMAT": "json"}
    serve = await start_serve(serves, db, env)
    await discord_ready(fake_discord, serve, identifies=1)
    await fake_discord.close_gateway(4004)  # authentication failed: the surface is lost for good
    assert await asyncio.wait_for(serve.proc.wait(), 30) == EX_TEMPFAIL
    await asyncio.wait_for(serve.reader or asyncio.sleep(0), 30)
    logged = records(serve.text)
    messages = [r["message"] for r in logged]
    assert re.fullmatch(r"zeroquiz \S+ starting", messages[0]), messages
    assert any(re.fullmatch(r"bank: \d+ questions and \d+ templates from \d+ file\(s\)", m)
               for m in messages), messages  # fmt: skip
    upgrade = [
        m for m in messages if m.startswith(f"upgrading the schema from v2 to v{SCHEMA_VERSION}")
    ]
    steps = SCHEMA_VERSION - 2
    assert upgrade[-1].endswith(f": {steps}/{steps} (100%)"), upgrade
    assert len(upgrade) >= 2, upgrade  # seen moving, not only at the end
    kept = [m for m in messages if m.startswith("keeping the file as it was before the upgrade")]
    assert kept and kept[-1].endswith("(100%)")
    assert f"database: {db}" in messages
    assert "surfaces: discord" in messages
    order = [messages.index(upgrade[-1]), messages.index(f"database: {db}")]
    assert order == sorted(order)
    for record in logged:
        stamp = datetime.fromisoformat(record["time"])
        assert stamp.utcoffset() is not None and stamp.utcoffset() == UTC.utcoffset(None)
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", record["time"])
    ended = [m for m in messages if m.startswith("the Discord connection ended")]
    assert ended and "('" not in ended[0] and "<" not in ended[0], ended  # no repr of objects


def test_errors_and_channels_read_as_words_in_a_log_line() -> None:
    class PlatformError(Exception):
        pass

    dump = PlatformError("The request failed.\nThe server responded with: {'ok': False}")
    assert brief(dump) == "PlatformError: The request failed."
    assert brief(TimeoutError()) == "TimeoutError"
    assert len(brief(PlatformError("x" * 1000))) == 200
    assert str(ChannelRef("slack", "T1", "C1")) == "slack T1/C1"
