"""Upgrading a file written before the storage rewrite (schema version 2) keeps every fact.

The schema-2 file is generated with tests/bench/history.py (three teams in different zones, one
with daylight saving, about six months of singles, runs and daily rounds). After `Store.open`:
every answer and player is there with the same values under the new column names, rounds, runs,
schedules and daily postings are untouched, the file says version SCHEMA_VERSION, and the
leaderboards equal a plain recomputation from the answers (zoneinfo and plain Python, not
bot.periods). Opening it again changes nothing; a file newer than the code is refused untouched.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
import sys
from collections import defaultdict
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from helpers import peek

from bot.app import build_quiz
from bot.bank import Bank
from bot.clock import FakeClock
from bot.model import TeamRef, UserRef
from bot.storage import SCHEMA_VERSION, DatabaseTooNewError, Store
from bot.views import LeaderRow, Period

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from history import History, make_v2_history

TEAMS = (
    ("slack", "TJKT", "Asia/Jakarta"),
    ("discord", "GNYC", "America/New_York"),  # daylight saving ends inside the history
    ("slack", "TUTC", "UTC"),
)
PERIODS: tuple[Period, ...] = ("all", "week", "month")
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

Rows = list[tuple[object, ...]]


def ms(at: datetime) -> int:
    return (at - EPOCH) // timedelta(milliseconds=1)


def dump(path: Path) -> dict[str, Rows]:
    """Every row of every table, and the schema itself, in a stable order."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        out = {t: sorted(conn.execute(f'SELECT * FROM "{t}"'), key=repr) for t in tables}
        out["<schema>"] = sorted(
            conn.execute("SELECT type, name, sql FROM sqlite_master"), key=repr
        )
        out["<user_version>"] = list(conn.execute("PRAGMA user_version"))
        return out
    finally:
        conn.close()


def columns(path: Path, table: str) -> list[str]:
    return [str(r[1]) for r in peek(path, f"PRAGMA table_info({table})")]


@pytest.fixture(scope="module")
def v2_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[History, dict[str, Rows]]:
    """The schema-2 file (never opened by the code under test) and its rows before any upgrade."""
    path = tmp_path_factory.mktemp("v2") / "before.sqlite3"
    history = make_v2_history(path, answers=2000, players=90, seed=11, teams=TEAMS, rounds=300)
    return history, dump(path)


@pytest.fixture
def v2_copy(v2_file: tuple[History, dict[str, Rows]], tmp_path: Path) -> Path:
    target = tmp_path / "quiz.sqlite3"
    shutil.copyfile(v2_file[0].path, target)
    return target


def test_the_generated_file_is_a_schema_2_history(v2_file: tuple[History, dict[str, Rows]]) -> None:
    history, before = v2_file
    assert before["<user_version>"] == [(2,)]
    assert "schema_version" not in before and "score_totals" not in before
    assert "user" in columns(history.path, "players")
    assert "option" in columns(history.path, "answers")
    assert len(before["answers"]) == 2000 and len(before["players"]) == 90
    assert len(before["teams"]) == 3 and {r[3] for r in before["teams"]} == {t[2] for t in TEAMS}
    assert before["runs"] and before["schedules"] and before["daily_posts"]
    kinds = {r[4] for r in before["rounds"]}
    assert kinds == {"single", "run", "daily"}
    months = {datetime.fromtimestamp(int(str(r[5])) / 1000, UTC).month for r in before["answers"]}
    assert len(months) >= 5


