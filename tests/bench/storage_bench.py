"""Benchmark: the rewritten storage layer on a large history upgraded from schema version 2.

Run: .venv/bin/python tests/bench/storage_bench.py [--answers 1000000 --players 50000]
     (also --clicks K, --reps N (part d), --commit-reps N (part c: interleaved repetitions,
     goal judged on the median ratio), --profile: which statement dominates the upgrade and
     commits)

Generates a schema-2 file (tests/bench/history.py: one team in Asia/Jakarta, ~6 months) in a
temporary directory, then on that same file, in one process:
  a. upgrade: `Store.open` (migration 3, including building the leaderboard totals); every answer
     row must survive;
  b. leaderboards all / week / month (top 10, and with the own rank of a player near the bottom)
     from the maintained totals, against the pre-rewrite full GROUP BY scan over the answers;
  c. group commit: answers per second through `Rounds.answer` for K concurrent clicks, against
     one-row `BEGIN IMMEDIATE; INSERT; COMMIT` transactions on a plain aiosqlite connection;
  d. verdict latency (p99 of each `Rounds.answer` call) of 100 concurrent clicks by new players
     on a just-opened round, alone and beside five all-time leaderboards on the store's reader
     connections: the old full scan (begun just before the burst), the maintained one (begun
     with it), and the maintained one asked back to back for the whole burst; each with the
     round's facts cached (a click went first) and cold (the burst's first click reads them);
     plus one cold click beside five leaderboard tasks that never yield between two reads.
Figures are from a shared, noisy machine: compare the ratios, each measured against a baseline
in the same run. Goals print PASS or MISS; the exit status is 0 either way. Part c also prints
the process's CPU time (all threads) per answer, which follows the code more than the load does.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

HERE = Path(__file__).resolve().parent
# This checkout's `bot` ahead of any installed copy; tests/ for the platform double.
sys.path[:0] = [str(HERE.parents[1]), str(HERE.parent), str(HERE)]

import aiosqlite  # noqa: E402
from helpers import RecordingPort  # noqa: E402
from history import History, make_v2_history  # noqa: E402

from bot.app import build_quiz  # noqa: E402
from bot.bank import load_bank  # noqa: E402
from bot.clock import FakeClock  # noqa: E402
from bot.model import ChannelRef, TeamRef, UserRef  # noqa: E402
from bot.periods import period_start, to_ms  # noqa: E402
from bot.quiz import Quiz  # noqa: E402
from bot.storage import Store  # noqa: E402
from bot.storage.engine import Conn  # noqa: E402
from bot.storage.sqlite import SqliteConn  # noqa: E402
from bot.views import Period  # noqa: E402

PERIODS: tuple[Period, ...] = ("all", "week", "month")
CALLS = 50
OLD_CALLS = 5

# The leaderboard before the rewrite (bot/storage/scores.py at 89c65b3, columns renamed by
# migration 3): every player of the period, best first; the caller sliced the top and found the
# asker's rank in the full list. The upper bound (the period's end) only matters for a `now` in
# the past, as here: the maintained week and month hold exactly their period's answers.
OLD_LEADERBOARD = """
    SELECT p.platform_user, p.display_name, SUM(a.points) AS points, SUM(a.correct) AS correct,
           COUNT(*) AS answered,
           COALESCE(MAX(CASE WHEN a.points > 0 THEN a.answered_at END), 0) AS reached
    FROM answers a JOIN players p ON p.id = a.player_id
    WHERE p.team_id = (SELECT id FROM teams WHERE platform = $1 AND team = $2)
      AND a.answered_at >= $3 AND a.answered_at < $4
    GROUP BY p.id
    ORDER BY points DESC, answered ASC, reached ASC, p.platform_user ASC
