"""Leaderboards, a person's own rank and stats, and a run's standings.

Tie-breaks (documented in the README): more points first; then fewer answers given (better
accuracy); then whoever reached their score first; then the platform user id, so the order is total.
Leaderboards read the maintained totals (totals.py); a run's standings and a person's stats read
their own few answers.
"""

from __future__ import annotations

from datetime import datetime

from bot.model import LeaderRow, Period, TeamRef, UserRef
from bot.periods import from_ms, period_start, to_ms
from bot.storage import totals
from bot.storage.engine import Engine


class ScoreTable:
    def __init__(self, engine: Engine) -> None:
        self._e = engine
        # Team ids never change; a zone and a season rarely do and are checked by the very
        # query that reads the board, so the common leaderboard is one statement.
        self._teams: dict[TeamRef, tuple[int, str, int]] = {}

    async def _team(self, team: TeamRef) -> tuple[int, str, int] | None:
        async with self._e.reader() as c:
            row = await c.fetchrow(
                f"""SELECT t.id, t.tz, {totals.SEASON_OF.format(team="t.id")} AS season
                    FROM teams t WHERE t.platform = $1 AND t.team = $2""",
                team.platform,
                team.team,
            )
        if row is None:
            return None
        self._teams[team] = (int(row["id"]), str(row["tz"]), int(row["season"] or 0))
        return self._teams[team]

    async def leaderboard(
        self, team: TeamRef, period: Period, now: datetime, *, limit: int, user: str | None
    ) -> tuple[list[LeaderRow], LeaderRow | None]:
        """The top `limit` of the team's current period (in its zone, from its season's start
        if that is later), and the asker's line."""
        known = self._teams.get(team) or await self._team(team)
        while known is not None:
            team_id, tz, season = known
            start = period_start(period, now, tz)
            key = (
                team_id,
                period,
                totals.board_start(period, to_ms(start) if start else 0, season),
            )
            async with self._e.reader() as c:
                lines, stored = await totals.top(c, *key, limit)
            if stored is None:  # an empty board: make sure it was asked for the right zone
                fresh = await self._team(team)
                if fresh is not None and fresh[1:] != (tz, season):
                    known = fresh
                    continue
            elif stored != (tz, season):  # changed (here or on another replica): ask again
                known = self._teams[team] = (team_id, *stored)
                continue
            mine = next((line for line in lines if line.user == user), None)
            if user is not None and mine is None:
                async with self._e.reader() as c:
                    mine = await totals.own(c, *key, user)
            return lines, mine
        return [], None

    async def season(self, team: TeamRef) -> datetime | None:
        """When the team's current season began, as the last leaderboard read it (None: none)."""
        known = self._teams.get(team) or await self._team(team)
        return from_ms(known[2]) if known is not None and known[2] else None

    async def run_standings(self, run_id: int, limit: int) -> list[LeaderRow]:
        async with self._e.snapshot() as c:
            rows = await c.fetch(
                """SELECT p.platform_user, p.display_name, SUM(a.points) AS points,
                          SUM(a.correct) AS correct, COUNT(*) AS answered,
                          COALESCE(MAX(CASE WHEN a.points > 0 THEN a.answered_at END), 0) AS reached
                   FROM answers a JOIN players p ON p.id = a.player_id
                   JOIN rounds r ON r.id = a.round_id
                   WHERE r.run_id = $1
                   GROUP BY p.id, p.platform_user, p.display_name
                   ORDER BY points DESC, answered ASC, reached ASC, p.platform_user ASC
                   LIMIT $2""",
                run_id,
                limit,
            )
        return [
            LeaderRow(
                rank=n + 1,
                user=str(r["platform_user"]),
                name=str(r["display_name"] or r["platform_user"]),
                points=int(r["points"]),
                correct=int(r["correct"]),
                answered=int(r["answered"]),
            )
            for n, r in enumerate(rows)
        ]

    async def answer_history(self, user: UserRef) -> list[tuple[bool, int]]:
        """(correct, points) of every answer the person gave in the team, oldest first."""
        async with self._e.snapshot() as c:
            rows = await c.fetch(
                """SELECT a.correct, a.points FROM answers a
                   JOIN players p ON p.id = a.player_id JOIN teams t ON t.id = p.team_id
                   WHERE t.platform = $1 AND t.team = $2 AND p.platform_user = $3
                   ORDER BY a.answered_at, a.round_id""",
                user.platform,
                user.team,
                user.user,
            )
        return [(bool(r["correct"]), int(r["points"])) for r in rows]
