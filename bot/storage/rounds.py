"""Rounds and runs: opening, posting, closing and revealing, each a named step.

Whether an answer still counts is never decided here from a cached row: the answer INSERT itself
checks that its round is open (see answers.py).
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta

from bot.model import ChannelRef
from bot.periods import from_ms, span_from_ms, span_ms, to_ms
from bot.storage.engine import Conn, Engine, Record
from bot.storage.records import (
    CloseReason,
    OpenCounts,
    RoundKind,
    RoundRecord,
    RunRecord,
    close_reason,
    round_kind,
)

ROUND_SELECT = """
    SELECT r.id, r.channel_id, c.team_id, t.platform, t.team, c.channel, c.lang, r.question_id,
           r.seed, r.kind, r.run_id, r.run_index, u.total AS run_total, r.opened_at,
           r.deadline_at, r.closed_at, r.revealed_at, r.message_ref, r.posted_at, r.close_reason,
           r.claimed_by IS NOT NULL AS post_tried
    FROM rounds r
    JOIN channels c ON c.id = r.channel_id
    JOIN teams t ON t.id = c.team_id
    LEFT JOIN runs u ON u.id = r.run_id
"""


def _when(value: object) -> datetime | None:
    return from_ms(int(str(value))) if value is not None else None


def _round(row: Record) -> RoundRecord:
    return RoundRecord(
        id=int(row["id"]),
        channel_id=int(row["channel_id"]),
        team_id=int(row["team_id"]),
        platform=str(row["platform"]),
        team=str(row["team"]),
        channel=str(row["channel"]),
        lang="id" if row["lang"] == "id" else "en",
        question_id=str(row["question_id"]),
        seed=int(row["seed"]),
        kind=round_kind(row["kind"]),
        run_id=row["run_id"],
        run_index=row["run_index"],
        run_total=row["run_total"],
        opened_at=from_ms(int(row["opened_at"])),
        deadline_at=from_ms(int(row["deadline_at"])),
        closed_at=_when(row["closed_at"]),
        revealed_at=_when(row["revealed_at"]),
        message_ref=row["message_ref"],
        posted_at=_when(row["posted_at"]),
        close_reason=close_reason(row["close_reason"]),
        post_tried=bool(row["post_tried"]),
    )


def _served(platforms: Collection[str], first: int) -> tuple[str, list[str]]:
    """`t.platform IN ($first, ...)` for the platforms this process serves."""
    names = sorted(platforms)
    if not names:
        return "1 = 0", []
    marks = ", ".join(f"${first + n}" for n in range(len(names)))
    return f"t.platform IN ({marks})", names


async def _run_going(tx: Conn, run_id: int) -> bool:
    """Whether the run is unfinished; on PostgreSQL its row stays locked until the caller's
    transaction ends, so a concurrent stop waits and then sees (and closes) the new round."""
    lock = " FOR UPDATE" if tx.dialect == "postgres" else ""
    found = await tx.fetchval(
        f"SELECT 1 FROM runs WHERE id = $1 AND finished_at IS NULL{lock}", run_id
    )
    return found is not None


def _run(row: Record) -> RunRecord:
    return RunRecord(
        id=int(row["id"]),
        window=span_from_ms(int(row["window_ms"])),
        finished=row["finished_at"] is not None,
        started_by=row["started_by"],
        topic=row["topic"],
        level=int(row["level"]) if row["level"] is not None else None,
    )


RUN_SELECT = "SELECT id, window_ms, finished_at, started_by, topic, level FROM runs"


class RoundTable:
    def __init__(self, engine: Engine) -> None:
        self._e = engine

    async def get(self, round_id: int) -> RoundRecord | None:
        async with self._e.snapshot() as c:
            row = await c.fetchrow(ROUND_SELECT + " WHERE r.id = $1", round_id)
        return _round(row) if row is not None else None

    async def _many(self, c: Conn, where: str, *params: object) -> list[RoundRecord]:
        return [_round(r) for r in await c.fetch(f"{ROUND_SELECT} WHERE {where}", *params)]

    async def question_use_counts(self, channel_id: int) -> dict[str, int]:
        async with self._e.snapshot() as c:
            rows = await c.fetch(
                """SELECT question_id, COUNT(*) AS n FROM rounds WHERE channel_id = $1
                   GROUP BY question_id""",
                channel_id,
            )
        return {str(r["question_id"]): int(r["n"]) for r in rows}

    async def insert(
        self,
        *,
        channel_id: int,
        question_id: str,
        seed: int,
        kind: RoundKind,
        opened_at: datetime,
        deadline_at: datetime,
        run_id: int | None = None,
        run_index: int | None = None,
    ) -> RoundRecord | None:
        """Open a round; None if this run already has a round at that index (another won), or
        if the run is finished (stopped by someone, perhaps on another replica)."""
        async with self._e.transaction() as tx:
            if run_id is not None and not await _run_going(tx, run_id):
                return None  # stopped or ended meanwhile: no further question
            rid = await tx.fetchval(
                """INSERT INTO rounds (channel_id, question_id, seed, kind, opened_at, deadline_at,
                                       run_id, run_index)
                   VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING RETURNING id""",
                channel_id, question_id, seed, kind, to_ms(opened_at), to_ms(deadline_at),
                run_id, run_index,
            )  # fmt: skip
            if rid is None:
                return None
            row = await tx.fetchrow(ROUND_SELECT + " WHERE r.id = $1", int(rid))
        assert row is not None
        return _round(row)

    async def open_counts(self, channel_id: int) -> OpenCounts:
        """Open rounds in the channel and its team, read in the caller's transaction. On
        PostgreSQL the team's row stays locked until that transaction ends, so commands opening
        rounds in one team at once count one after another (SQLite has one writer anyway)."""
        async with self._e.transaction() as tx:
            lock = " FOR UPDATE" if tx.dialect == "postgres" else ""
            team_id = await tx.fetchval("SELECT team_id FROM channels WHERE id = $1", channel_id)
            await tx.fetchval(f"SELECT id FROM teams WHERE id = $1{lock}", team_id)
            row = await tx.fetchrow(
                """SELECT COUNT(*) AS n, MIN(deadline_at) AS first FROM rounds
                   WHERE channel_id = $1 AND closed_at IS NULL""",
                channel_id,
            )
            in_team = await tx.fetchval(
                """SELECT COUNT(*) FROM rounds r JOIN channels c ON c.id = r.channel_id
                   WHERE c.team_id = $1 AND r.closed_at IS NULL""",
                team_id,
            )
        assert row is not None
        return OpenCounts(int(row["n"]), int(in_team), _when(row["first"]))

    async def mark_posted(self, round_id: int, at: datetime, ref: str | None) -> None:
        """The question reached the platform (as message `ref`, where it has one)."""
        async with self._e.transaction() as tx:
            await tx.execute(
                """UPDATE rounds SET posted_at = COALESCE(posted_at, $1),
                       message_ref = COALESCE($2, message_ref)
                   WHERE id = $3""",
                to_ms(at), ref, round_id,
            )  # fmt: skip

    async def close(self, round_id: int, at: datetime, reason: CloseReason) -> bool:
        """Close once; False if it was closed already (by a deadline, an admin, a replica)."""
        async with self._e.transaction() as tx:
            changed = await tx.execute(
                """UPDATE rounds SET closed_at = $1, close_reason = $2
                   WHERE id = $3 AND closed_at IS NULL""",
                to_ms(at), reason, round_id,
            )  # fmt: skip
        return changed == 1

    async def close_undelivered(self, round_id: int, at: datetime) -> None:
        """Nobody saw the question: close it, count it as revealed, and end its run."""
        async with self._e.transaction() as tx:
            await tx.execute(
                """UPDATE rounds SET closed_at = COALESCE(closed_at, $1),
                       close_reason = COALESCE(close_reason, 'undelivered'), revealed_at = $1
                   WHERE id = $2""",
                to_ms(at), round_id,
            )  # fmt: skip
            await tx.execute(
                """UPDATE runs SET finished_at = $1
                   WHERE finished_at IS NULL AND id = (SELECT run_id FROM rounds WHERE id = $2)""",
                to_ms(at), round_id,
            )  # fmt: skip

    async def claim(
        self,
        round_id: int,
        holder: str,
        now: datetime,
        lease: timedelta,
        silent_since: datetime | None = None,
    ) -> bool:
        """Take the round's claim (to post or reveal it) unless another holder's is still valid:
        its lease has not run out and it was seen since `silent_since` (bot/liveness.py).
        Compare-and-swap, so of replicas trying at once exactly one gets it."""
        async with self._e.transaction() as tx:
            changed = await tx.execute(
                """UPDATE rounds SET claimed_by = $1, claimed_until = $2
                   WHERE id = $3 AND (claimed_until IS NULL OR claimed_until <= $4
                                      OR claimed_by = $1
                                      OR claimed_by IN (SELECT holder FROM replicas
                                                        WHERE seen_at <= $5))""",
                holder, to_ms(now + lease), round_id, to_ms(now),
                to_ms(silent_since) if silent_since is not None else -1,
            )  # fmt: skip
        return changed == 1

    async def release(self, round_id: int, holder: str) -> None:
        async with self._e.transaction() as tx:
            await tx.execute(
                "UPDATE rounds SET claimed_until = NULL WHERE id = $1 AND claimed_by = $2",
                round_id, holder,
            )  # fmt: skip

    async def take_count_edit(self, round_id: int, now: datetime, interval: timedelta) -> bool:
        """Whether this replica may edit the live count now: at most one edit per interval
        per round, whichever replica makes it."""
        async with self._e.transaction() as tx:
            changed = await tx.execute(
                """UPDATE rounds SET count_edited_at = $1
                   WHERE id = $2 AND (count_edited_at IS NULL OR count_edited_at <= $3)""",
                to_ms(now), round_id, to_ms(now - interval),
            )  # fmt: skip
        return changed == 1

    async def mark_revealed(self, round_id: int, at: datetime) -> None:
        async with self._e.transaction() as tx:
            await tx.execute(
                "UPDATE rounds SET revealed_at = $1 WHERE id = $2 AND revealed_at IS NULL",
                to_ms(at),
                round_id,
            )

    async def in_channel(self, channel: ChannelRef) -> list[RoundRecord]:
        """Every round the channel has had, oldest first (its history, for people and tests)."""
        async with self._e.snapshot() as c:
            return await self._many(
                c,
                "t.platform = $1 AND t.team = $2 AND c.channel = $3 ORDER BY r.id",
                channel.platform, channel.team, channel.channel,
            )  # fmt: skip

    async def latest_open(self, channel: ChannelRef) -> RoundRecord | None:
        async with self._e.snapshot() as c:
            rows = await self._many(
                c,
                """t.platform = $1 AND t.team = $2 AND c.channel = $3 AND r.closed_at IS NULL
                   ORDER BY r.opened_at DESC, r.id DESC LIMIT 1""",
                channel.platform, channel.team, channel.channel,
            )  # fmt: skip
        return rows[0] if rows else None

    async def next_deadline(self, platforms: Collection[str]) -> datetime | None:
        served, names = _served(platforms, 1)
        async with self._e.snapshot() as c:
            found = await c.fetchval(
                f"""SELECT MIN(r.deadline_at) FROM rounds r
                    JOIN channels c ON c.id = r.channel_id JOIN teams t ON t.id = c.team_id
                    WHERE r.closed_at IS NULL AND {served}""",
                *names,
            )
        return _when(found)

    async def unposted(self, platforms: Collection[str]) -> list[RoundRecord]:
        """Open rounds whose question has not reached the platform (a passing failure, or a
        crash between opening and posting), except daily ones: their claim retries those."""
        served, names = _served(platforms, 1)
        async with self._e.snapshot() as c:
            return await self._many(
                c,
                f"""r.posted_at IS NULL AND r.closed_at IS NULL AND r.kind != 'daily'
                    AND {served} ORDER BY r.opened_at""",
                *names,
            )

    async def due_work(
        self, now: datetime, platforms: Collection[str]
    ) -> tuple[list[RoundRecord], list[RoundRecord], list[RoundRecord]]:
        """Rounds past their deadline, closed but unrevealed, and the last closed round of each
        unfinished run (a run a crash left between two questions) — of the served platforms."""
        served, names = _served(platforms, 2)
        async with self._e.snapshot() as c:
            overdue = await self._many(
                c,
                f"r.closed_at IS NULL AND r.deadline_at <= $1 AND {served} ORDER BY r.deadline_at",
                to_ms(now), *names,
            )  # fmt: skip
            served1, _ = _served(platforms, 1)
            unrevealed = await self._many(
                c,
                f"""r.closed_at IS NOT NULL AND r.revealed_at IS NULL AND {served1}
                    ORDER BY r.closed_at""",
                *names,
            )
            stalled = await self._many(
                c,
                f"""r.run_id IS NOT NULL AND r.closed_at IS NOT NULL AND u.finished_at IS NULL
                    AND r.run_index = (SELECT MAX(run_index) FROM rounds WHERE run_id = r.run_id)
                    AND {served1}""",
                *names,
            )
        return overdue, unrevealed, stalled

    # -- runs ---------------------------------------------------------------------------------
    async def start_run(
        self,
        channel_id: int,
        total: int,
        window: timedelta,
        at: datetime,
        *,
        started_by: str | None = None,
        topic: str | None = None,
        level: int | None = None,
    ) -> int | None:
        """A new run, with who started it and its filter; None while the channel has an
        unfinished one."""
        async with self._e.transaction() as tx:
            busy = await tx.fetchval(
                "SELECT 1 FROM runs WHERE channel_id = $1 AND finished_at IS NULL", channel_id
            )
            if busy is not None:
                return None
            rid = await tx.fetchval(
                """INSERT INTO runs (channel_id, total, window_ms, started_at, started_by, topic,
                                     level)
                   VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id""",
                channel_id, total, span_ms(window), to_ms(at), started_by, topic, level,
            )  # fmt: skip
        return int(rid)

    async def run(self, run_id: int) -> RunRecord | None:
        async with self._e.snapshot() as c:
            row = await c.fetchrow(RUN_SELECT + " WHERE id = $1", run_id)
        return _run(row) if row is not None else None

    async def unfinished_run(self, channel_id: int) -> RunRecord | None:
        """The channel's run in progress, if any (at most one: start_run sees to that)."""
        async with self._e.snapshot() as c:
            row = await c.fetchrow(
                RUN_SELECT + " WHERE channel_id = $1 AND finished_at IS NULL ORDER BY id DESC",
                channel_id,
            )
        return _run(row) if row is not None else None

    async def open_in_run(self, run_id: int) -> list[RoundRecord]:
        """The run's rounds still open (normally one), oldest first."""
        async with self._e.snapshot() as c:
            return await self._many(
                c, "r.run_id = $1 AND r.closed_at IS NULL ORDER BY r.id", run_id
            )

    async def finish_run(self, run_id: int, at: datetime) -> bool:
        async with self._e.transaction() as tx:
            changed = await tx.execute(
                "UPDATE runs SET finished_at = $1 WHERE id = $2 AND finished_at IS NULL",
                to_ms(at),
                run_id,
            )
        return changed == 1

    async def abandon_runs(self, channel_id: int, at: datetime) -> None:
        """End the channel's unfinished run and close its open rounds without revealing them."""
        async with self._e.transaction() as tx:
            await tx.execute(
                "UPDATE runs SET finished_at = $1 WHERE channel_id = $2 AND finished_at IS NULL",
                to_ms(at), channel_id,
            )  # fmt: skip
            await tx.execute(
                """UPDATE rounds SET closed_at = $1, close_reason = 'abandoned', revealed_at = $1
                   WHERE channel_id = $2 AND closed_at IS NULL AND run_id IS NOT NULL""",
                to_ms(at), channel_id,
            )  # fmt: skip

    # -- what a round's answers add up to -------------------------------------------------------
    async def answer_counts(self, round_id: int) -> dict[int, int]:
        async with self._e.snapshot() as c:
            rows = await c.fetch(
                "SELECT choice, COUNT(*) AS n FROM answers WHERE round_id = $1 GROUP BY choice",
                round_id,
            )
        return {int(r["choice"]): int(r["n"]) for r in rows}

    async def typed_counts(self, round_id: int) -> tuple[int, int]:
        """(answers typed, of those right) in the round."""
        async with self._e.snapshot() as c:
            row = await c.fetchrow(
                """SELECT COUNT(*) AS n, COALESCE(SUM(correct), 0) AS right_n FROM answers
                   WHERE round_id = $1 AND typed IS NOT NULL""",
                round_id,
            )
        return (int(row["n"]), int(row["right_n"])) if row is not None else (0, 0)

    async def total_answers(self, round_id: int) -> int:
        async with self._e.snapshot() as c:
            return int(
                await c.fetchval("SELECT COUNT(*) FROM answers WHERE round_id = $1", round_id)
            )

    async def fastest_correct(self, round_id: int) -> tuple[str, int] | None:
        """(name, milliseconds after opening) of the first right answer."""
        async with self._e.snapshot() as c:
            row = await c.fetchrow(
                """SELECT p.platform_user, p.display_name, a.answered_at - r.opened_at AS ms
                   FROM answers a JOIN players p ON p.id = a.player_id
                   JOIN rounds r ON r.id = a.round_id
                   WHERE a.round_id = $1 AND a.correct = 1
                   ORDER BY a.answered_at, p.platform_user LIMIT 1""",
                round_id,
            )
        if row is None:
            return None
        return (str(row["display_name"] or row["platform_user"]), int(row["ms"]))
