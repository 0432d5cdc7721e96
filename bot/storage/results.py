"""Every answer of one team as rows for a teacher's records (`zeroquiz results`): read in one
statement on a reader connection, so an export is safe while the bot runs. A person who used
`forget` has no answers left to read (bot/storage/controls.py deletes them)."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from bot.model import TeamRef
from bot.periods import from_ms, to_ms
from bot.storage.engine import Engine


class ResultRecord(NamedTuple):
    """One answer: when, who, where, to which question (its round's seed shows the letters the
    channel saw), the option chosen in the question's file order, and what it scored."""

    answered_at: datetime
    user: str
    display_name: str
    channel: str
    lang: str  # the channel's: the option's text is given in it
    question_id: str
    seed: int
    choice: int
    correct: bool
    points: int
    typed: str | None = None  # what was typed instead of a letter (bot/typed.py)


class ResultTable:
    def __init__(self, engine: Engine) -> None:
        self._e = engine

    async def rows(self, team: TeamRef, since: datetime | None) -> list[ResultRecord]:
        """The team's answers from `since` on (None: all), oldest first."""
        async with self._e.reader() as c:
            found = await c.fetch(
                """SELECT a.answered_at, p.platform_user, p.display_name, c.channel, c.lang,
                          r.question_id, r.seed, a.choice, a.correct, a.points, a.typed
                   FROM teams t
                   JOIN channels c ON c.team_id = t.id
                   JOIN rounds r ON r.channel_id = c.id
                   JOIN answers a ON a.round_id = r.id
                   JOIN players p ON p.id = a.player_id
                   WHERE t.platform = $1 AND t.team = $2 AND a.answered_at >= $3
                   ORDER BY a.answered_at, r.id, p.id""",
                team.platform,
                team.team,
                to_ms(since) if since is not None else 0,
            )
        return [
            ResultRecord(
                answered_at=from_ms(int(r["answered_at"])),
                user=str(r["platform_user"]),
                display_name=str(r["display_name"]),
                channel=str(r["channel"]),
                lang=str(r["lang"]),
                question_id=str(r["question_id"]),
                seed=int(r["seed"]),
                choice=int(r["choice"]),
                correct=bool(r["correct"]),
                points=int(r["points"]),
                typed=None if r["typed"] is None else str(r["typed"]),
            )
            for r in found
        ]
