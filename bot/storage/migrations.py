"""Numbered schema migrations. Append only: a shipped migration is never edited.

Each step is a list of statements per SQL dialect and, where data must be derived, a backfill
run in the same transaction. PostgreSQL's history starts with this release: its first step
already uses the column names SQLite files got in step 3 (no PostgreSQL database of the old
layout exists), so its step 3 only adds what SQLite's adds besides the renames. Every step ends
with the same schema in both. Integers are BIGINT in PostgreSQL (ids and millisecond times need
64 bits; SQLite's INTEGER is 64-bit already). The applied version is kept in `schema_version`,
and mirrored in SQLite's `user_version`, which is what releases before the version table read, so
an older ZeroQuiz refuses a newer file too. Times are integer milliseconds since the Unix epoch
(UTC), 64-bit in every backend.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from bot.storage import totals
from bot.storage.engine import Conn, Dialect, Engine
from bot.storage.errors import DatabaseTooNewError, DatabaseUnusable


@dataclass(frozen=True)
class Migration:
    version: int
    what: str
    sqlite: tuple[str, ...]
    postgres: tuple[str, ...]
    backfill: Callable[[Conn], Awaitable[None]] | None = None

    def statements(self, dialect: Dialect) -> tuple[str, ...]:
        return self.sqlite if dialect == "sqlite" else self.postgres


V1 = (
    """CREATE TABLE teams (
        id INTEGER PRIMARY KEY,
        platform TEXT NOT NULL,
        team TEXT NOT NULL,
        tz TEXT NOT NULL DEFAULT 'UTC',
        UNIQUE (platform, team)
    )""",
    """CREATE TABLE channels (
        id INTEGER PRIMARY KEY,
        team_id INTEGER NOT NULL REFERENCES teams(id),
        channel TEXT NOT NULL,
        lang TEXT NOT NULL DEFAULT 'en' CHECK (lang IN ('en', 'id')),
        UNIQUE (team_id, channel)
    )""",
    """CREATE TABLE players (
        id INTEGER PRIMARY KEY,
        team_id INTEGER NOT NULL REFERENCES teams(id),
        user TEXT NOT NULL,
        display_name TEXT NOT NULL DEFAULT '',
        UNIQUE (team_id, user)
    )""",
    """CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        channel_id INTEGER NOT NULL REFERENCES channels(id),
        total INTEGER NOT NULL CHECK (total >= 1),
        window_ms INTEGER NOT NULL,
        started_at INTEGER NOT NULL,
        finished_at INTEGER
    )""",
    """CREATE TABLE rounds (
        id INTEGER PRIMARY KEY,
        channel_id INTEGER NOT NULL REFERENCES channels(id),
        question_id TEXT NOT NULL,
        seed INTEGER NOT NULL,
        kind TEXT NOT NULL DEFAULT 'single',
        run_id INTEGER REFERENCES runs(id),
        run_index INTEGER,
        opened_at INTEGER NOT NULL,
        deadline_at INTEGER NOT NULL,
        closed_at INTEGER,
        close_reason TEXT,
        revealed_at INTEGER,
        message_ref TEXT,
        UNIQUE (run_id, run_index)
    )""",
    "CREATE INDEX rounds_open ON rounds (deadline_at) WHERE closed_at IS NULL",
    "CREATE INDEX rounds_channel_question ON rounds (channel_id, question_id)",
    """CREATE TABLE answers (
        round_id INTEGER NOT NULL REFERENCES rounds(id),
        player_id INTEGER NOT NULL REFERENCES players(id),
        option INTEGER NOT NULL,
        correct INTEGER NOT NULL CHECK (correct IN (0, 1)),
        points INTEGER NOT NULL,
        answered_at INTEGER NOT NULL,
        PRIMARY KEY (round_id, player_id)
    )""",
    "CREATE INDEX answers_player_time ON answers (player_id, answered_at)",
)

V2 = (
    """CREATE TABLE schedules (
        id INTEGER PRIMARY KEY,
        channel_id INTEGER NOT NULL UNIQUE REFERENCES channels(id),
        local_time TEXT NOT NULL,
        tz TEXT NOT NULL,
        days TEXT NOT NULL,
        window_ms INTEGER NOT NULL CHECK (window_ms > 0),
        grace_ms INTEGER NOT NULL CHECK (grace_ms >= 0),
        active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
        updated_at INTEGER NOT NULL
    )""",
    """CREATE TABLE daily_posts (
        schedule_id INTEGER NOT NULL REFERENCES schedules(id),
        local_date TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('claimed', 'posted', 'skipped', 'failed')),
        claim_token TEXT NOT NULL,
        claimed_at INTEGER NOT NULL,
        round_id INTEGER REFERENCES rounds(id),
        detail TEXT,
        PRIMARY KEY (schedule_id, local_date)
    )""",
)

# No reserved words as column names (PostgreSQL reserves `user`); leaderboards from maintained
# per-period totals, ordered by an index in exactly the leaderboard's order. The totals are
# stored in key order (team, period, start, player), so the rows answers update, those of the
# current week and month and of all time, sit together instead of among every past week's.
V3 = (
    "ALTER TABLE players RENAME COLUMN user TO platform_user",
    "ALTER TABLE answers RENAME COLUMN option TO choice",
    """CREATE TABLE score_totals (
        team_id INTEGER NOT NULL REFERENCES teams(id),
        period TEXT NOT NULL CHECK (period IN ('all', 'week', 'month')),
        period_start INTEGER NOT NULL,
        player_id INTEGER NOT NULL REFERENCES players(id),
        platform_user TEXT NOT NULL,
        points INTEGER NOT NULL,
        correct INTEGER NOT NULL,
        answered INTEGER NOT NULL,
        reached_at INTEGER NOT NULL,
        PRIMARY KEY (team_id, period, period_start, player_id)
    ) WITHOUT ROWID""",
    """CREATE INDEX score_rank ON score_totals
        (team_id, period, period_start, points DESC, answered, reached_at, platform_user)""",
    "CREATE INDEX rounds_unrevealed ON rounds (closed_at) WHERE revealed_at IS NULL",
    "CREATE INDEX rounds_run ON rounds (run_id, run_index) WHERE run_id IS NOT NULL",
)


# Whether a round's question reached the platform: a round nobody saw is never revealed, and one
# whose post failed for a passing reason is posted again. Rounds from before were all posted.
V4 = (
    "ALTER TABLE rounds ADD COLUMN posted_at INTEGER",
    "UPDATE rounds SET posted_at = opened_at",
    """CREATE INDEX rounds_unposted ON rounds (opened_at)
        WHERE posted_at IS NULL AND closed_at IS NULL""",
)

ID = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"

PG1 = (
    f"""CREATE TABLE teams (
        id {ID},
        platform TEXT NOT NULL,
        team TEXT NOT NULL,
        tz TEXT NOT NULL DEFAULT 'UTC',
        UNIQUE (platform, team)
    )""",
    f"""CREATE TABLE channels (
        id {ID},
        team_id BIGINT NOT NULL REFERENCES teams(id),
        channel TEXT NOT NULL,
        lang TEXT NOT NULL DEFAULT 'en' CHECK (lang IN ('en', 'id')),
        UNIQUE (team_id, channel)
    )""",
    f"""CREATE TABLE players (
        id {ID},
        team_id BIGINT NOT NULL REFERENCES teams(id),
        platform_user TEXT NOT NULL,
        display_name TEXT NOT NULL DEFAULT '',
        UNIQUE (team_id, platform_user)
    )""",
    f"""CREATE TABLE runs (
        id {ID},
        channel_id BIGINT NOT NULL REFERENCES channels(id),
        total BIGINT NOT NULL CHECK (total >= 1),
        window_ms BIGINT NOT NULL,
        started_at BIGINT NOT NULL,
        finished_at BIGINT
    )""",
    f"""CREATE TABLE rounds (
        id {ID},
        channel_id BIGINT NOT NULL REFERENCES channels(id),
        question_id TEXT NOT NULL,
        seed BIGINT NOT NULL,
        kind TEXT NOT NULL DEFAULT 'single',
        run_id BIGINT REFERENCES runs(id),
        run_index BIGINT,
        opened_at BIGINT NOT NULL,
        deadline_at BIGINT NOT NULL,
        closed_at BIGINT,
        close_reason TEXT,
        revealed_at BIGINT,
        message_ref TEXT,
        UNIQUE (run_id, run_index)
    )""",
    "CREATE INDEX rounds_open ON rounds (deadline_at) WHERE closed_at IS NULL",
    "CREATE INDEX rounds_channel_question ON rounds (channel_id, question_id)",
    """CREATE TABLE answers (
        round_id BIGINT NOT NULL REFERENCES rounds(id),
        player_id BIGINT NOT NULL REFERENCES players(id),
        choice BIGINT NOT NULL,
        correct BIGINT NOT NULL CHECK (correct IN (0, 1)),
        points BIGINT NOT NULL,
        answered_at BIGINT NOT NULL,
        PRIMARY KEY (round_id, player_id)
    )""",
    "CREATE INDEX answers_player_time ON answers (player_id, answered_at)",
)

PG2 = (
    f"""CREATE TABLE schedules (
        id {ID},
        channel_id BIGINT NOT NULL UNIQUE REFERENCES channels(id),
        local_time TEXT NOT NULL,
        tz TEXT NOT NULL,
        days TEXT NOT NULL,
        window_ms BIGINT NOT NULL CHECK (window_ms > 0),
        grace_ms BIGINT NOT NULL CHECK (grace_ms >= 0),
        active BIGINT NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
        updated_at BIGINT NOT NULL
    )""",
    """CREATE TABLE daily_posts (
        schedule_id BIGINT NOT NULL REFERENCES schedules(id),
        local_date TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('claimed', 'posted', 'skipped', 'failed')),
        claim_token TEXT NOT NULL,
        claimed_at BIGINT NOT NULL,
        round_id BIGINT REFERENCES rounds(id),
        detail TEXT,
        PRIMARY KEY (schedule_id, local_date)
    )""",
)

PG3 = (
    """CREATE TABLE score_totals (
        team_id BIGINT NOT NULL REFERENCES teams(id),
        period TEXT NOT NULL CHECK (period IN ('all', 'week', 'month')),
        period_start BIGINT NOT NULL,
        player_id BIGINT NOT NULL REFERENCES players(id),
        platform_user TEXT NOT NULL,
        points BIGINT NOT NULL,
        correct BIGINT NOT NULL,
        answered BIGINT NOT NULL,
        reached_at BIGINT NOT NULL,
        PRIMARY KEY (team_id, period, period_start, player_id)
    )""",
    V3[3],
    V3[4],
    V3[5],
)

PG4 = ("ALTER TABLE rounds ADD COLUMN posted_at BIGINT", *V4[1:])


# Work more than one replica could do at once is claimed on the round itself: who posts or reveals
# it, until when (a crashed holder's claim runs out and another replica takes over), and when its
# live answer count was last edited (one edit per interval across all replicas).
V6 = (
    "ALTER TABLE rounds ADD COLUMN claimed_by TEXT",
    "ALTER TABLE rounds ADD COLUMN claimed_until INTEGER",
    "ALTER TABLE rounds ADD COLUMN count_edited_at INTEGER",
)
PG6 = (
    "ALTER TABLE rounds ADD COLUMN claimed_by TEXT",
    "ALTER TABLE rounds ADD COLUMN claimed_until BIGINT",
    "ALTER TABLE rounds ADD COLUMN count_edited_at BIGINT",
)


# Leases on Discord gateway shards (bot/storage/shards.py): which process serves which shards of
# a bot, until when. Snowflakes and millisecond times are 64-bit.
V5 = (
    """CREATE TABLE shard_leases (
        bot_id BIGINT NOT NULL,
        shard_id INTEGER NOT NULL CHECK (shard_id >= 0),
        shard_count INTEGER NOT NULL CHECK (shard_count > shard_id),
        holder TEXT NOT NULL,
        renewed_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        PRIMARY KEY (bot_id, shard_id)
    )""",
)


# Slack workspaces that installed the app through OAuth (bot token sealed by the adapter), and
# the one-time states that protect the OAuth redirect. '' is "no enterprise" (a key can't be NULL).
V7 = (
    """CREATE TABLE installations (
        enterprise TEXT NOT NULL DEFAULT '',
        team TEXT NOT NULL,
        bot_token_sealed TEXT NOT NULL,
        bot_id TEXT NOT NULL DEFAULT '',
        bot_user_id TEXT NOT NULL DEFAULT '',
        scopes TEXT NOT NULL DEFAULT '',
        installed_at BIGINT NOT NULL,
        PRIMARY KEY (enterprise, team)
    )""",
    """CREATE TABLE oauth_states (
        state TEXT PRIMARY KEY,
        expires_at BIGINT NOT NULL,
        consumed INTEGER NOT NULL DEFAULT 0 CHECK (consumed IN (0, 1))
    )""",
)


# Personal review cards (bot/storage/cards.py): the scheduler's state per person and question,
# JSON text; a person's due cards are found by (player, due time).
V8 = (
    """CREATE TABLE cards (
        player_id BIGINT NOT NULL REFERENCES players(id),
        question_id TEXT NOT NULL,
        state TEXT NOT NULL,
        due_at BIGINT NOT NULL,
        last_review_at BIGINT NOT NULL,
        PRIMARY KEY (player_id, question_id)
    )""",
    "CREATE INDEX cards_due ON cards (player_id, due_at)",
)


# Who started a run (the platform user id: they may stop it) and the run's topic and level filter
# (so a restart mid-run goes on with the same filter); the topics a daily schedule draws from
# (comma-separated bank tags, '' for the whole bank).
V9 = (
    "ALTER TABLE runs ADD COLUMN started_by TEXT",
    "ALTER TABLE runs ADD COLUMN topic TEXT",
    "ALTER TABLE runs ADD COLUMN level INTEGER CHECK (level BETWEEN 1 AND 3)",
    "ALTER TABLE schedules ADD COLUMN topics TEXT NOT NULL DEFAULT ''",
)
PG9 = (
    "ALTER TABLE runs ADD COLUMN started_by TEXT",
    "ALTER TABLE runs ADD COLUMN topic TEXT",
    "ALTER TABLE runs ADD COLUMN level BIGINT CHECK (level BETWEEN 1 AND 3)",
    "ALTER TABLE schedules ADD COLUMN topics TEXT NOT NULL DEFAULT ''",
)


async def _backfill_scores(conn: Conn) -> None:
    await totals.rebuild_all_time(conn)
    for team_id, tz in await totals.team_zones(conn):
        await totals.rebuild_periods(conn, team_id, tz, since_ms=None)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "teams, channels, players, runs, rounds, answers", V1, PG1),
    Migration(2, "daily schedules and their postings", V2, PG2),
    Migration(
        3, "no reserved column names; maintained leaderboard totals", V3, PG3, _backfill_scores
    ),
    Migration(4, "when each round's question was posted", V4, PG4),
    Migration(5, "leases on Discord gateway shards", V5, V5),  # the same text in both
    Migration(6, "claims on posting and revealing a round, for replicas", V6, PG6),
    Migration(7, "Slack installations and OAuth states", V7, V7),  # the same text in both
    Migration(8, "personal review cards", V8, V8),  # the same text in both
    Migration(9, "who started a run, its filter; a daily schedule's topics", V9, PG9),
)
SCHEMA_VERSION = MIGRATIONS[-1].version
MIGRATION_LOCK = 0x5A51  # "ZQ": the advisory lock PostgreSQL replicas take to migrate


async def _version(conn: Conn) -> int:
    if conn.dialect == "postgres":
        legacy = 0
        has_table = await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
    else:
        legacy = int(await conn.fetchval("PRAGMA user_version") or 0)
        has_table = await conn.fetchval(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'"
        )
    table = (
        int(await conn.fetchval("SELECT MAX(version) FROM schema_version") or 0)
        if (has_table)
        else 0
    )
    return max(legacy, table)


async def schema_version(conn: Conn) -> int:
    """The schema version a database has (0: none yet)."""
    return await _version(conn)


# Created by migration 1 and never dropped: every ZeroQuiz file from any release has them.
OUR_TABLES = frozenset({"teams", "channels", "players", "rounds", "answers"})


def _too_new(path: str, version: int) -> DatabaseTooNewError:
    return DatabaseTooNewError(
        path,
        f"has schema version {version}, but this ZeroQuiz only knows up to {SCHEMA_VERSION}: "
        "upgrade ZeroQuiz or point --db at another file",
    )


async def check_ours(conn: Conn, path: str) -> None:
    """Refuse, before anything is written, a file that is another application's database (our
    tables would be added to it) or one a newer ZeroQuiz wrote. A file without tables is new."""
    listing = (
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        if conn.dialect == "postgres"
        else "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    )
    tables = {str(row[0]) for row in await conn.fetch(listing)}
    current = await _version(conn)
    if tables and not (tables >= OUR_TABLES and current > 0):
        raise DatabaseUnusable(
            path,
            f"is not a ZeroQuiz database (it has {len(tables)} table(s), but not ZeroQuiz's "
            "and no ZeroQuiz schema version): ZeroQuiz won't add its tables to another "
            "application's database; give the path of a new file",
        )
    if current > SCHEMA_VERSION:
        raise _too_new(path, current)


async def migrate(engine: Engine) -> None:
    """Bring the database to SCHEMA_VERSION, one transaction per step; refuse a newer one.

    PostgreSQL replicas starting together take turns: the whole migration runs under a session
    advisory lock, and the version is read only once it is held. (SQLite's write lock orders
    processes already.)"""
    if engine.dialect != "postgres":
        await _migrate(engine)
        return
    async with engine.raw() as conn:
        await conn.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
        try:
            await _migrate(engine)
        finally:
            await conn.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)


async def _migrate(engine: Engine) -> None:
    async with engine.raw() as conn:
        current = await _version(conn)
    if current > SCHEMA_VERSION:
        raise _too_new(engine.path, current)
    for step in MIGRATIONS:
        if step.version <= current:
            continue
        async with engine.transaction() as tx:
            # Re-read under the write lock: another process may have migrated meanwhile.
            if await _version(tx) >= step.version:
                continue
            await tx.execute("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)")
            await tx.script(step.statements(tx.dialect))
            if step.backfill is not None:
                await step.backfill(tx)
            await tx.execute("DELETE FROM schema_version")
            await tx.execute("INSERT INTO schema_version (version) VALUES ($1)", step.version)
            if tx.dialect == "sqlite":
                await tx.execute(f"PRAGMA user_version = {int(step.version)}")
