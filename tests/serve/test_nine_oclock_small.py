"""The nine-o'clock benchmark's machinery, small (tests/bench/nine_oclock.py): 6 workspaces
installed through the real OAuth flow on two `zeroquiz serve` replicas over PostgreSQL, one daily
question each for the coming minute, Slack answering in 50 ms with its limits, one workspace held
to its budget; the replica that sends the minute's first post is SIGKILLed just before it and
restarted at once. Every channel gets its question, exactly once.

The minute is real time: the test waits for the next minute to begin (at most about a minute).
"""

from __future__ import annotations

import sys
from pathlib import Path

from pg_server import PgServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from nine_oclock import Options, channels, report, run, teams


async def test_every_channel_gets_its_daily_question_once_though_a_replica_dies_before_a_post(
    pg_server: PgServer,
) -> None:
    opts = Options(
        workspaces=6, schedules=1, delay=0.05, held_window=5.0, victim="",
        restart_after=0.0, wait=45.0, lead=3.0,
    )  # fmt: skip
    result = await run(opts, pg_server, lambda line: None)
    shown = "\n".join(report(opts, result))
    wanted = {(team, channel) for team in teams(6) for channel in channels(team, 1)}
    assert set(result.firsts()) == wanted, shown
    assert result.duplicates == 0, shown
    assert result.killed_at is not None, shown  # somebody posted, so somebody was killed
    assert result.refused["held"] >= 1, shown  # the held workspace met its budget and waited
    print("\n" + shown)
