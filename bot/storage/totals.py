"""Maintained leaderboard totals: per player, all time and per week and month in the team's zone.

Updated in the same transaction as the answers they count, and rebuilt from the answers when the
team's time zone changes (weeks and months then start at other instants). The `score_rank` index
holds the leaderboard's exact order, so the top N is an index walk and a rank is a count of the
index entries before it, never a scan of the answers.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from bot.model import LeaderRow, Period
from bot.periods import from_ms, period_start, period_starts, to_ms
from bot.storage.engine import Conn, Record

BUCKETED: tuple[Period, ...] = ("week", "month")


@dataclass(slots=True)
class Delta:
    """What one transaction adds to one (player, period) total."""

    team_id: int
    player_id: int
    platform_user: str
    period: Period
    start_ms: int
    points: int = 0
    correct: int = 0
    answered: int = 0
    reached_ms: int = 0


QUARTER_HOUR_MS = 900_000


def bucket_starts(at: datetime, tz: str, season_ms: int = 0) -> tuple[tuple[Period, int], ...]:
    """The period keys an answer given at `at` counts toward, in the team's zone.

    A season (`season_ms`, its start; 0 for none) starts every board afresh: its "all" is keyed
    by the season's start, and a week or month it began in by the later of the two starts, so
    the totals from before it stay under their own keys, as history, and are never read again."""
    return bucket_starts_ms(to_ms(at), tz, season_ms)


def bucket_starts_ms(at_ms: int, tz: str, season_ms: int = 0) -> tuple[tuple[Period, int], ...]:
    """`bucket_starts` of an instant in stored milliseconds (the group commit has those)."""
    keys = _bucket_starts(at_ms // QUARTER_HOUR_MS, tz)
    if not season_ms:
        return keys
    return tuple((period, max(start, season_ms)) for period, start in keys)


def board_start(period: Period, period_ms: int, season_ms: int) -> int:
    """The key a board reads: its period's start (0 for all time), or its season's if later."""
    return max(period_ms, season_ms)


@functools.lru_cache(maxsize=4096)
def _bucket_starts(quarter: int, tz: str) -> tuple[tuple[Period, int], ...]:
    # Every UTC offset is a multiple of 15 minutes, so local midnight (where weeks and months
    # start) falls on a quarter-hour boundary: all instants of one quarter share their periods.
    at = from_ms(quarter * QUARTER_HOUR_MS)
    keys: list[tuple[Period, int]] = [("all", 0)]
    for period in BUCKETED:
        start = period_start(period, at, tz)
        assert start is not None
        keys.append((period, to_ms(start)))
    return tuple(keys)


UPSERT = """
    INSERT INTO score_totals (team_id, period, period_start, player_id, platform_user, points,
                              correct, answered, reached_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
    ON CONFLICT (team_id, period, period_start, player_id) DO UPDATE SET
        points = score_totals.points + excluded.points,
        correct = score_totals.correct + excluded.correct,
        answered = score_totals.answered + excluded.answered,
        reached_at = CASE WHEN excluded.reached_at > score_totals.reached_at
                          THEN excluded.reached_at ELSE score_totals.reached_at END
"""


async def apply(conn: Conn, deltas: Iterable[Delta]) -> None:
    """Add per-key deltas (one per key: a statement never touches a row twice). One prepared
    statement for all rows: measured faster in SQLite than one many-row statement. In key
    order, so two replicas adding to the same rows lock them in the same order."""
    await conn.executemany(
        UPSERT,
        sorted(
            (d.team_id, d.period, d.start_ms, d.player_id, d.platform_user, d.points, d.correct,
             d.answered, d.reached_ms)
            for d in deltas
        ),
    )  # fmt: skip


_AGGREGATE = """
    SUM(a.points), SUM(a.correct), COUNT(*),
    COALESCE(MAX(CASE WHEN a.points > 0 THEN a.answered_at END), 0)
"""


async def rebuild_all_time(conn: Conn) -> None:
    await conn.execute("DELETE FROM score_totals WHERE period = 'all'")
    await conn.execute(
        f"""INSERT INTO score_totals (team_id, period, period_start, player_id, platform_user,
                                      points, correct, answered, reached_at)
            SELECT p.team_id, 'all', 0, a.player_id, p.platform_user, {_AGGREGATE}
            FROM answers a JOIN players p ON p.id = a.player_id
            GROUP BY a.player_id, p.team_id, p.platform_user"""
    )


async def team_zones(conn: Conn) -> list[tuple[int, str]]:
    return [(int(r["id"]), str(r["tz"])) for r in await conn.fetch("SELECT id, tz FROM teams")]


async def rebuild_periods(
    conn: Conn, team_id: int, tz: str, *, since_ms: int | None, season_ms: int = 0
) -> None:
    """Recount the team's week and month totals in zone `tz` from its answers.

    With `since_ms`, only periods from that instant on are rebuilt and older ones dropped: a
    leaderboard only ever reads the current week and month, so a time-zone change recounts at
    most a month of answers instead of the team's whole history. A season that began since
    (`season_ms`) splits its week and month as `bucket_starts` does.
    """
    await conn.execute(
        "DELETE FROM score_totals WHERE team_id = $1 AND period IN ('week', 'month')", team_id
    )
    span = await conn.fetchrow(
        """SELECT MIN(a.answered_at) AS lo, MAX(a.answered_at) AS hi
           FROM answers a JOIN players p ON p.id = a.player_id
           WHERE p.team_id = $1 AND a.answered_at >= $2""",
        team_id,
        since_ms or 0,
    )
    if span is None or span["lo"] is None:
        return
    await conn.execute(
        """CREATE TEMP TABLE IF NOT EXISTS period_bounds (
               period TEXT NOT NULL, start_ms BIGINT NOT NULL, PRIMARY KEY (period, start_ms))"""
    )
    await conn.execute("DELETE FROM period_bounds")
    for period in BUCKETED:
        starts = period_starts(period, from_ms(int(span["lo"])), from_ms(int(span["hi"])), tz)
        await conn.executemany(
            "INSERT INTO period_bounds (period, start_ms) VALUES ($1, $2)",
            [(period, to_ms(s)) for s in starts],
        )
        if season_ms and season_ms >= (since_ms or 0):
            await conn.execute(
                """INSERT INTO period_bounds (period, start_ms) VALUES ($1, $2)
                   ON CONFLICT (period, start_ms) DO NOTHING""",
                period,
                season_ms,
            )
        await conn.execute(
            f"""INSERT INTO score_totals (team_id, period, period_start, player_id, platform_user,
                                          points, correct, answered, reached_at)
                SELECT $1, $2, a.bucket, a.player_id, a.platform_user, {_AGGREGATE}
                FROM (SELECT x.player_id, p.platform_user, x.points, x.correct, x.answered_at,
                             (SELECT MAX(b.start_ms) FROM period_bounds b
                              WHERE b.period = $2 AND b.start_ms <= x.answered_at) AS bucket
                      FROM answers x JOIN players p ON p.id = x.player_id
                      WHERE p.team_id = $1 AND x.answered_at >= $3) a
                GROUP BY a.bucket, a.player_id, a.platform_user""",
            team_id,
            period,
            since_ms or 0,
        )
    await conn.execute("DELETE FROM period_bounds")


_ORDER = "s.points DESC, s.answered ASC, s.reached_at ASC, s.platform_user ASC"


def _line(row: Record, rank: int) -> LeaderRow:
    return LeaderRow(
        rank=rank,
        user=str(row["platform_user"]),
        name=str(row["display_name"] or row["platform_user"]),
        points=int(row["points"]),
        correct=int(row["correct"]),
        answered=int(row["answered"]),
    )


SEASON_OF = "(SELECT MAX(started_at) FROM seasons WHERE team_id = {team})"


async def top(
    conn: Conn, team_id: int, period: Period, start_ms: int, limit: int
) -> tuple[list[LeaderRow], tuple[str, int] | None]:
    """The top `limit` lines, and the team's zone and season start as stored at that same
    instant (None when the board is empty), so a caller that computed `start_ms` from a
    remembered zone and season can check them in the same statement."""
    rows = await conn.fetch(
        f"""SELECT s.platform_user, p.display_name, s.points, s.correct, s.answered,
                   (SELECT tz FROM teams WHERE id = $1) AS tz,
                   {SEASON_OF.format(team="$1")} AS season
            FROM score_totals s JOIN players p ON p.id = s.player_id
            WHERE s.team_id = $1 AND s.period = $2 AND s.period_start = $3
            ORDER BY {_ORDER} LIMIT $4""",
        team_id,
        period,
        start_ms,
        limit,
    )
    zone = (str(rows[0]["tz"]), int(rows[0]["season"] or 0)) if rows else None
    return [_line(r, n + 1) for n, r in enumerate(rows)], zone


async def own(
    conn: Conn, team_id: int, period: Period, start_ms: int, platform_user: str
) -> LeaderRow | None:
    """The person's line with their rank: one more than the entries ahead in index order (two
    index range counts), in one statement."""
    row = await conn.fetchrow(
        """SELECT s.platform_user, p.display_name, s.points, s.correct, s.answered,
                  (SELECT COUNT(*) FROM score_totals x
                   WHERE x.team_id = s.team_id AND x.period = s.period
                     AND x.period_start = s.period_start AND x.points > s.points)
                + (SELECT COUNT(*) FROM score_totals x
                   WHERE x.team_id = s.team_id AND x.period = s.period
                     AND x.period_start = s.period_start AND x.points = s.points
                     AND (x.answered, x.reached_at, x.platform_user)
                         < (s.answered, s.reached_at, s.platform_user)) AS ahead
           FROM players p JOIN score_totals s ON s.player_id = p.id AND s.team_id = p.team_id
           WHERE p.team_id = $1 AND p.platform_user = $4 AND s.period = $2
             AND s.period_start = $3""",
        team_id,
        period,
        start_ms,
        platform_user,
    )
    return _line(row, int(row["ahead"]) + 1) if row is not None else None
