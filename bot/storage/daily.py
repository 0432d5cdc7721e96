"""SQL for daily schedules and their per-day postings (claims)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, time

from bot.daily.spec import days_from_code
from bot.model import ChannelRef, Lang
from bot.storage.db import Row, Tx


@dataclass(frozen=True)
class ScheduleRow:
    id: int
    channel_id: int
    platform: str
    team: str
    channel: str
    lang: Lang
    at: time
    tz: str
    days: frozenset[int]
    window_ms: int
    grace_ms: int
    updated_at: int

    @property
    def channel_ref(self) -> ChannelRef:
        return ChannelRef(self.platform, self.team, self.channel)


@dataclass(frozen=True)
class PostingRow:
    status: str
    claim_token: str
    claimed_at: int
    round_id: int | None


SCHEDULE_SELECT = """
    SELECT s.id, s.channel_id, t.platform, t.team, c.channel, c.lang, s.local_time, s.tz, s.days,
           s.window_ms, s.grace_ms, s.updated_at
    FROM schedules s JOIN channels c ON c.id = s.channel_id JOIN teams t ON t.id = c.team_id
"""


def _schedule(row: Row) -> ScheduleRow:
    hh, mm = str(row["local_time"]).split(":")
    return ScheduleRow(
        id=int(row["id"]),
        channel_id=int(row["channel_id"]),
        platform=str(row["platform"]),
        team=str(row["team"]),
        channel=str(row["channel"]),
        lang="id" if row["lang"] == "id" else "en",
        at=time(int(hh), int(mm)),
        tz=str(row["tz"]),
        days=days_from_code(str(row["days"])),
        window_ms=int(row["window_ms"]),
        grace_ms=int(row["grace_ms"]),
        updated_at=int(row["updated_at"]),
    )


async def active_schedules(tx: Tx) -> list[ScheduleRow]:
    return [_schedule(r) for r in await tx.fetchall(SCHEDULE_SELECT + " WHERE s.active = 1")]


async def channel_schedule(tx: Tx, channel_id: int) -> ScheduleRow | None:
    row = await tx.fetchone(
        SCHEDULE_SELECT + " WHERE s.active = 1 AND s.channel_id = ?", (channel_id,)
    )
    return _schedule(row) if row is not None else None


async def upsert_schedule(
    tx: Tx,
    *,
    channel_id: int,
    at: time,
    tz: str,
    days: str,
    window_ms: int,
    grace_ms: int,
    now: int,
) -> None:
    await tx.execute(
        """INSERT INTO schedules (channel_id, local_time, tz, days, window_ms, grace_ms, active,
                                  updated_at)
           VALUES (?, ?, ?, ?, ?, ?, 1, ?)
           ON CONFLICT (channel_id) DO UPDATE SET local_time = excluded.local_time,
               tz = excluded.tz, days = excluded.days, window_ms = excluded.window_ms,
               grace_ms = excluded.grace_ms, active = 1, updated_at = excluded.updated_at""",
        (channel_id, at.strftime("%H:%M"), tz, days, window_ms, grace_ms, now),
    )


async def deactivate(tx: Tx, channel_id: int, now: int) -> bool:
    count, _ = await tx.execute(
        "UPDATE schedules SET active = 0, updated_at = ? WHERE channel_id = ? AND active = 1",
        (now, channel_id),
    )
    return count == 1


async def posting(tx: Tx, schedule_id: int, day: date) -> PostingRow | None:
    row = await tx.fetchone(
        """SELECT status, claim_token, claimed_at, round_id FROM daily_posts
           WHERE schedule_id = ? AND local_date = ?""",
        (schedule_id, day.isoformat()),
    )
    if row is None:
        return None
    return PostingRow(
        status=str(row["status"]),
        claim_token=str(row["claim_token"]),
        claimed_at=int(row["claimed_at"]),
        round_id=int(row["round_id"]) if row["round_id"] is not None else None,
    )


async def claim(
    tx: Tx,
    schedule_id: int,
    day: date,
    token: str,
    now: int,
    status: str = "claimed",
    detail: str | None = None,
) -> bool:
    """Claim (or record as skipped) one schedule's day; False if anyone claimed it before."""
    count, _ = await tx.execute(
        """INSERT INTO daily_posts
               (schedule_id, local_date, status, claim_token, claimed_at, detail)
           VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING""",
        (schedule_id, day.isoformat(), status, token, now, detail),
    )
    return count == 1


async def take_over(tx: Tx, schedule_id: int, day: date, old: str, new: str, now: int) -> bool:
    """Take over a claim a crashed process left unfinished; only one taker can win."""
    count, _ = await tx.execute(
        """UPDATE daily_posts SET claim_token = ?, claimed_at = ?
           WHERE schedule_id = ? AND local_date = ? AND claim_token = ? AND status = 'claimed'""",
        (new, now, schedule_id, day.isoformat(), old),
    )
    return count == 1


async def finish(
    tx: Tx,
    schedule_id: int,
    day: date,
    token: str,
    status: str,
    *,
    round_id: int | None = None,
    detail: str | None = None,
) -> None:
    await tx.execute(
        """UPDATE daily_posts SET status = ?, round_id = COALESCE(?, round_id),
               detail = COALESCE(?, detail)
           WHERE schedule_id = ? AND local_date = ? AND claim_token = ?""",
        (status, round_id, detail, schedule_id, day.isoformat(), token),
    )


async def stale_claims(tx: Tx, before: int) -> list[tuple[int, date, str]]:
    rows = await tx.fetchall(
        """SELECT p.schedule_id, p.local_date, p.claim_token FROM daily_posts p
           JOIN schedules s ON s.id = p.schedule_id
           WHERE p.status = 'claimed' AND p.claimed_at <= ?""",
        (before,),
    )
    return [
        (int(r["schedule_id"]), date.fromisoformat(str(r["local_date"])), str(r["claim_token"]))
        for r in rows
    ]


async def oldest_claim(tx: Tx) -> int | None:
    row = await tx.fetchone("SELECT MIN(claimed_at) AS m FROM daily_posts WHERE status = 'claimed'")
    return int(row["m"]) if row is not None and row["m"] is not None else None


async def daily_history(tx: Tx, channel_id: int, limit: int = 60) -> list[dict[str, str]]:
    """Who answered right in each of the channel's latest closed daily rounds, newest first
    (user id -> display name per round)."""
    rows = await tx.fetchall(
        """WITH recent AS (
               SELECT id, opened_at FROM rounds
               WHERE channel_id = ? AND kind = 'daily' AND closed_at IS NOT NULL
                 AND close_reason != 'undelivered'
               ORDER BY opened_at DESC LIMIT ?)
           SELECT recent.id AS round_id, p.user,
                  COALESCE(NULLIF(p.display_name, ''), p.user) AS name
           FROM recent
           LEFT JOIN answers a ON a.round_id = recent.id AND a.correct = 1
           LEFT JOIN players p ON p.id = a.player_id
           ORDER BY recent.opened_at DESC, recent.id DESC""",
        (channel_id, limit),
    )
    history: list[dict[str, str]] = []
    last: int | None = None
    for r in rows:
        if r["round_id"] != last:
            history.append({})
            last = r["round_id"]
        if r["user"] is not None:
            history[-1][str(r["user"])] = str(r["name"])
    return history