async def test_upgrade_keeps_every_row_and_renames_the_columns(
    v2_file: tuple[History, dict[str, Rows]], v2_copy: Path
) -> None:
    _, before = v2_file
    store = await Store.open(v2_copy)
    await store.close()
    after = dump(v2_copy)

    # answers (round_id, player_id, option -> choice, correct, points, answered_at): same rows,
    # and what was typed (step 19), nothing for old ones (clicks).
    assert columns(v2_copy, "answers") == [
        "round_id", "player_id", "choice", "correct", "points", "answered_at", "typed"
    ]  # fmt: skip
    assert after["answers"] == [(*row, None) for row in before["answers"]]
    # players keep their ids and platform user ids (column `user` -> `platform_user`).
    assert columns(v2_copy, "players") == ["id", "team_id", "platform_user", "display_name"]
    assert after["players"] == before["players"]
    for table in ("teams", "channels", "daily_posts"):
        assert after[table] == before[table], table
    # runs keep every column and gain who started them and their filter (migration 9), unknown
    # for runs from before; schedules gain their topics, none (the whole bank) for old ones,
    # and whether they are adaptive (the insights' step), not for old ones.
    for table, added, empty in (
        ("runs", ["started_by", "topic", "level"], (None, None, None)),
        ("schedules", ["topics", "adaptive"], ("", 0)),
    ):
        width = len(before[table][0])
        assert [r[:width] for r in after[table]] == before[table], table
        assert columns(v2_copy, table)[width:] == added
        assert all(r[width:] == empty for r in after[table]), table
    # rounds keep every column and gain posted_at (migration 4): rounds from before were posted;
    # and the replicas' claims (migration 6), which nobody holds yet.
    width = len(before["rounds"][0])
    assert [r[:width] for r in after["rounds"]] == before["rounds"]
    assert columns(v2_copy, "rounds")[width:] == [
        "posted_at", "claimed_by", "claimed_until", "count_edited_at"
    ]  # fmt: skip
    assert all(r[width] == r[7] for r in after["rounds"])  # posted when opened (column 7)
    assert all(r[width + 1 :] == (None, None, None) for r in after["rounds"])

    assert after["schema_version"] == [(SCHEMA_VERSION,)]
    assert after["<user_version>"] == [(SCHEMA_VERSION,)]
    assert SCHEMA_VERSION >= 3


async def test_opening_again_changes_nothing(v2_copy: Path) -> None:
    store = await Store.open(v2_copy)
    await store.close()
    once = dump(v2_copy)
    store = await Store.open(v2_copy)
    await store.close()
    assert dump(v2_copy) == once


@pytest.mark.parametrize("where", ["user_version", "schema_version"])
async def test_a_newer_file_is_refused_untouched(v2_copy: Path, where: str) -> None:
    store = await Store.open(v2_copy)
    await store.close()
    newer = SCHEMA_VERSION + 1
    conn = sqlite3.connect(v2_copy, isolation_level=None)
    if where == "user_version":
        conn.execute(f"PRAGMA user_version = {newer}")
    else:
        conn.execute("INSERT INTO schema_version (version) VALUES (?)", (newer,))
    conn.close()
    before = dump(v2_copy)
    with pytest.raises(DatabaseTooNewError):
        await Store.open(v2_copy)
    assert dump(v2_copy) == before


# -- the plain recomputation ------------------------------------------------------------------
def local_midnight(day: date, tz: str) -> datetime:
    return datetime.combine(day, time(0), tzinfo=ZoneInfo(tz)).astimezone(UTC)


def bucket(period: Period, now: datetime, tz: str) -> tuple[int, int]:
    """[start, end) in ms of the period holding `now` in zone `tz`; all time is everything."""
    if period == "all":
        return 0, 2**62
    today = now.astimezone(ZoneInfo(tz)).date()
    if period == "week":
        first = today - timedelta(days=today.weekday())
        after = first + timedelta(days=7)
    else:
        first = today.replace(day=1)
        after = (first + timedelta(days=32)).replace(day=1)
    return ms(local_midnight(first, tz)), ms(local_midnight(after, tz))


def expected_board(
    before: dict[str, Rows], team_id: int, span: tuple[int, int]
) -> list[tuple[int, str, str, int, int, int]]:
    """(rank, user, name, points, correct, answered): more points, fewer answers, reached first,
    then user id; from the schema-2 rows, which the upgrade must not have changed."""
    players = {int(str(p[0])): p for p in before["players"] if p[1] == team_id}
    acc: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for _round, player, _option, correct, points, at in before["answers"]:
        pid, at_ms = int(str(player)), int(str(at))
        if pid in players and span[0] <= at_ms < span[1]:
            line = acc[pid]
            line[0] += int(str(points))
            line[1] += int(str(correct))
            line[2] += 1
            if int(str(points)) > 0:
                line[3] = max(line[3], at_ms)
    order = sorted(acc, key=lambda p: (-acc[p][0], acc[p][2], acc[p][3], str(players[p][2])))
    return [
        (
            n + 1,
            str(players[p][2]),
            str(players[p][3] or players[p][2]),
            acc[p][0],
            acc[p][1],
            acc[p][2],
        )
        for n, p in enumerate(order)
    ]


