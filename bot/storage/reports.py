"""Questions players reported (`Report` after an answer, `/report` in the terminal): one per
person, question and team, kept until an admin clears it (`/zeroquiz reports clear ID`, which
the audit log keeps). Forgetting a person deletes their reports with their answers."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from bot.model import TeamRef, UserRef
from bot.periods import from_ms, to_ms
from bot.storage.engine import Engine

REASONS = ("key", "unclear", "typo", "outdated", "other")


class ReportRecord(NamedTuple):
    id: int
    question_id: str
    reason: str
    note: str
    reported_at: datetime
    name: str  # the reporter's display name, as the team knows them


class ReportTable:
    def __init__(self, engine: Engine) -> None:
        self._e = engine

    async def add(
        self, user: UserRef, question_id: str, reason: str, note: str, at: datetime
    ) -> bool | None:
        """Store the report: True; False when this person reported this question already;
        None when the person never answered in the team (nothing to report on)."""
        async with self._e.transaction() as tx:
            found = await tx.fetchrow(
                """SELECT p.id, p.team_id FROM players p JOIN teams t ON t.id = p.team_id
                   WHERE t.platform = $1 AND t.team = $2 AND p.platform_user = $3""",
                user.platform,
                user.team,
                user.user,
            )
            if found is None:
                return None
            inserted = await tx.execute(
                """INSERT INTO reports (team_id, player_id, question_id, reason, note, reported_at)
                   VALUES ($1, $2, $3, $4, $5, $6)
                   ON CONFLICT (team_id, question_id, player_id) DO NOTHING""",
                int(found["team_id"]),
                int(found["id"]),
                question_id,
                reason,
                note,
                to_ms(at),
            )
        return inserted > 0

    async def open(self, team: TeamRef, limit: int = 200) -> list[ReportRecord]:
        """The team's reports not cleared yet, latest first."""
        async with self._e.reader() as c:
            rows = await c.fetch(
                """SELECT r.id, r.question_id, r.reason, r.note, r.reported_at, p.display_name,
                          p.platform_user
                   FROM reports r JOIN teams t ON t.id = r.team_id
                   JOIN players p ON p.id = r.player_id
                   WHERE t.platform = $1 AND t.team = $2 AND r.cleared_at IS NULL
                   ORDER BY r.reported_at DESC, r.id DESC LIMIT $3""",
                team.platform,
                team.team,
                limit,
            )
        return [
            ReportRecord(
                id=int(r["id"]),
                question_id=str(r["question_id"]),
                reason=str(r["reason"]),
                note=str(r["note"]),
                reported_at=from_ms(int(r["reported_at"])),
                name=str(r["display_name"] or r["platform_user"]),
            )
            for r in rows
        ]

    async def clear(self, team: TeamRef, report_id: int, at: datetime) -> bool:
        """Mark one of the team's reports handled; False when it has none open by that id."""
        async with self._e.transaction() as tx:
            changed = await tx.execute(
                """UPDATE reports SET cleared_at = $1
                   WHERE id = $2 AND cleared_at IS NULL AND team_id =
                       (SELECT id FROM teams WHERE platform = $3 AND team = $4)""",
                to_ms(at),
                report_id,
                team.platform,
                team.team,
            )
        return changed > 0
