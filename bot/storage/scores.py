"""SQL for leaderboards, personal stats and run standings.

Tie-breaks (documented in the README): more points first; then fewer answers given (better
accuracy); then whoever reached their score first; then the platform user id, so the order is total.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.model import TeamRef, UserRef
from bot.storage.db import Row, Tx


@dataclass(frozen=True)
class ScoreRow:
    user: str
    name: str
    points: int
    correct: int
    answered: int


LEADERBOARD_SQL = """
    SELECT p.user, p.display_name, SUM(a.points) AS points, SUM(a.correct) AS correct,
           COUNT(*) AS answered,
           COALESCE(MAX(CASE WHEN a.points > 0 THEN a.answered_at END), 0) AS reached
    FROM answers a JOIN players p ON p.id = a.player_id
    WHERE {where}
    GROUP BY p.id
    ORDER BY points DESC, answered ASC, reached ASC, p.user ASC
"""


def _rows(rows: list[Row]) -> list[ScoreRow]:
    return [
        ScoreRow(
            user=str(r["user"]),
            name=str(r["display_name"] or r["user"]),
            points=int(r["points"]),
            correct=int(r["correct"]),
            answered=int(r["answered"]),
        )
        for r in rows
    ]


async def leaderboard(tx: Tx, team: TeamRef, since_ms: int | None) -> list[ScoreRow]:
    """Every player of the team with at least one answer in the period, best first."""
    where = "p.team_id = (SELECT id FROM teams WHERE platform = ? AND team = ?)"
    params: tuple[object, ...] = (team.platform, team.team)
    if since_ms is not None:
        where += " AND a.answered_at >= ?"
        params += (since_ms,)
    return _rows(await tx.fetchall(LEADERBOARD_SQL.format(where=where), params))


async def run_standings(tx: Tx, run_id: int) -> list[ScoreRow]:
    where = "a.round_id IN (SELECT id FROM rounds WHERE run_id = ?)"
    return _rows(await tx.fetchall(LEADERBOARD_SQL.format(where=where), (run_id,)))


async def answer_history(tx: Tx, user: UserRef) -> list[tuple[bool, int]]:
    """(correct, points) of every answer the user gave in the team, oldest first."""
    rows = await tx.fetchall(
        """SELECT a.correct, a.points FROM answers a
           JOIN players p ON p.id = a.player_id JOIN teams t ON t.id = p.team_id
           WHERE t.platform = ? AND t.team = ? AND p.user = ?
           ORDER BY a.answered_at, a.round_id""",
        (user.platform, user.team, user.user),
    )
    return [(bool(r["correct"]), int(r["points"])) for r in rows]
