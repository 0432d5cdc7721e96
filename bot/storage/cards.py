"""Personal review cards, one per (player, question): the scheduler's serialized state and when
the card is due. Storage only keeps and counts them; the core (bot/review.py) schedules them.

Cards change in the answers' group commit (answers.py): the batch's recorded answers load their
cards in one read and store the next states in one prepared statement, so a card never misses
an answer that was acknowledged, and a second click never reschedules it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

from bot.model import UserRef
from bot.periods import from_ms, to_ms
from bot.storage.engine import Conn, Engine, values_rows
from bot.storage.records import CardState

Key = tuple[int, str]  # (player id, question id)

UPSERT = """INSERT INTO cards (player_id, question_id, state, due_at, last_review_at, missed_at)
    VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (player_id, question_id) DO UPDATE SET
        state = excluded.state, due_at = excluded.due_at,
        last_review_at = excluded.last_review_at, missed_at = excluded.missed_at"""


def _missed_at(card: CardState) -> int | None:
    """When the card was missed (its last answer wrong); NULL once answered right."""
    return to_ms(card.last_review_at) if card.missed else None


async def load(conn: Conn, keys: Iterable[Key]) -> dict[Key, str]:
    """The stored states of these cards (absent: never answered). A join from the keys, not
    `(a, b) IN (VALUES …)`: SQLite answers that by scanning every card."""
    wanted = sorted(set(keys))
    if not wanted:
        return {}
    values = values_rows(conn.dialect, len(wanted), ("bigint", "text"))
    rows = await conn.fetch(
        f"""SELECT c.player_id, c.question_id, c.state
            FROM (VALUES {values}) AS v
            JOIN cards c ON c.player_id = v.column1 AND c.question_id = v.column2""",
        *[v for key in wanted for v in key],
    )
    return {(int(r["player_id"]), str(r["question_id"])): str(r["state"]) for r in rows}


async def save(conn: Conn, cards: dict[Key, CardState]) -> None:
    """Store the cards' new states, in key order (two replicas lock rows in the same order)."""
    await conn.executemany(
        UPSERT,
        [
            (player, question, c.state, to_ms(c.due_at), to_ms(c.last_review_at), _missed_at(c))
            for (player, question), c in sorted(cards.items())
        ],
    )


class CardTable:
    def __init__(self, engine: Engine) -> None:
        self._e = engine

    async def due_counts(self, user: UserRef, *instants: datetime) -> list[int]:
        """How many of the person's cards are due by each instant (in this team)."""
        if not instants:
            return []
        sums = ", ".join(
            f"COALESCE(SUM(CASE WHEN c.due_at <= ${n + 4} THEN 1 ELSE 0 END), 0)"
            for n in range(len(instants))
        )
        async with self._e.snapshot() as conn:
            row = (
                await conn.fetch(
                    f"""SELECT {sums} FROM cards c
                        JOIN players p ON p.id = c.player_id JOIN teams t ON t.id = p.team_id
                        WHERE t.platform = $1 AND t.team = $2 AND p.platform_user = $3""",
                    user.platform,
                    user.team,
                    user.user,
                    *[to_ms(at) for at in instants],
                )
            )[0]
        return [int(row[n]) for n in range(len(instants))]

    async def due_at(self, user: UserRef, question_id: str) -> datetime | None:
        """When the person's card for this question is due (None: never answered it)."""
        async with self._e.snapshot() as conn:
            value = await conn.fetchval(
                """SELECT c.due_at FROM cards c
                   JOIN players p ON p.id = c.player_id JOIN teams t ON t.id = p.team_id
                   WHERE t.platform = $1 AND t.team = $2 AND p.platform_user = $3
                     AND c.question_id = $4""",
                user.platform,
                user.team,
                user.user,
                question_id,
            )
        return None if value is None else from_ms(int(value))

    # -- the personal review (bot/reviewing.py) ---------------------------------------------------
    async def of(self, user: UserRef) -> list[tuple[str, datetime]]:
        """All the person's cards (question id, due), soonest (most overdue) first."""
        async with self._e.snapshot() as conn:
            rows = await conn.fetch(
                f"""SELECT c.question_id, c.due_at FROM cards c {_MINE}
                    ORDER BY c.due_at, c.question_id""",
                user.platform,
                user.team,
                user.user,
            )
        return [(str(r["question_id"]), from_ms(int(r["due_at"]))) for r in rows]

    async def review(
        self, user: UserRef, question_id: str, stamp: int, rule: Callable[[str], CardState]
    ) -> bool:
        """Reschedule the card with `rule(state)` only if it is still due at `stamp` (the due
        time, in ms, the review showed): a second click finds it moved and changes nothing."""
        async with self._e.transaction() as conn:
            row = await conn.fetchrow(
                f"""SELECT c.player_id, c.state, c.due_at FROM cards c {_MINE}
                    AND c.question_id = $4""",
                user.platform,
                user.team,
                user.user,
                question_id,
            )
            if row is None or int(row["due_at"]) != stamp:
                return False
            card = rule(str(row["state"]))
            changed = await conn.execute(
                """UPDATE cards SET state = $1, due_at = $2, last_review_at = $3, missed_at = $4
                   WHERE player_id = $5 AND question_id = $6 AND due_at = $7""",
                card.state,
                to_ms(card.due_at),
                to_ms(card.last_review_at),
                _missed_at(card),
                int(row["player_id"]),
                question_id,
                stamp,
            )
            return changed > 0

    async def missed(self, user: UserRef) -> list[tuple[str, datetime, datetime]]:
        """The person's missed questions in this team (last answered wrong, in a round, a review
        or a drill), most recently missed first: (question id, missed at, due at)."""
        async with self._e.reader() as conn:
            rows = await conn.fetch(
                f"""SELECT c.question_id, c.missed_at, c.due_at FROM cards c {_MINE}
                    AND c.missed_at IS NOT NULL
                    ORDER BY c.missed_at DESC, c.question_id""",
                user.platform,
                user.team,
                user.user,
            )
        return [
            (str(r["question_id"]), from_ms(int(r["missed_at"])), from_ms(int(r["due_at"])))
            for r in rows
        ]


_MINE = """JOIN players p ON p.id = c.player_id JOIN teams t ON t.id = p.team_id
    WHERE t.platform = $1 AND t.team = $2 AND p.platform_user = $3"""
