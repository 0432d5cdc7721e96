"""SQL for teams, channels, players, runs, rounds and answers. Functions take an open Tx."""

from __future__ import annotations

from dataclasses import dataclass

from bot.model import ChannelRef, Lang, TeamRef, UserRef
from bot.storage.db import Row, Tx


@dataclass(frozen=True)
class RoundRow:
    id: int
    channel_id: int
    platform: str
    team: str
    channel: str
    lang: Lang
    question_id: str
    seed: int
    kind: str
    run_id: int | None
    run_index: int | None
    run_total: int | None
    opened_at: int
    deadline_at: int
    closed_at: int | None
    revealed_at: int | None
    message_ref: str | None

    @property
    def channel_ref(self) -> ChannelRef:
        return ChannelRef(self.platform, self.team, self.channel)

    def is_open(self, now_ms: int) -> bool:
        return self.closed_at is None and now_ms < self.deadline_at


ROUND_SELECT = """
    SELECT r.id, r.channel_id, t.platform, t.team, c.channel, c.lang, r.question_id, r.seed, r.kind,
           r.run_id, r.run_index, u.total AS run_total, r.opened_at, r.deadline_at, r.closed_at,
           r.revealed_at, r.message_ref
    FROM rounds r
    JOIN channels c ON c.id = r.channel_id
    JOIN teams t ON t.id = c.team_id
    LEFT JOIN runs u ON u.id = r.run_id
"""


def _round(row: Row) -> RoundRow:
    return RoundRow(**{k: row[k] for k in row.keys()})  # noqa: SIM118 - sqlite3.Row


async def team_id(tx: Tx, team: TeamRef) -> int:
    row = await tx.fetchone(
        """INSERT INTO teams (platform, team) VALUES (?, ?)
           ON CONFLICT (platform, team) DO UPDATE SET team = excluded.team RETURNING id""",
        (team.platform, team.team),
    )
    assert row is not None
    return int(row["id"])


async def channel_id(tx: Tx, channel: ChannelRef) -> int:
    tid = await team_id(tx, TeamRef(channel.platform, channel.team))
    await tx.execute(
        "INSERT INTO channels (team_id, channel) VALUES (?, ?) ON CONFLICT DO NOTHING",
        (tid, channel.channel),
    )
    row = await tx.fetchone(
        "SELECT id FROM channels WHERE team_id = ? AND channel = ?", (tid, channel.channel)
    )
    assert row is not None
    return int(row["id"])


async def player_id(tx: Tx, user: UserRef) -> int:
    """The player's id, created on first sight; a non-empty new display name is kept."""
    tid = await team_id(tx, TeamRef(user.platform, user.team))
    row = await tx.fetchone(
        """INSERT INTO players (team_id, user, display_name) VALUES (?, ?, ?)
           ON CONFLICT (team_id, user) DO UPDATE SET display_name =
               CASE WHEN excluded.display_name != '' THEN excluded.display_name
                    ELSE display_name END
           RETURNING id""",
        (tid, user.user, user.display_name),
    )
    assert row is not None
    return int(row["id"])


async def channel_lang(tx: Tx, channel: ChannelRef) -> Lang:
    row = await tx.fetchone(
        """SELECT c.lang FROM channels c JOIN teams t ON t.id = c.team_id
           WHERE t.platform = ? AND t.team = ? AND c.channel = ?""",
        (channel.platform, channel.team, channel.channel),
    )
    return "id" if row is not None and row["lang"] == "id" else "en"


async def team_tz(tx: Tx, team: TeamRef) -> str:
    row = await tx.fetchone(
        "SELECT tz FROM teams WHERE platform = ? AND team = ?", (team.platform, team.team)
    )
    return str(row["tz"]) if row is not None else "UTC"


async def get_round(tx: Tx, round_id: int) -> RoundRow | None:
    row = await tx.fetchone(ROUND_SELECT + " WHERE r.id = ?", (round_id,))
    return _round(row) if row is not None else None