"""


class StatementTimes:
    """With --profile: wall time per SQL statement shape run through the store's SQLite
    connections (`bot.storage.sqlite.SqliteConn`, the class behind the `Conn` protocol) while
    active, to see which statement dominates a figure."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.times: dict[str, list[float]] = {}
        self._saved: dict[str, Any] = {}

    def __enter__(self) -> StatementTimes:
        if not self.enabled:
            return self
        for name in ("execute", "executemany", "fetch", "fetchrow"):
            original = getattr(SqliteConn, name)
            self._saved[name] = original

            async def timed(
                conn: Conn, sql: str, *args: Any, _original: Any = original, _name: str = name
            ) -> Any:
                start = time.perf_counter()
                try:
                    return await _original(conn, sql, *args)
                finally:
                    key = f"{_name}: {' '.join(sql.split())[:70]}"
                    entry = self.times.setdefault(key, [0.0, 0])
                    entry[0] += time.perf_counter() - start
                    entry[1] += 1

            setattr(SqliteConn, name, timed)
        return self

    def __exit__(self, *exc: object) -> None:
        for name, original in self._saved.items():
            setattr(SqliteConn, name, original)

    def report(self, title: str, top: int = 6) -> None:
        if not self.enabled:
            return
        print(f"   profile of {title} (wall ms, calls, statement):")
        for key, (seconds, calls) in sorted(self.times.items(), key=lambda kv: -kv[1][0])[:top]:
            print(f"     {seconds * 1000:9.1f} ms {int(calls):6}x  {key}")


def pct(samples: list[float], p: float) -> float:
    if len(samples) < 2:
        return samples[0]
    return statistics.quantiles(samples, n=100, method="inclusive")[int(p) - 1]


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


