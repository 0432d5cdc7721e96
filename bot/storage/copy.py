"""Copying one ZeroQuiz database into another (SQLite → PostgreSQL, or back), verified by counts.

Both ends are opened as Stores, so both are checked and migrated to this release's schema first.
The destination must be empty: a copy never merges two histories. Rows keep their ids, so every
reference (answers → rounds → channels → teams) stays true; PostgreSQL's id sequences are then
moved past the copied ids. Claims on rounds are not copied: they belong to running replicas;
nor are OAuth states (minutes-long, for one install in progress).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bot.storage.engine import Conn, Engine

BATCH = 1000

# In dependency order; each with the columns of the current schema.
TABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("teams", ("id", "platform", "team", "tz")),
    ("channels", ("id", "team_id", "channel", "lang")),
    ("players", ("id", "team_id", "platform_user", "display_name")),
    ("runs", ("id", "channel_id", "total", "window_ms", "started_at", "finished_at",
              "started_by", "topic", "level")),
    ("rounds", ("id", "channel_id", "question_id", "seed", "kind", "run_id", "run_index",
                "opened_at", "deadline_at", "closed_at", "close_reason", "revealed_at",
                "message_ref", "posted_at")),
    ("answers", ("round_id", "player_id", "choice", "correct", "points", "answered_at")),
    ("schedules", ("id", "channel_id", "local_time", "tz", "days", "window_ms", "grace_ms",
                   "active", "updated_at", "topics")),
    ("daily_posts", ("schedule_id", "local_date", "status", "claim_token", "claimed_at",
                     "round_id", "detail")),
    ("score_totals", ("team_id", "period", "period_start", "player_id", "platform_user",
                      "points", "correct", "answered", "reached_at")),
    ("installations", ("enterprise", "team", "bot_token_sealed", "bot_id", "bot_user_id",
                       "scopes", "installed_at")),
    ("cards", ("player_id", "question_id", "state", "due_at", "last_review_at")),
)  # fmt: skip
WITH_IDS = ("teams", "channels", "players", "runs", "rounds", "schedules")


class CopyRefused(Exception):
    """The copy can't be made (the destination isn't empty); nothing was written."""


@dataclass(frozen=True)
class Copied:
    table: str
    rows: int


async def counts(engine: Engine) -> dict[str, int]:
    async with engine.snapshot() as conn:
        return {t: int(await conn.fetchval(f"SELECT COUNT(*) FROM {t}")) for t, _ in TABLES}


async def copy_database(source: Engine, target: Engine, *, replace: bool = False) -> list[Copied]:
    """Copy every row, in one transaction on the target; CopyRefused if it has rows already,
    unless `replace`: then its rows are deleted in that same transaction (a restore)."""
    if not replace and any((await counts(target)).values()):
        raise CopyRefused(f"{target.path} already holds ZeroQuiz data: copy into an empty one")
    copied: list[Copied] = []
    async with source.snapshot() as src, target.transaction() as dst:
        if replace:
            for table, _ in reversed(TABLES):
                await dst.execute(f"DELETE FROM {table}")
        for table, columns in TABLES:
            rows = await src.fetch(f"SELECT {', '.join(columns)} FROM {table} ORDER BY 1")
            await _insert(dst, table, columns, (tuple(r[c] for c in columns) for r in rows))
            copied.append(Copied(table, len(rows)))
        if dst.dialect == "postgres":
            for table in WITH_IDS:
                await dst.execute(
                    f"""SELECT setval(pg_get_serial_sequence('{table}', 'id'),
                                      COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)"""
                )
    return copied


async def _insert(
    conn: Conn, table: str, columns: tuple[str, ...], rows: Iterable[tuple[object, ...]]
) -> None:
    marks = ", ".join(f"${n + 1}" for n in range(len(columns)))
    sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
    batch: list[tuple[object, ...]] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= BATCH:
            await conn.executemany(sql, batch)
            batch = []
    if batch:
        await conn.executemany(sql, batch)
