"""Daily schedules and their per-day postings (claims, unique per schedule and local date)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta

from bot.daily.spec import days_from_code
from bot.periods import from_ms, span_from_ms, span_ms, to_ms
from bot.storage.engine import Engine, Record
from bot.storage.records import (
    PostingRecord,
    PostingStatus,
    ScheduleRecord,
    StaleClaim,
    posting_status,
)
from bot.storage.replicas import SILENT_HOLDER, last_beat_of_holders

SCHEDULE_SELECT = """
    SELECT s.id, s.channel_id, t.platform, t.team, c.channel, c.lang, s.local_time, s.tz, s.days,
           s.window_ms, s.grace_ms, s.updated_at, s.topics, s.adaptive
    FROM schedules s JOIN channels c ON c.id = s.channel_id JOIN teams t ON t.id = c.team_id
"""


def _schedule(row: Record) -> ScheduleRecord:
    hh, mm = str(row["local_time"]).split(":")
    return ScheduleRecord(
        id=int(row["id"]),
        channel_id=int(row["channel_id"]),
        platform=str(row["platform"]),
        team=str(row["team"]),
        channel=str(row["channel"]),
        lang="id" if row["lang"] == "id" else "en",
        at=time(int(hh), int(mm)),
        tz=str(row["tz"]),
        days=days_from_code(str(row["days"])),
        window=span_from_ms(int(row["window_ms"])),
        grace=span_from_ms(int(row["grace_ms"])),
        updated_at=from_ms(int(row["updated_at"])),
        topics=tuple(word for word in str(row["topics"] or "").split(",") if word),
        adaptive=bool(row["adaptive"]),
    )


class DailyTable:
    def __init__(self, engine: Engine) -> None:
        self._e = engine

    async def active_schedules(self) -> list[ScheduleRecord]:
        async with self._e.snapshot() as c:
            rows = await c.fetch(SCHEDULE_SELECT + " WHERE s.active = 1")
        return [_schedule(r) for r in rows]

    async def team_schedules(self, platform: str, team: str) -> list[ScheduleRecord]:
        """The active schedules of a team's channels, in channel order."""
        async with self._e.snapshot() as c:
            rows = await c.fetch(
                SCHEDULE_SELECT
                + " WHERE s.active = 1 AND t.platform = $1 AND t.team = $2 ORDER BY c.channel",
                platform,
                team,
            )
        return [_schedule(r) for r in rows]

    async def channel_schedule(self, channel_id: int) -> ScheduleRecord | None:
        async with self._e.snapshot() as c:
            row = await c.fetchrow(
                SCHEDULE_SELECT + " WHERE s.active = 1 AND s.channel_id = $1", channel_id
            )
        return _schedule(row) if row is not None else None

    async def team_schedule_count(self, channel_id: int) -> tuple[int, bool]:
        """(active schedules in the channel's team, whether this channel has one of them), read
        in the caller's transaction, so a cap on them holds against commands at once."""
        async with self._e.transaction() as tx:
            if tx.dialect == "postgres":  # schedules set in one team at once count in turn
                await tx.fetchval(
                    """SELECT t.id FROM teams t JOIN channels c ON c.team_id = t.id
                       WHERE c.id = $1 FOR UPDATE OF t""",
                    channel_id,
                )
            row = await tx.fetchrow(
                """SELECT COUNT(*) AS n,
                          COALESCE(SUM(CASE WHEN s.channel_id = $1 THEN 1 ELSE 0 END), 0) AS here
                   FROM schedules s JOIN channels c ON c.id = s.channel_id
                   WHERE s.active = 1
                     AND c.team_id = (SELECT team_id FROM channels WHERE id = $1)""",
                channel_id,
            )
        assert row is not None
        return int(row["n"]), int(row["here"]) > 0

    async def upsert_schedule(
        self,
        *,
        channel_id: int,
        at: time,
        tz: str,
        days: str,
        window: timedelta,
        grace: timedelta,
        now: datetime,
        topics: tuple[str, ...] = (),
        adaptive: bool = False,
    ) -> None:
        async with self._e.transaction() as tx:
            await tx.execute(
                """INSERT INTO schedules (channel_id, local_time, tz, days, window_ms, grace_ms,
                                          active, updated_at, topics, adaptive)
                   VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $8, $9)
                   ON CONFLICT (channel_id) DO UPDATE SET local_time = excluded.local_time,
                       tz = excluded.tz, days = excluded.days, window_ms = excluded.window_ms,
                       grace_ms = excluded.grace_ms, active = 1,
                       updated_at = excluded.updated_at, topics = excluded.topics,
                       adaptive = excluded.adaptive""",
                channel_id, at.strftime("%H:%M"), tz, days, span_ms(window), span_ms(grace),
                to_ms(now), ",".join(topics), int(adaptive),
            )  # fmt: skip

    async def deactivate(self, channel_id: int, now: datetime) -> bool:
        async with self._e.transaction() as tx:
            changed = await tx.execute(
                """UPDATE schedules SET active = 0, updated_at = $1
                   WHERE channel_id = $2 AND active = 1""",
                to_ms(now), channel_id,
            )  # fmt: skip
        return changed == 1

    async def deactivate_team(self, platform: str, team: str, now: datetime) -> int:
        """Stop every active schedule in a team's channels; returns how many were stopped."""
        async with self._e.transaction() as tx:
            return await tx.execute(
                """UPDATE schedules SET active = 0, updated_at = $1
                   WHERE active = 1 AND channel_id IN (
                       SELECT c.id FROM channels c JOIN teams t ON t.id = c.team_id
                       WHERE t.platform = $2 AND t.team = $3)""",
                to_ms(now), platform, team,
            )  # fmt: skip

    async def posting(self, schedule_id: int, day: date) -> PostingRecord | None:
        async with self._e.snapshot() as c:
            row = await c.fetchrow(
                """SELECT status, claim_token, claimed_at, round_id FROM daily_posts
                   WHERE schedule_id = $1 AND local_date = $2""",
                schedule_id,
                day.isoformat(),
            )
        if row is None:
            return None
        return PostingRecord(
            status=posting_status(row["status"]),
            claim_token=str(row["claim_token"]),
            claimed_at=from_ms(int(row["claimed_at"])),
            round_id=int(row["round_id"]) if row["round_id"] is not None else None,
        )

    async def claim(
        self,
        schedule_id: int,
        day: date,
        token: str,
        now: datetime,
        status: PostingStatus = "claimed",
        detail: str | None = None,
    ) -> bool:
        """Claim (or record as skipped) one schedule's day; False if anyone claimed it before."""
        async with self._e.transaction() as tx:
            changed = await tx.execute(
                """INSERT INTO daily_posts
                       (schedule_id, local_date, status, claim_token, claimed_at, detail)
                   VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING""",
                schedule_id, day.isoformat(), status, token, to_ms(now), detail,
            )  # fmt: skip
        return changed == 1

    async def take_over(
        self, schedule_id: int, day: date, old: str, new: str, now: datetime
    ) -> bool:
        """Take over a claim a crashed process left unfinished; only one taker can win."""
        async with self._e.transaction() as tx:
            changed = await tx.execute(
                """UPDATE daily_posts SET claim_token = $1, claimed_at = $2
                   WHERE schedule_id = $3 AND local_date = $4 AND claim_token = $5
                     AND status = 'claimed'""",
                new, to_ms(now), schedule_id, day.isoformat(), old,
            )  # fmt: skip
        return changed == 1

    async def finish(
        self,
        schedule_id: int,
        day: date,
        token: str,
        status: PostingStatus,
        *,
        round_id: int | None = None,
        detail: str | None = None,
    ) -> None:
        async with self._e.transaction() as tx:
            await tx.execute(
                """UPDATE daily_posts SET status = $1, round_id = COALESCE($2, round_id),
                       detail = COALESCE($3, detail)
                   WHERE schedule_id = $4 AND local_date = $5 AND claim_token = $6""",
                status, round_id, detail, schedule_id, day.isoformat(), token,
            )  # fmt: skip

    async def stale_claims(
        self,
        before: datetime,
        own: str = "",
        started: datetime | None = None,
        silent_since: datetime | None = None,
    ) -> list[StaleClaim]:
        """Claims left unfinished since before `before` (their holder died), those whose token
        starts with `own` made before `started` (this replica's before it restarted), and those
        whose holder has not been seen since `silent_since` (bot/liveness.py)."""
        async with self._e.snapshot() as c:
            rows = await c.fetch(
                f"""SELECT p.schedule_id, p.local_date, p.claim_token FROM daily_posts p
                   JOIN schedules s ON s.id = p.schedule_id
                   WHERE p.status = 'claimed' AND (p.claimed_at <= $1
                       OR ($2 != '' AND substr(p.claim_token, 1, length($2)) = $2
                           AND p.claimed_at < $3)
                       OR {SILENT_HOLDER.format(bound="$4")})""",
                to_ms(before),
                own,
                to_ms(started or before),
                to_ms(silent_since) if silent_since is not None else -1,
            )
        return [
            StaleClaim(
                int(r["schedule_id"]),
                date.fromisoformat(str(r["local_date"])),
                str(r["claim_token"]),
            )
            for r in rows
        ]

    async def oldest_claim(self) -> datetime | None:
        async with self._e.snapshot() as c:
            found = await c.fetchval(
                "SELECT MIN(claimed_at) FROM daily_posts WHERE status = 'claimed'"
            )
        return from_ms(int(found)) if found is not None else None

    async def holders_last_beat(self, own: str) -> datetime | None:
        """The earliest last beat of another replica holding a claim (bot/liveness.py)."""
        async with self._e.snapshot() as c:
            return await last_beat_of_holders(c, "daily_posts", own)

    async def history(self, channel_id: int, limit: int = 60) -> list[dict[str, str]]:
        """Who answered right in each of the channel's latest closed daily rounds, newest first
        (platform user id -> display name per round)."""
        async with self._e.snapshot() as c:
            rows = await c.fetch(
                """WITH recent AS (
                       SELECT id, opened_at FROM rounds
                       WHERE channel_id = $1 AND kind = 'daily' AND closed_at IS NOT NULL
                         AND close_reason != 'undelivered'
                       ORDER BY opened_at DESC LIMIT $2)
                   SELECT recent.id AS round_id, p.platform_user,
                          COALESCE(NULLIF(p.display_name, ''), p.platform_user) AS name
                   FROM recent
                   LEFT JOIN answers a ON a.round_id = recent.id AND a.correct = 1
                   LEFT JOIN players p ON p.id = a.player_id
                   ORDER BY recent.opened_at DESC, recent.id DESC""",
                channel_id,
                limit,
            )
        history: list[dict[str, str]] = []
        last: int | None = None
        for r in rows:
            if r["round_id"] != last:
                history.append({})
                last = r["round_id"]
            if r["platform_user"] is not None:
                history[-1][str(r["platform_user"])] = str(r["name"])
        return history