async def timed_ms(make: Callable[[], Awaitable[Any]]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = await make()
    return (time.perf_counter() - start) * 1000, result


def count_answers(path: Path) -> tuple[int, int, int]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        row = conn.execute("SELECT COUNT(*), SUM(points), SUM(correct) FROM answers").fetchone()
        return int(row[0]), int(row[1] or 0), int(row[2] or 0)
    finally:
        conn.close()


Span = tuple[int, int]  # [start, end) in ms
FOREVER: Span = (0, 2**62)


async def old_leaderboard(
    conn: Conn, team: TeamRef, span: Span, user: str | None, limit: int = 10
) -> tuple[list[tuple[str, int]], int | None, int]:
    """(top (user, points), the asker's rank, how many players) by the pre-rewrite scan."""
    rows = await conn.fetch(OLD_LEADERBOARD, team.platform, team.team, *span)
    top = [(str(r["platform_user"]), int(r["points"])) for r in rows[:limit]]
    rank = next((n + 1 for n, r in enumerate(rows) if r["platform_user"] == user), None)
    return top, rank, len(rows)


def period_span(period: Period, now: datetime, tz: str) -> Span:
    start = period_start(period, now, tz)
    if start is None:
        return FOREVER
    step = timedelta(days=8) if period == "week" else timedelta(days=32)
    end = period_start(period, start + step, tz)
    assert end is not None
    return to_ms(start), to_ms(end)


def last_sunday_noon(h: History) -> datetime:
    """Inside the history's last full local week, so week and month both hold many answers."""
    zone = ZoneInfo(h.team.tz)
    local = h.end.astimezone(zone)
    day = local - timedelta(days=(local.weekday() + 1) % 7)
    noon = day.replace(hour=12, minute=0, second=0, microsecond=0)
    if noon > local:
        noon -= timedelta(days=7)
    return noon.astimezone(ZoneInfo("UTC"))


# -- a. upgrade ---------------------------------------------------------------------------------
async def upgrade(h: History, profile: bool) -> Store:
    before = count_answers(h.path)
    with StatementTimes(profile) as times:
        start = time.perf_counter()
        store = await Store.open(h.path)
        seconds = time.perf_counter() - start
    after = count_answers(h.path)
    settings = await store.connection_settings()
    print("a. Upgrade (Store.open on the schema-2 file: migration 3 incl. building the totals)")
    print(
        f"   Store.open                 {seconds:8.1f} s    goal < 30 s   {verdict(seconds < 30)}"
    )
    print(
        f"   answer rows before / after {before[0]:,} / {after[0]:,} "
        f"(points {before[1]:,} / {after[1]:,}, correct {before[2]:,} / {after[2]:,})   "
        f"{verdict(before == after)}"
    )
    print(f"   writer connection: {settings[0]}")
    times.report("Store.open")
    return store


# -- b. leaderboards ----------------------------------------------------------------------------
async def leaderboards(store: Store, h: History) -> None:
    engine = store._engine
    team = TeamRef(h.team.platform, h.team.team)
    now = last_sunday_noon(h)
    print()
    print(
        f"b. Leaderboards at {h.answers:,} answers / {h.players:,} players, now = "
        f"{now.astimezone(ZoneInfo(h.team.tz)):%a %Y-%m-%d %H:%M} {h.team.tz}, limit 10"
    )
    print(
        f"   {'query':34} {'players':>8} {'median ms':>10} {'p95 ms':>8}  goal <= 20 ms   "
        f"old scan median ms   ratio"
    )
    for period in PERIODS:
        span = period_span(period, now, h.team.tz)
        old_ms: list[float] = []
        old_result: tuple[list[tuple[str, int]], int | None, int] = ([], None, 0)
        for _ in range(OLD_CALLS):
            async with engine.snapshot() as c:
                ms, old_result = await timed_ms(partial(old_leaderboard, c, team, span, None))
            old_ms.append(ms)
        # A player near the bottom of this period (by the old scan's full ordering).
        async with engine.snapshot() as c:
            rows = await c.fetch(OLD_LEADERBOARD, team.platform, team.team, *span)
        bottom = str(rows[-5]["platform_user"]) if len(rows) >= 5 else None
        bottom_rank = len(rows) - 4 if bottom else None
        old_top, _, players = old_result
        for label, user in (("top 10", None), ("top 10 + own rank near bottom", bottom)):
            ms_list: list[float] = []
            lines: Any = None
            for n in range(CALLS + 3):
                ms, lines = await timed_ms(
                    partial(store.scores.leaderboard, team, period, now, limit=10, user=user)
                )
                if n >= 3:  # the first calls warm the cache
                    ms_list.append(ms)
            top, mine = lines
            same = [(t.user, t.points) for t in top] == old_top
            if user is not None:
                same = same and mine is not None and mine.rank == bottom_rank
            med, p95 = statistics.median(ms_list), pct(ms_list, 95)
            old_med = statistics.median(old_ms)
            print(
                f"   {period + ' ' + label:34} {players:8,} {med:10.2f} {p95:8.2f}  "
                f"{verdict(med <= 20 and p95 <= 20):4}           {old_med:10.1f}"
                f"          {old_med / med:6.0f}x   same as scan: {'yes' if same else 'NO'}"
            )
    print(f"   ({CALLS} calls each for the maintained totals, {OLD_CALLS} for the old scan)")


# -- c. group commit throughput -----------------------------------------------------------------
async def throughput(
    store: Store, quiz: Quiz, h: History, clicks: int, profile: bool, reps: int = 1
) -> None:
    """`reps` interleaved repetitions of new players, returning players and the baseline, each
    returning rep with players this process never saw (none in the player cache); the goal is
    judged on the median of the reps' ratios, so one rep hit by another process's burst of
    disk writes doesn't decide it."""
    channel = ChannelRef(h.team.platform, h.team.team, h.team.channels[0])
    print()
    print(
        f"c. Group commit: {clicks:,} concurrent clicks on one open round, on the upgraded "
        f"{h.answers:,}-answer file, {reps} interleaved rep(s)"
    )
    ro = sqlite3.connect(f"file:{h.path}?mode=ro", uri=True)
    sampled = [
        (str(r[0]), str(r[1]))
        for r in ro.execute(
            """SELECT platform_user, display_name FROM players WHERE team_id = ?
               ORDER BY random() LIMIT ?""",
            (h.team.id, clicks * reps),
        )
    ]
    ro.close()
    ratios: dict[str, list[float]] = {}
    for rep in range(reps):
        returning = sampled[rep * clicks : (rep + 1) * clicks] or sampled[:clicks]
        rates: dict[str, float] = {}
        for label, users in (
            (
                "Rounds.answer, new players",
                [(f"N{rep}-{i:06d}", f"New {i}") for i in range(clicks)],
            ),
            ("Rounds.answer, returning players", returning),
        ):
            view = await quiz.rounds.start_round(channel)
            assert view is not None
            before = store.answers.batches
            with StatementTimes(profile) as times:
                start, cpu = time.perf_counter(), time.process_time()
                results = await asyncio.gather(
                    *(
                        quiz.rounds.answer(
                            view.round_id, UserRef(channel.platform, channel.team, *u), i % 4
                        )
                        for i, u in enumerate(users)
                    )
                )
                elapsed = time.perf_counter() - start
                cpu = time.process_time() - cpu
            batches = store.answers.batches - before
            ok = sum(1 for r in results if r.status in ("correct", "wrong"))
            rates[label] = len(users) / elapsed
            print(
                f"   {label:32} {len(users):6,} clicks in {elapsed * 1000:7.0f} ms = "
                f"{rates[label]:8,.0f}/s   commits (store.answers.batches): {batches}"
                f"   recorded: {ok:,}   CPU {cpu / len(users) * 1e6:4.0f} us/answer"
            )
            times.report(label)
        base = await one_row_baseline(store, quiz, h, channel, clicks)
        for label, rate in rates.items():
            ratios.setdefault(label, []).append(rate / base)
        print(
            f"   rep {rep + 1} ratios: "
            + ", ".join(f"{label.split(', ')[1]} {r[-1]:.1f}x" for label, r in ratios.items())
        )
    for label, values in ratios.items():
        mid = statistics.median(values)
        spread = f" (reps {min(values):.1f}-{max(values):.1f}x)" if len(values) > 1 else ""
        print(
            f"   ratio {label} / baseline: {mid:5.1f}x{spread}   goal >= 5x   {verdict(mid >= 5)}"
        )
    print(
        "   (the core also upserts the player, checks the round is open and updates three "
        "leaderboard totals per answer; the baseline only inserts the row)"
    )


async def one_row_baseline(
    store: Store, quiz: Quiz, h: History, channel: ChannelRef, clicks: int
) -> float:
    """One transaction per answer, on the same file with the same connection settings: the
    rate of one-row `BEGIN IMMEDIATE; INSERT; COMMIT` transactions."""
    view = await quiz.rounds.start_round(channel)
    assert view is not None
    sync = (await store.connection_settings())[0]["synchronous"]  # the store writer's level
    conn = await aiosqlite.connect(h.path, isolation_level=None)
    for pragma in ("journal_mode = WAL", f"synchronous = {sync}", "busy_timeout = 5000"):
        async with conn.execute(f"PRAGMA {pragma}"):
            pass
    async with conn.execute(
        "SELECT id FROM players WHERE team_id = ? ORDER BY id LIMIT ?", (h.team.id, clicks)
    ) as cur:
        player_ids = [int(r[0]) for r in await cur.fetchall()]
    lock = asyncio.Lock()
    at = to_ms(quiz.clock.now())

    async def one(i: int, pid: int) -> None:
        async with lock:  # one connection: one transaction at a time, as the old Database did
            await conn.execute("BEGIN IMMEDIATE")
            await conn.execute(
                """INSERT INTO answers (round_id, player_id, choice, correct, points, answered_at)
                   VALUES (?, ?, ?, ?, ?, ?)""",
                (view.round_id, pid, i % 4, i % 2, 10 * (i % 2), at),
            )
            await conn.execute("COMMIT")

    start = time.perf_counter()
    await asyncio.gather(*(one(i, pid) for i, pid in enumerate(player_ids)))
    elapsed = time.perf_counter() - start
    await conn.close()
    base = len(player_ids) / elapsed
    print(
        f"   {'baseline: 1-row INSERT+COMMIT':32} {len(player_ids):6,} inserts in "
        f"{elapsed * 1000:7.0f} ms = {base:8,.0f}/s   commits: {len(player_ids):,}"
    )
    return base


# -- d. reads beside writes ---------------------------------------------------------------------
async def verdicts(
    quiz: Quiz, channel: ChannelRef, tag: str, clicks: int, warm: bool
) -> list[float]:
    """Each click's own latency, for `clicks` concurrent first answers on a just-opened round.

    Warm: one click went first, so the round's facts are cached (any burst after its first click).
    Cold: the burst's first click loads them through a reader connection, the others wait for it.
    """
    view = await quiz.rounds.start_round(channel)
    assert view is not None
    if warm:
        await quiz.rounds.answer(
            view.round_id, UserRef(channel.platform, channel.team, f"W{tag}"), 0
        )
    results = await asyncio.gather(
        *(
            timed_ms(
                partial(
                    quiz.rounds.answer,
                    view.round_id,
                    UserRef(channel.platform, channel.team, f"V{tag}-{i:03d}"),
                    1,
                )
            )
            for i in range(clicks)
        )
    )
    assert all(r.status in ("correct", "wrong") for _, r in results), "a click was not recorded"
    return [ms for ms, _ in results]


async def with_readers(
    work: Callable[[], Awaitable[Any]],
    measure: Callable[[], Awaitable[Any]],
    *,
    loop: bool,
    lead: float,
    fair: bool = True,
) -> tuple[Any, int]:
    """`measure()` beside five tasks answering leaderboards with `work`, started `lead` seconds
    before it: one leaderboard each, or (loop) one after another until `measure()` is done.

    Fair: a looping task yields once between two leaderboards, as a request handler does when it
    sends its reply, so a reader connection it gives back goes to whoever was waiting for one.
    """
    stop = asyncio.Event()
    done = 0

    async def reader() -> None:
        nonlocal done
        while True:
            await work()
            done += 1
            if not loop or stop.is_set():
                return
            if fair:
                await asyncio.sleep(0)

    tasks = [asyncio.create_task(reader()) for _ in range(5)]
    await asyncio.sleep(lead)
    try:
        result = await measure()
    finally:
        stop.set()
        await asyncio.gather(*tasks)
    return result, done


Load = tuple[Callable[[], Awaitable[None]], bool, float]  # work, loop, lead


async def reads_beside_writes(store: Store, quiz: Quiz, h: History, reps: int) -> None:
    engine = store._engine
    team = TeamRef(h.team.platform, h.team.team)
    channel = ChannelRef(h.team.platform, h.team.team, h.team.channels[1])
    clicks = 100

    async def old_scan() -> None:
        async with engine.snapshot() as c:
            await old_leaderboard(c, team, FOREVER, h.team.users[0])

    async def maintained() -> None:
        await store.scores.leaderboard(
            team, "all", quiz.clock.now(), limit=10, user=h.team.users[0]
        )

    loads: dict[str, Load | None] = {
        "alone": None,
        "5 old full scans (begun 50 ms before)": (old_scan, False, 0.05),
        "5 maintained (begun with the burst)": (maintained, False, 0.0),
        "5 maintained back to back all along": (maintained, True, 0.05),
    }
    samples: dict[tuple[str, int], list[float]] = {(k, w): [] for k in loads for w in (1, 0)}
    # Each run's own p99 (one burst of 100 clicks is what the goal speaks of): the median over
    # runs is robust to the one run that a stray GC pause or checkpoint happened to hit.
    per_run: dict[tuple[str, int], list[float]] = {(k, w): [] for k in loads for w in (1, 0)}
    served: dict[str, int] = dict.fromkeys(loads, 0)
    for rep in range(reps):  # interleaved, so drift in the machine's load hits all alike
        for n, (label, load) in enumerate(loads.items()):
            for warm in (True, False):
                tag = f"{rep}{n}{int(warm)}"
                if load is None:
                    got = await verdicts(quiz, channel, tag, clicks, warm)
                    samples[label, warm] += got
                    per_run[label, warm].append(pct(got, 99))
                    continue
                work, loop, lead = load
                got, done = await with_readers(
                    work,
                    partial(verdicts, quiz, channel, tag, clicks, warm),
                    loop=loop,
                    lead=lead,
                )
                samples[label, warm] += got
                per_run[label, warm].append(pct(got, 99))
                served[label] += done
    print()
    print(
        f"d. Verdict latency of {clicks} concurrent clicks (new players, just-opened round) alone "
        f"and beside 5 all-time leaderboards on the store's reader connections; {reps} runs "
        f"pooled, {h.answers:,}-answer file; ratio = median per-run p99 / the same alone, "
        "goal <= 1.5"
    )
    for warm, what in ((True, "round facts cached"), (False, "cold: first click reads the round")):
        print(f"   {what}:")
        base = statistics.median(per_run["alone", warm])
        for label in loads:
            got = samples[label, warm]
            run_p99 = statistics.median(per_run[label, warm])
            tail = ""
            if label != "alone":
                tail = (
                    f"   ratio {run_p99 / base:6.2f}  {verdict(run_p99 / base <= 1.5)}"
                    f"   ({served[label]:,} leaderboards in these runs)"
                )
            print(
                f"     {label:38} p50 {pct(got, 50):7.1f} ms   p99 pooled {pct(got, 99):7.1f} ms"
                f"   per run (median) {run_p99:7.1f} ms{tail}"
            )
    # Five tasks taking leaderboards back to back, with no await between two of them.
    got, done = await with_readers(
        maintained, lambda: cold_click(quiz, channel, 10.0), loop=True, lead=0.05, fair=False
    )
    print(
        "   a cold click beside 5 back-to-back maintained leaderboards (no yield between two): "
        + (f"{got:.1f} ms" if got is not None else "no reader connection within 10 s (starved)")
        + f"   ({done:,} leaderboards meanwhile)"
    )


async def cold_click(quiz: Quiz, channel: ChannelRef, timeout: float) -> float | None:
    view = await quiz.rounds.start_round(channel)
    assert view is not None
    user = UserRef(channel.platform, channel.team, "Vstarved")
    start = time.perf_counter()
    try:
        await asyncio.wait_for(quiz.rounds.answer(view.round_id, user, 0), timeout)
    except TimeoutError:
        return None
    return (time.perf_counter() - start) * 1000


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        path = Path(tmp) / "history-v2.sqlite3"
        h = make_v2_history(path, args.answers, args.players, args.seed)
        print(
            f"History: {h.answers:,} answers by {h.players:,} players in {h.rounds:,} rounds, "
            f"{h.start:%Y-%m-%d} to {h.end:%Y-%m-%d}, tz {h.team.tz}; schema-2 file written in "
            f"{h.seconds:.1f} s ({path.stat().st_size / 2**20:.0f} MiB)"
        )
        print()
        store = await upgrade(h, args.profile)
        try:
            await leaderboards(store, h)
            clock = FakeClock(h.end + timedelta(hours=1))
            quiz = build_quiz(store, load_bank(), clock, random.Random(args.seed))
            quiz.add_port(RecordingPort(platform=h.team.platform))
            await throughput(store, quiz, h, args.clicks, args.profile, args.commit_reps)
            await reads_beside_writes(store, quiz, h, args.reps)
        finally:
            await store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=50_000)
    parser.add_argument("--clicks", type=int, default=5000, help="K for the throughput test")
    parser.add_argument("--reps", type=int, default=5, help="repetitions of the latency test")
    parser.add_argument(
        "--commit-reps", type=int, default=1, help="interleaved repetitions of the group commit"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--profile", action="store_true", help="time each statement of the upgrade and group commit"
    )
    parser.add_argument("--dir", help="where the temporary file goes (default: the system's)")
    asyncio.run(main(parser.parse_args()))
