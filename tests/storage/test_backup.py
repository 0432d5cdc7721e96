"""`zeroquiz backup` during a burst of answers, `zeroquiz restore`, and the pre-migration backup.

The backup is a real child process taken while this process keeps recording answers through a
real Store and Quiz; every answer acknowledged before the child started must be in what the
backup restores to. On both backends (a PostgreSQL database is backed up into a SQLite file).
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import peek, player
from pg_server import on_both_backends
from test_database_faults import ZEROQUIZ, env_for

from bot.model import ChannelRef
from bot.quiz import Quiz
from bot.storage import SCHEMA_VERSION, Store

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from history import make_v2_history

CHANNEL = ChannelRef("test", "T1", "C1")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ZEROQUIZ), *args], capture_output=True, text=True, env=env_for(None), timeout=120
    )


def answered_users(path: Path) -> set[str]:
    rows = peek(path, "SELECT p.platform_user FROM answers a JOIN players p ON p.id = a.player_id")
    return {str(r[0]) for r in rows}


@on_both_backends
async def test_a_backup_during_a_burst_restores_every_acknowledged_answer(
    db: Store, db_target: str, make_quiz: Callable[..., Quiz], tmp_path: Path
) -> None:
    quiz = make_quiz(db)
    acknowledged: list[str] = []
    views = [await quiz.rounds.start_round(ChannelRef("test", "T1", f"C{n}")) for n in range(4)]
    rounds = [v.round_id for v in views if v is not None]

    async def click(n: int) -> None:
        outcome = await quiz.rounds.answer(rounds[n % len(rounds)], player(n), n % 4)
        assert outcome.recorded
        acknowledged.append(f"U{n}")

    first = [asyncio.create_task(click(n)) for n in range(150)]
    await asyncio.gather(*first)
    before = set(acknowledged)  # all acknowledged before the backup begins
    backup = tmp_path / "backup.sqlite3"
    child = await asyncio.create_subprocess_exec(
        str(ZEROQUIZ), "backup", "--db", db_target, str(backup),
        env=env_for(None), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    more = [asyncio.create_task(click(n)) for n in range(150, 400)]
    out, err = await asyncio.wait_for(child.communicate(), 120)
    await asyncio.gather(*more)
    assert child.returncode == 0, err.decode()
    assert "backed up into" in out.decode()
    assert not backup.with_name(backup.name + "-wal").exists()  # one self-contained file

    restored = tmp_path / "restored.sqlite3"
    result = run("restore", str(backup), str(restored))
    assert result.returncode == 0, result.stderr
    got = answered_users(restored)
    assert before <= got, sorted(before - got)[:5]
    assert got <= set(acknowledged)  # nothing made up
    reopened = await Store.open(restored)
    try:
        assert (await reopened.counts())["answers"] == len(got)
    finally:
        await reopened.close()


async def test_restore_refuses_data_unless_replace_and_a_file_a_bot_has_open(
    tmp_path: Path, make_quiz: Callable[..., Quiz]
) -> None:
    live = tmp_path / "live.sqlite3"
    store = await Store.open(live)
    quiz = make_quiz(store)
    view = await quiz.rounds.start_round(CHANNEL)
    assert view is not None
    await quiz.rounds.answer(view.round_id, player(1), 0)
    backup = tmp_path / "b.sqlite3"
    assert run("backup", "--db", str(live), str(backup)).returncode == 0
    # The live file is open in this process: a restore over it is refused, the file kept.
    refused = run("restore", str(backup), str(live), "--replace")
    assert refused.returncode == 1 and "is the bot running?" in refused.stderr
    assert answered_users(live) == {"U1"}
    await quiz.rounds.answer(view.round_id, player(2), 0)
    await store.close()
    no_replace = run("restore", str(backup), str(live))
    assert no_replace.returncode == 1 and "--replace" in no_replace.stderr
    assert answered_users(live) == {"U1", "U2"}
    replaced = run("restore", str(backup), str(live), "--replace")
    assert replaced.returncode == 0, replaced.stderr
    assert answered_users(live) == {"U1"}  # back to the backup's state


def test_an_upgrade_leaves_the_file_as_it_was_beside_it_and_keeps_three(tmp_path: Path) -> None:
    db = tmp_path / "zeroquiz.sqlite3"
    make_v2_history(db, answers=300, players=20, seed=3, rounds=40)
    original = sqlite3.connect(db).execute("SELECT COUNT(*) FROM answers").fetchone()
    manual = run("backup", "--db", str(db), str(tmp_path / "manual.bak"))  # only reads the file
    assert manual.returncode == 0, manual.stderr
    assert not list(tmp_path.glob("*.pre-v*"))
    for old in (2, 3, 4):  # older pre-migration backups from earlier upgrades
        shutil.copy(db, tmp_path / f"zeroquiz.sqlite3.pre-v{old}.bak")
    asyncio.run(_open_close(db))
    bak = tmp_path / f"zeroquiz.sqlite3.pre-v{SCHEMA_VERSION}.bak"
    assert bak.exists()
    conn = sqlite3.connect(bak)
    assert conn.execute("PRAGMA user_version").fetchone() == (2,)  # the file before the upgrade
    assert conn.execute("SELECT COUNT(*) FROM answers").fetchone() == original
    conn.close()
    kept = sorted(p.name for p in tmp_path.glob("zeroquiz.sqlite3.pre-v*.bak"))
    assert len(kept) == 3 and bak.name in kept
    assert "zeroquiz.sqlite3.pre-v2.bak" not in kept  # the oldest one went
    asyncio.run(_open_close(db))  # already current: no new backup
    assert len(list(tmp_path.glob("zeroquiz.sqlite3.pre-v*.bak"))) == 3


async def _open_close(db: Path) -> None:
    store = await Store.open(db)
    await store.close()


@pytest.mark.parametrize("missing", ["nothing-here.sqlite3"])
def test_a_backup_of_a_missing_database_is_a_configuration_error(
    tmp_path: Path, missing: str
) -> None:
    result = run("backup", "--db", str(tmp_path / missing), str(tmp_path / "b.sqlite3"))
    assert result.returncode == 78 and "does not exist" in result.stderr
    assert not (tmp_path / "b.sqlite3").exists()
