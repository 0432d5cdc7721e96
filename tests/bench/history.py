"""A large quiz history in a NEW file at schema version 2 (before the storage rewrite).

Written directly with the sqlite3 module: the tables come from executing the statements steps 1
and 2 shipped with (tests/data/shipped-migrations.json; so `players.user`, `answers.option`), then
`PRAGMA user_version = 2`, as a release before migration 3 left its files. Rounds are spread over
about six months (weeks and months differ); each team has singles, runs of a few rounds and
daily rounds (with their schedule and `daily_posts`). Players differ in how often they play and
how often they are right; an answer is 10 points if correct, else 0, given inside its round's
window. Rows go in with executemany in one transaction, so a million answers take seconds.

Library: `make_v2_history(path, answers, players, seed)` -> History.
Script:  .venv/bin/python tests/bench/history.py OUT.sqlite3 [--answers 1000000 --players 50000]
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sqlite3
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

# This checkout's `bot`, ahead of any installed copy (the venv may hold an older one).
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

SHIPPED = Path(__file__).resolve().parents[1] / "data" / "shipped-migrations.json"


def shipped_statements(dialect: str, upto: int) -> list[str]:
    """The statements of steps 1..`upto` as released for `dialect`: what made the databases in
    the field (frozen; bot/storage/schema.py writes them now)."""
    steps: dict[str, list[str]] = json.loads(SHIPPED.read_text())[dialect]
    return [sql for n in range(1, upto + 1) for sql in steps[str(n)]]


DEFAULT_TEAMS: tuple[tuple[str, str, str], ...] = (("slack", "TBENCH", "Asia/Jakarta"),)
START = datetime(2025, 6, 2, tzinfo=UTC)  # a Monday
DAYS = 182
SINGLE_MS = 10 * 60_000
RUN_STEP_MS = 2 * 60_000
DAILY_MS = 60 * 60_000
POINTS = 10
CHUNK = 100_000


@dataclass(frozen=True)
class TeamHistory:
    id: int
    platform: str
    team: str
    tz: str
    channels: tuple[str, ...]
    players: int
    answers: int
    rounds: int
    users: tuple[str, ...]  # a sample of its players' platform user ids (all of them if few)


@dataclass(frozen=True)
class History:
    path: Path
    teams: tuple[TeamHistory, ...]
    start: datetime  # first round opened
    end: datetime  # last answer given
    answers: int
    players: int
    rounds: int
    runs: int
    daily_posts: int
    seconds: float  # how long generating took

    @property
    def team(self) -> TeamHistory:
        return self.teams[0]


@dataclass
class _Round:
    opened: int
    window: int
    kind: str
    run: tuple[int, int] | None = None  # (run id, index)
    daily: str | None = None  # local date


def _questions() -> list[tuple[str, int, int]]:
    """(id, number of options, right option) of the real bank, so reveals make sense later."""
    from bot.bank import load_bank

    return [(q.id, len(q.options), q.answer) for q in load_bank().questions]


def _split(total: int, parts: int) -> list[int]:
    return [total // parts + (1 if n < total % parts else 0) for n in range(parts)]


def _sizes(rng: random.Random, answers: int, rounds: int, cap: int) -> list[int]:
    """How many answer each round: varied, at least one, at most `cap`, summing to `answers`."""
    weights = [rng.uniform(0.3, 1.7) for _ in range(rounds)]
    scale = answers / sum(weights)
    sizes = [min(cap, max(1, round(w * scale))) for w in weights]
    diff = answers - sum(sizes)
    order = itertools.cycle(range(rounds))
    while diff:
        n = next(order)
        if diff > 0 and sizes[n] < cap:
            sizes[n] += 1
            diff -= 1
        elif diff < 0 and sizes[n] > 1:
            sizes[n] -= 1
            diff += 1
    return sizes


def _plan_rounds(
    rng: random.Random, count: int, tz: str, next_run: itertools.count[int]
) -> list[_Round]:
    """`count` rounds over DAYS days: about a quarter daily (09:00 local, one per local date), a
    quarter in runs of 3 to 5 back-to-back rounds, the rest single rounds."""
    span_ms = DAYS * 86_400_000
    start_ms = int(START.timestamp() * 1000)
    zone = ZoneInfo(tz)
    plan: list[_Round] = []
    days_used: set[str] = set()
    while len(plan) < count:
        at = start_ms + rng.randrange(span_ms - DAILY_MS)
        left = count - len(plan)
        pick = rng.random()
        if pick < 0.25:
            local = datetime.fromtimestamp(at / 1000, UTC).astimezone(zone)
            nine = local.replace(hour=9, minute=0, second=0, microsecond=0)
            day = nine.date().isoformat()
            opened = int(nine.timestamp() * 1000)
            if day not in days_used and start_ms <= opened < start_ms + span_ms - DAILY_MS:
                days_used.add(day)
                plan.append(_Round(opened, DAILY_MS, "daily", daily=day))
                continue
        if pick < 0.35 and left >= 3:
            run_id = next(next_run)
            size = min(left, rng.randint(3, 5))
            plan += [
                _Round(at + n * RUN_STEP_MS, RUN_STEP_MS, "run", run=(run_id, n))
                for n in range(size)
            ]
            continue
        plan.append(_Round(at - at % 60_000, SINGLE_MS, "single"))
    plan.sort(key=lambda r: r.opened)
    return plan


def make_v2_history(
    path: str | Path,
    answers: int = 1_000_000,
    players: int = 50_000,
    seed: int = 1,
    *,
    teams: tuple[tuple[str, str, str], ...] = DEFAULT_TEAMS,
    rounds: int | None = None,
    sample: int = 1000,
) -> History:
    """Write a schema-2 file at `path` (which must not exist): `answers` answers by `players`
    players, split evenly over `teams` (platform, team id, tz). Every player answers at least
    once when there are at least as many answers as players."""
    target = Path(path)
    if target.exists():
        raise FileExistsError(target)
    began = time.perf_counter()
    rng = random.Random(seed)
    questions = _questions()
    conn = sqlite3.connect(target, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = MEMORY")
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("PRAGMA cache_size = -262144")
        statements = shipped_statements("sqlite", 2)
        indexes = [s for s in statements if s.lstrip().upper().startswith("CREATE INDEX")]
        for statement in statements:
            if statement not in indexes:
                conn.execute(statement)
        conn.execute("BEGIN")
        summary = _fill(conn, rng, questions, answers, players, teams, rounds, sample)
        conn.execute("COMMIT")
        for statement in indexes:  # built once after the load: the same schema, much faster
            conn.execute(statement)
        conn.execute("PRAGMA user_version = 2")
        conn.execute("PRAGMA journal_mode = WAL")  # as the old release kept its files
    finally:
        conn.close()
    team_list, start_ms, end_ms, n_rounds, n_runs, n_daily = summary
    return History(
        path=target,
        teams=tuple(team_list),
        start=datetime.fromtimestamp(start_ms / 1000, UTC),
        end=datetime.fromtimestamp(end_ms / 1000, UTC),
        answers=answers,
        players=players,
        rounds=n_rounds,
        runs=n_runs,
        daily_posts=n_daily,
        seconds=time.perf_counter() - began,
    )


def _fill(
    conn: sqlite3.Connection,
    rng: random.Random,
    questions: list[tuple[str, int, int]],
    answers: int,
    players: int,
    teams: tuple[tuple[str, str, str], ...],
    rounds: int | None,
    sample: int,
) -> tuple[list[TeamHistory], int, int, int, int, int]:
    team_answers = _split(answers, len(teams))
    team_players = _split(players, len(teams))
    team_rounds = _split(rounds, len(teams)) if rounds is not None else None
    next_player = itertools.count(1)
    next_round = itertools.count(1)
    next_run = itertools.count(1)
    out: list[TeamHistory] = []
    first_ms, last_ms, n_runs, n_daily = 2**62, 0, 0, 0
    for t, (platform, team, tz) in enumerate(teams):
        n_ans, n_pl = team_answers[t], team_players[t]
        conn.execute(
            "INSERT INTO teams (id, platform, team, tz) VALUES (?, ?, ?, ?)",
            (t + 1, platform, team, tz),
        )
        channels = (f"C{t}MAIN", f"C{t}SIDE")
        channel_ids = []
        for n, channel in enumerate(channels):
            lang = "id" if tz.startswith("Asia/") and n == 1 else "en"
            cur = conn.execute(
                "INSERT INTO channels (team_id, channel, lang) VALUES (?, ?, ?)",
                (t + 1, channel, lang),
            )
            channel_ids.append(int(cur.lastrowid or 0))
        # Players: ids, user ids, how often they play (heavy-tailed) and how often they're right.
        ids = [next(next_player) for _ in range(n_pl)]
        users = [f"U{t:02d}{n:07d}" for n in range(n_pl)]
        conn.executemany(
            "INSERT INTO players (id, team_id, user, display_name) VALUES (?, ?, ?, ?)",
            [
                (pid, t + 1, u, "" if n % 7 == 3 else f"Player {t}-{n}")
                for n, (pid, u) in enumerate(zip(ids, users, strict=True))
            ],
        )
        skill = {pid: rng.uniform(0.25, 0.9) for pid in ids}
        cum = list(itertools.accumulate(min(rng.paretovariate(1.1), 200.0) for _ in ids))
        if not n_ans or not n_pl:
            out.append(TeamHistory(t + 1, platform, team, tz, channels, n_pl, 0, 0, ()))
            continue
        avg = max(3, min(n_pl, round(2 * n_pl**0.5)))
        count = team_rounds[t] if team_rounds is not None else max(1, n_ans // avg)
        count = max(count, -(-n_ans // n_pl))  # enough rounds for each to have distinct players
        plan = _plan_rounds(rng, count, tz, next_run)
        sizes = _sizes(rng, n_ans, len(plan), n_pl)
        # Everyone answers at least once: each round takes its share of a shuffled roster first.
        roster = ids[:]
        rng.shuffle(roster)
        share = min(1.0, n_pl / n_ans)
        taken, cumulative = 0, 0
        round_rows, post_rows = [], []
        run_rows: dict[int, tuple[int, int]] = {}
        answer_rows: list[tuple[int, ...]] = []
        schedule_id = t + 1
        conn.execute(
            """INSERT INTO schedules (id, channel_id, local_time, tz, days, window_ms, grace_ms,
                                      active, updated_at)
               VALUES (?, ?, '09:00', ?, '0,1,2,3,4,5,6', ?, 900000, 1, ?)""",
            (schedule_id, channel_ids[0], tz, DAILY_MS, int(START.timestamp() * 1000)),
        )
        for r, k in zip(plan, sizes, strict=True):
            rid = next(next_round)
            qid, n_opt, right = questions[rng.randrange(len(questions))]
            deadline = r.opened + r.window
            channel_id = channel_ids[0] if r.kind == "daily" or rid % 3 else channel_ids[1]
            if r.run is not None:
                channel_id = channel_ids[1]
                run_id = r.run[0]
                started, size = run_rows.get(run_id, (r.opened, 0))
                run_rows[run_id] = (started, size + 1)
            round_rows.append(
                (rid, channel_id, qid, rng.getrandbits(31), r.kind, *(r.run or (None, None)),
                 r.opened, deadline, deadline, "deadline", deadline + 1500, f"msg-{rid}")
            )  # fmt: skip
            if r.daily is not None:
                post_rows.append(
                    (schedule_id, r.daily, "posted", f"tok-{rid}", r.opened - 200, rid, None)
                )
            cumulative += k
            guaranteed = min(k, round(cumulative * share) - taken)
            chosen = dict.fromkeys(roster[taken : taken + guaranteed])
            taken += guaranteed
            need = k - len(chosen)
            if need > (n_pl - len(chosen)) // 2:
                rest = [p for p in ids if p not in chosen]
                chosen.update(dict.fromkeys(rng.sample(rest, need)))
            while len(chosen) < k:
                for pid in rng.choices(ids, cum_weights=cum, k=2 * (k - len(chosen)) + 8):
                    chosen.setdefault(pid)
                    if len(chosen) == k:
                        break
            span = r.window - 1000
            for pid in chosen:
                correct = rng.random() < skill[pid]
                if correct:
                    option = right
                else:
                    option = rng.randrange(n_opt - 1)
                    option += option >= right
                at = r.opened + 500 + rng.randrange(span)
                answer_rows.append((rid, pid, option, int(correct), POINTS * correct, at))
                last_ms = max(last_ms, at)
            first_ms = min(first_ms, r.opened)
            if len(answer_rows) >= CHUNK:
                _flush(conn, answer_rows)
        conn.executemany(
            """INSERT INTO runs (id, channel_id, total, window_ms, started_at, finished_at)
               VALUES (?, ?, ?, ?, ?, ?)""",
            [
                (run_id, channel_ids[1], size, RUN_STEP_MS, started,
                 started + size * RUN_STEP_MS + 1500)
                for run_id, (started, size) in run_rows.items()
            ],
        )  # fmt: skip
        conn.executemany(
            """INSERT INTO rounds (id, channel_id, question_id, seed, kind, run_id, run_index,
                                   opened_at, deadline_at, closed_at, close_reason, revealed_at,
                                   message_ref)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            round_rows,
        )
        conn.executemany(
            """INSERT INTO daily_posts (schedule_id, local_date, status, claim_token, claimed_at,
                                        round_id, detail)
               VALUES (?, ?, ?, ?, ?, ?, ?)""",
            post_rows,
        )
        _flush(conn, answer_rows)
        n_runs += len(run_rows)
        n_daily += len(post_rows)
        picked = tuple(users) if len(users) <= sample else tuple(rng.sample(users, sample))
        out.append(TeamHistory(t + 1, platform, team, tz, channels, n_pl, n_ans, len(plan), picked))
    total_rounds = next(next_round) - 1
    return out, first_ms, last_ms, total_rounds, n_runs, n_daily


def _flush(conn: sqlite3.Connection, rows: list[tuple[int, ...]]) -> None:
    conn.executemany(
        """INSERT INTO answers (round_id, player_id, option, correct, points, answered_at)
           VALUES (?, ?, ?, ?, ?, ?)""",
        rows,
    )
    rows.clear()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--answers", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    h = make_v2_history(args.out, args.answers, args.players, args.seed)
    print(
        f"{h.path}: schema 2, {h.answers:,} answers by {h.players:,} players in {h.rounds:,} "
        f"rounds ({h.runs} runs, {h.daily_posts} daily posts), {h.start:%Y-%m-%d} to "
        f"{h.end:%Y-%m-%d %H:%M} UTC, written in {h.seconds:.1f} s"
    )
    for team in h.teams:
        print(f"  team {team.id}: {team.platform}/{team.team} tz {team.tz}, users {team.users[:3]}")


if __name__ == "__main__":
    main()
