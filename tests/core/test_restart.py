"""A process killed mid-round: after restart, overdue rounds are revealed once, others keep time."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from helpers import RecordingPort

from bot.app import build_quiz
from bot.bank import Bank
from bot.clock import FakeClock
from bot.scheduler import Scheduler
from bot.storage import Store

ROOT = Path(__file__).resolve().parents[2]


async def _restart(
    db_path: Path, clock: FakeClock, bank: Bank
) -> tuple[RecordingPort, Store, Scheduler]:
    db = await Store.open(db_path)
    port = RecordingPort()
    quiz = build_quiz(db, bank, clock, random.Random(2))
    quiz.add_port(port)
    sched = Scheduler(clock, quiz)
    quiz.rounds.on_change(sched.wake)
    sched.start()
    await sched.caught_up()
    return port, db, sched


async def test_sigkill_mid_round_then_restart(db_path: Path, bank: Bank) -> None:
    clock = FakeClock()
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests" / "kill_target.py"),
            str(db_path),
            clock.now().isoformat(),
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert proc.stdout is not None
        short_id, long_id = map(int, proc.stdout.readline().split())
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL

    await clock.advance(timedelta(minutes=5).total_seconds())  # the bot was down past one deadline
    port, db, sched = await _restart(db_path, clock, bank)
    try:
        assert [v.round_id for _, v in port.reveals] == [short_id]
        ref, reveal = port.reveals[0]
        assert ref == f"msg-{short_id}" or ref is None
        assert reveal.total == 3  # every acknowledged answer survived the kill
        await clock.advance(timedelta(minutes=100).total_seconds())
        await sched.caught_up()
        assert [v.round_id for _, v in port.reveals] == [short_id]  # long round still open
    finally:
        await sched.stop()
        await db.close()

    # A second restart reveals nothing again; the open round closes at its original deadline.
    port2, db2, sched2 = await _restart(db_path, clock, bank)
    try:
        assert port2.reveals == []
        await clock.advance(timedelta(minutes=14).total_seconds())  # 1 min before 2 h
        await sched2.caught_up()
        assert port2.reveals == []
        await clock.advance(60)
        await sched2.caught_up()
        assert [v.round_id for _, v in port2.reveals] == [long_id]
    finally:
        await sched2.stop()
        await db2.close()
