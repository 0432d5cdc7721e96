"""Numbered schema migrations. Append only: a shipped migration is never edited.

Times are integer milliseconds since the Unix epoch (UTC).
"""

MIGRATIONS: tuple[str, ...] = (
    # 1: teams, channels, players, runs, rounds, answers
    """
    CREATE TABLE teams (
        id INTEGER PRIMARY KEY,
        platform TEXT NOT NULL,
        team TEXT NOT NULL,
        tz TEXT NOT NULL DEFAULT 'UTC',
        UNIQUE (platform, team)
    );
    CREATE TABLE channels (
        id INTEGER PRIMARY KEY,
        team_id INTEGER NOT NULL REFERENCES teams(id),
        channel TEXT NOT NULL,
        lang TEXT NOT NULL DEFAULT 'en' CHECK (lang IN ('en', 'id')),
        UNIQUE (team_id, channel)
    );
    CREATE TABLE players (
        id INTEGER PRIMARY KEY,
        team_id INTEGER NOT NULL REFERENCES teams(id),
        user TEXT NOT NULL,
        display_name TEXT NOT NULL DEFAULT '',
        UNIQUE (team_id, user)
    );
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        channel_id INTEGER NOT NULL REFERENCES channels(id),
        total INTEGER NOT NULL CHECK (total >= 1),
        window_ms INTEGER NOT NULL,
        started_at INTEGER NOT NULL,
        finished_at INTEGER
    );
    CREATE TABLE rounds (
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
    );
    CREATE INDEX rounds_open ON rounds (deadline_at) WHERE closed_at IS NULL;
    CREATE INDEX rounds_channel_question ON rounds (channel_id, question_id);
    CREATE TABLE answers (
        round_id INTEGER NOT NULL REFERENCES rounds(id),
        player_id INTEGER NOT NULL REFERENCES players(id),
        option INTEGER NOT NULL,
        correct INTEGER NOT NULL CHECK (correct IN (0, 1)),
        points INTEGER NOT NULL,
        answered_at INTEGER NOT NULL,
        PRIMARY KEY (round_id, player_id)
    );
    CREATE INDEX answers_player_time ON answers (player_id, answered_at);
    """,
    # 2: daily schedules and their postings, claimed before anything is sent
    """
    CREATE TABLE schedules (
        id INTEGER PRIMARY KEY,
        channel_id INTEGER NOT NULL UNIQUE REFERENCES channels(id),
        local_time TEXT NOT NULL,
        tz TEXT NOT NULL,
        days TEXT NOT NULL,
        window_ms INTEGER NOT NULL CHECK (window_ms > 0),
        grace_ms INTEGER NOT NULL CHECK (grace_ms >= 0),
        active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
        updated_at INTEGER NOT NULL
    );
    CREATE TABLE daily_posts (
        schedule_id INTEGER NOT NULL REFERENCES schedules(id),
        local_date TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('claimed', 'posted', 'skipped', 'failed')),
        claim_token TEXT NOT NULL,
        claimed_at INTEGER NOT NULL,
        round_id INTEGER REFERENCES rounds(id),
        detail TEXT,
        PRIMARY KEY (schedule_id, local_date)
    );
    """,
)

SCHEMA_VERSION = len(MIGRATIONS)