def boundary_moments(history: History, before: dict[str, Rows]) -> list[datetime]:
    """Moments of answers that a week or a month counts only in the team's zone (its local date
    is a Monday or a 1st and its UTC date another day, or the other way round)."""
    team_of = {int(str(p[0])): int(str(p[1])) for p in before["players"]}
    zones = {t.id: t.tz for t in history.teams if t.tz != "UTC"}
    found: dict[tuple[int, str], datetime] = {}
    for answer in sorted(before["answers"], key=lambda a: int(str(a[5]))):
        team = team_of[int(str(answer[1]))]
        if team not in zones:
            continue
        at = datetime.fromtimestamp(int(str(answer[5])) / 1000, UTC)
        local, utc = at.astimezone(ZoneInfo(zones[team])).date(), at.date()
        if local == utc:
            continue
        if 0 in (local.weekday(), utc.weekday()):
            found.setdefault((team, "week"), at)
        if 1 in (local.day, utc.day):
            found.setdefault((team, "month"), at)
    assert len(found) == 2 * len(zones), f"the history has no answer near a boundary: {found}"
    return list(found.values())


def as_tuple(row: LeaderRow) -> tuple[int, str, str, int, int, int]:
    return (row.rank, row.user, row.name, row.points, row.correct, row.answered)


async def test_leaderboards_after_the_upgrade_equal_a_recomputation(
    v2_file: tuple[History, dict[str, Rows]], v2_copy: Path, bank: Bank
) -> None:
    history, before = v2_file
    rng = random.Random(5)
    span = ms(history.end) - ms(history.start)
    # Just after the last answer (the usual case), and moments inside the history (weeks and
    # months then also hold answers given after `now`: the maintained totals count a period's
    # answers, so the recomputation takes the whole period).
    moments = sorted(
        [history.end + timedelta(minutes=1)]
        + [history.start + timedelta(milliseconds=rng.randrange(span)) for _ in range(4)]
        + boundary_moments(history, before)
    )
    checked: dict[Period, int] = dict.fromkeys(PERIODS, 0)
    store = await Store.open(v2_copy)
    try:
        for now in moments:
            quiz = build_quiz(store, bank, FakeClock(now), random.Random(1))
            for team in history.teams:
                ref = TeamRef(team.platform, team.team)
                for period in PERIODS:
                    expected = expected_board(before, team.id, bucket(period, now, team.tz))
                    what = f"{team.team} {period} at {now:%Y-%m-%d %H:%M}"
                    view = await quiz.leaderboard(ref, period, lang="en", limit=1000)
                    assert [as_tuple(r) for r in view.rows] == expected, what
                    top = await quiz.leaderboard(ref, period, lang="en")
                    assert [as_tuple(r) for r in top.rows] == expected[:10], what
                    checked[period] += len(expected)
                    # Own rank of some players (near the bottom, the middle, and one without
                    # answers in the period), with the default limit of 10.
                    askers = {e[1]: e for e in (expected[-1:] + expected[len(expected) // 2 :][:1])}
                    idle = {str(p[2]) for p in before["players"] if p[1] == team.id} - {
                        e[1] for e in expected
                    }
                    for user in [*askers, *sorted(idle)[:1]]:
                        mine = await quiz.leaderboard(
                            ref, period, lang="en", user=UserRef(team.platform, team.team, user)
                        )
                        got = as_tuple(mine.me) if mine.me is not None else None
                        assert got == askers.get(user), f"{what}: own rank of {user}"
    finally:
        await store.close()
    assert min(checked.values()) >= 20, f"too few leaderboard lines compared: {checked}"