async def rounds_where(tx: Tx, where: str, params: tuple[object, ...] = ()) -> list[RoundRow]:
    return [_round(r) for r in await tx.fetchall(f"{ROUND_SELECT} WHERE {where}", params)]


async def insert_round(
    tx: Tx,
    *,
    channel_id: int,
    question_id: str,
    seed: int,
    kind: str,
    opened_at: int,
    deadline_at: int,
    run_id: int | None = None,
    run_index: int | None = None,
) -> int | None:
    """Insert a round; None if this run already has a round at that index (another process won)."""
    count, rowid = await tx.execute(
        """INSERT INTO rounds (channel_id, question_id, seed, kind, opened_at, deadline_at,
                               run_id, run_index)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING""",
        (channel_id, question_id, seed, kind, opened_at, deadline_at, run_id, run_index),
    )
    return rowid if count == 1 else None


async def question_use_counts(tx: Tx, channel_id: int) -> dict[str, int]:
    rows = await tx.fetchall(
        "SELECT question_id, COUNT(*) AS n FROM rounds WHERE channel_id = ? GROUP BY question_id",
        (channel_id,),
    )
    return {str(r["question_id"]): int(r["n"]) for r in rows}


async def answer_counts(tx: Tx, round_id: int) -> dict[int, int]:
    rows = await tx.fetchall(
        "SELECT option, COUNT(*) AS n FROM answers WHERE round_id = ? GROUP BY option", (round_id,)
    )
    return {int(r["option"]): int(r["n"]) for r in rows}


async def total_answers(tx: Tx, round_id: int) -> int:
    row = await tx.fetchone("SELECT COUNT(*) AS n FROM answers WHERE round_id = ?", (round_id,))
    return int(row["n"]) if row else 0


async def existing_answer(tx: Tx, round_id: int, player: int) -> int | None:
    row = await tx.fetchone(
        "SELECT option FROM answers WHERE round_id = ? AND player_id = ?", (round_id, player)
    )
    return int(row["option"]) if row is not None else None


# Recorded only while the round is open at that instant, and once per (round, player): the
# database decides, so concurrent clicks, retries and a second instance cannot count twice.
INSERT_ANSWER = """
    INSERT INTO answers (round_id, player_id, option, correct, points, answered_at)
    SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (
        SELECT 1 FROM rounds WHERE id = ? AND closed_at IS NULL AND deadline_at > ?)
    ON CONFLICT (round_id, player_id) DO NOTHING
"""


def answer_params(
    *, round_id: int, player: int, option: int, correct: bool, points: int, at: int
) -> tuple[int, ...]:
    return (round_id, player, option, int(correct), points, at, round_id, at)


async def insert_answer(
    tx: Tx, *, round_id: int, player: int, option: int, correct: bool, points: int, at: int
) -> bool:
    """Record an answer only while the round is open; False if closed or already answered."""
    params = answer_params(
        round_id=round_id, player=player, option=option, correct=correct, points=points, at=at
    )
    count, _ = await tx.execute(INSERT_ANSWER, params)
    return count == 1


async def fastest_correct(tx: Tx, round_id: int) -> tuple[str, int] | None:
    row = await tx.fetchone(
        """SELECT p.user, p.display_name, a.answered_at - r.opened_at AS ms
           FROM answers a JOIN players p ON p.id = a.player_id JOIN rounds r ON r.id = a.round_id
           WHERE a.round_id = ? AND a.correct = 1
           ORDER BY a.answered_at, p.user LIMIT 1""",
        (round_id,),
    )
    if row is None:
        return None
    return (str(row["display_name"] or row["user"]), int(row["ms"]))


async def mark_closed(tx: Tx, round_id: int, at: int, reason: str) -> bool:
    count, _ = await tx.execute(
        "UPDATE rounds SET closed_at = ?, close_reason = ? WHERE id = ? AND closed_at IS NULL",
        (at, reason, round_id),
    )
    return count == 1
