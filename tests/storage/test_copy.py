"""`zeroquiz copy` moves a SQLite database with history into PostgreSQL (and back) keeping every
answer, leaderboard and schedule: the real command as a child process, the real server."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, time, timedelta
from pathlib import Path

from pg_server import PgServer, look
from test_database_faults import ZEROQUIZ, env_for

from bot.model import ChannelRef, TeamRef, UserRef
from bot.storage import Store
from bot.views import PERIODS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from history import History, make_v2_history


def copy(source: str, target: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ZEROQUIZ), "copy", source, target],
        capture_output=True, text=True, env=env_for(None), timeout=120,
    )  # fmt: skip


async def what_people_see(store: Store, history: History) -> dict[str, object]:
    """Every leaderboard of every team now and at the history's end, some people's stats and
    every channel's schedule, as the bot would show them."""
    seen: dict[str, object] = {"counts": await store.counts()}
    for team in history.teams:
        ref = TeamRef(team.platform, team.team)
        for period in PERIODS:
            for at in (history.start, history.end):
                seen[f"{team.team} {period} {at}"] = await store.scores.leaderboard(
                    ref, period, at, limit=1000, user=team.users[0]
                )
        for user in team.users[:20]:
            who = UserRef(team.platform, team.team, user)
            seen[f"{team.team} {user}"] = await store.scores.answer_history(who)
        for channel in team.channels:
            cid = await store.teams.find_channel(ChannelRef(team.platform, team.team, channel))
            assert cid is not None
            seen[f"{team.team} {channel}"] = await store.daily.channel_schedule(cid)
    return seen


async def test_a_sqlite_history_copied_into_postgresql_and_back_shows_the_same(
    tmp_path: Path, pg_server: PgServer
) -> None:
    history = make_v2_history(tmp_path / "old.sqlite3", answers=3000, players=150, seed=5)
    source = await Store.open(history.path)  # upgraded to this release's schema first
    before = await what_people_see(source, history)
    await source.close()
    assert history.daily_posts > 0 and history.runs > 0

    url = pg_server.url(await pg_server.create_database())
    result = copy(str(history.path), url)
    assert result.returncode == 0, result.stderr
    assert "answers: 3000 rows" in result.stdout
    assert "every table's count matches" in result.stdout
    assert pg_server.password not in result.stdout + result.stderr

    target = await Store.open(url)
    try:
        assert await what_people_see(target, history) == before
    finally:
        await target.close()

    again = copy(str(history.path), url)  # the destination is no longer empty
    assert again.returncode == 1 and "already holds ZeroQuiz data" in again.stderr
    back = tmp_path / "back.sqlite3"
    returned = copy(url, str(back))
    assert returned.returncode == 0, returned.stderr
    copied_back = await Store.open(back)
    try:
        assert await what_people_see(copied_back, history) == before
    finally:
        await copied_back.close()

    target = await Store.open(url)  # the copy goes on living: new rows get ids after the copied
    try:
        channels = (await target.counts())["channels"]
        fresh = await target.teams.channel_id(ChannelRef("slack", "TNEW", "CNEW"))
        assert fresh > channels
    finally:
        await target.close()


async def test_a_runs_starter_and_filter_and_a_schedules_topics_are_copied(
    tmp_path: Path, pg_server: PgServer
) -> None:
    source = await Store.open(tmp_path / "runs.sqlite3")
    at = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    try:
        cid = await source.teams.channel_id(ChannelRef("slack", "T1", "C1"))
        run_id = await source.rounds.start_run(
            cid, 5, timedelta(minutes=1), at, started_by="U42", topic="offload", level=3
        )
        assert run_id is not None
        await source.daily.upsert_schedule(
            channel_id=cid, at=time(9, 0), tz="Asia/Jakarta", days="0,1,2,3,4",
            window=timedelta(hours=1), grace=timedelta(0), now=at, topics=("offload", "zeropp"),
        )  # fmt: skip
        run = await source.rounds.run(run_id)
        schedule = await source.daily.channel_schedule(cid)
    finally:
        await source.close()
    assert run is not None and (run.started_by, run.topic, run.level) == ("U42", "offload", 3)
    assert schedule is not None and schedule.topics == ("offload", "zeropp")

    url = pg_server.url(await pg_server.create_database())
    result = copy(str(tmp_path / "runs.sqlite3"), url)
    assert result.returncode == 0, result.stderr
    target = await Store.open(url)
    try:
        assert await target.rounds.run(run_id) == run
        assert await target.daily.channel_schedule(cid) == schedule
    finally:
        await target.close()


async def test_an_empty_postgresql_source_is_refused_and_left_empty(
    pg_url: str, tmp_path: Path
) -> None:
    """A mistyped database name that happens to exist, empty: no tables are created in it."""
    result = copy(pg_url, str(tmp_path / "new.sqlite3"))
    assert result.returncode == 78, result.stderr
    assert result.stdout == "" and len(result.stderr.splitlines()) == 1
    assert "holds no ZeroQuiz database" in result.stderr
    tables = "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
    assert await look(pg_url, tables) == []
    assert not (tmp_path / "new.sqlite3").exists()
