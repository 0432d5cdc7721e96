"""What the team's answers show, for whoever teaches: maintained with each answer, read in two
small statements, never by scanning the answers.

Two read models, both updated in the answers' own transaction (answers.py) and rebuilt from the
answers when a step adds them or the team's time zone changes:

- `item_totals`: answers and right answers per team, question (an *item*: a hand-written
  question's id, or a template's id for all its draws) and week, month or all time, in the
  team's zone. Per-topic charts and their trends add these up by the bank's tags.
- `item_choices`: per team, item and option (*slot*: a hand-written question's option in file
  order; a draw's 0 for the answer and 1-3 for its mistakes in the order the template drew them):
  how often it was chosen, and the overall score of those who chose it, taken from the player's
  answers before that one (smoothed share right, in per mille, once they have `RATED_AFTER`
  answers). Sums and sums of squares make the item analysis (point-biserial discrimination,
  each option's choosers' mean score) a sum over a few rows.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from bot.bank.templates import OPTIONS, parse_draw_id
from bot.shuffle import permutation
from bot.storage import totals
from bot.storage.engine import Conn, Engine, Record

RATED_AFTER = 5  # answers a player needs before their score rates the next ones
PERMILLE = 1000


class Answer(NamedTuple):
    """One recorded answer, as the read models count it."""

    team_id: int
    player_id: int
    question_id: str
    option: int  # in the question's file order
    correct: bool
    at_ms: int


class ItemTotal(NamedTuple):
    """One item's answers and right answers in one period. Tuples: a view reads hundreds."""

    item: str
    answered: int
    correct: int


class ChoiceStat(NamedTuple):
    """One option of one item, over all the team's answers (a tuple: cheap to make by the
    hundred, and comparable, so the analysis of an item whose rows are unchanged is reused)."""

    item: str
    slot: int
    answered: int
    rated: int  # answers by players whose overall score was known then
    score_sum: int  # their scores, per mille
    score_sq: int  # their squares


def item_and_slot(question_id: str, option: int) -> tuple[str, int]:
    """A hand-written question is its own item, its options in file order; a template's draws
    are one item, options as the template drew them (0 the answer), whatever the seed shuffled."""
    parsed = parse_draw_id(question_id)
    if parsed is None:
        return question_id, option
    template_id, seed = parsed
    return template_id, permutation(seed, OPTIONS)[option] if 0 <= option < OPTIONS else option


def score_of(correct: int, answered: int) -> int | None:
    """A player's overall score before an answer, per mille (smoothed: one right and one wrong
    added), or None while they have fewer than RATED_AFTER answers."""
    if answered < RATED_AFTER:
        return None
    return (correct + 1) * PERMILLE // (answered + 2)


@dataclass
class _Choice:
    answered: int = 0
    rated: int = 0
    score_sum: int = 0
    score_sq: int = 0


@dataclass
class _Counts:
    totals: dict[tuple[int, str, int, str], list[int]] = field(
        default_factory=lambda: defaultdict(lambda: [0, 0])
    )
    choices: dict[tuple[int, str, int], _Choice] = field(
        default_factory=lambda: defaultdict(_Choice)
    )

    def add(self, answer: Answer, tz: str, score: int | None, *, periods: bool = True) -> None:
        item, slot = item_and_slot(answer.question_id, answer.option)
        keys = totals.bucket_starts_ms(answer.at_ms, tz) if periods else ()
        for period, start in keys:
            counts = self.totals[(answer.team_id, period, start, item)]
            counts[0] += 1
            counts[1] += int(answer.correct)
        if answer.option < 0:  # a typed number that is no option's: no option was chosen
            return
        choice = self.choices[(answer.team_id, item, slot)]
        choice.answered += 1
        if score is not None:
            choice.rated += 1
            choice.score_sum += score
            choice.score_sq += score * score


_TOTALS_UPSERT = """
    INSERT INTO item_totals (team_id, period, period_start, item, answered, correct)
    VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (team_id, period, period_start, item) DO UPDATE SET
        answered = item_totals.answered + excluded.answered,
        correct = item_totals.correct + excluded.correct
"""
_CHOICES_UPSERT = """
    INSERT INTO item_choices (team_id, item, slot, answered, rated, score_sum, score_sq)
    VALUES ($1, $2, $3, $4, $5, $6, $7)
    ON CONFLICT (team_id, item, slot) DO UPDATE SET
        answered = item_choices.answered + excluded.answered,
        rated = item_choices.rated + excluded.rated,
        score_sum = item_choices.score_sum + excluded.score_sum,
        score_sq = item_choices.score_sq + excluded.score_sq
"""


async def _write(conn: Conn, counts: _Counts) -> None:
    """In key order, so two replicas adding to the same rows lock them in the same order."""
    await conn.executemany(
        _TOTALS_UPSERT, sorted((*key, n, right) for key, (n, right) in counts.totals.items())
    )
    await conn.executemany(
        _CHOICES_UPSERT,
        sorted(
            (*key, c.answered, c.rated, c.score_sum, c.score_sq)
            for key, c in counts.choices.items()
        ),
    )


async def count(
    conn: Conn, answers: Sequence[Answer], zones: dict[int, str], scores: dict[int, int | None]
) -> None:
    """Add a batch of recorded answers; `scores` is each player's overall score before the
    batch (`scores_before`, read before the leaderboard totals count the batch)."""
    counts = _Counts()
    for answer in answers:
        if answer.question_id:
            counts.add(answer, zones.get(answer.team_id, "UTC"), scores.get(answer.player_id))
    await _write(conn, counts)


async def scores_before(conn: Conn, players: Iterable[tuple[int, int]]) -> dict[int, int | None]:
    """(team id, player id) -> the player's overall score from their all-time totals."""
    wanted = sorted(set(players))
    if not wanted:
        return {}
    teams = sorted({team for team, _ in wanted})
    ids = sorted({player for _, player in wanted})
    team_marks = ", ".join(f"${n + 1}" for n in range(len(teams)))
    player_marks = ", ".join(f"${len(teams) + n + 1}" for n in range(len(ids)))
    rows = await conn.fetch(
        f"""SELECT player_id, correct, answered FROM score_totals
            WHERE team_id IN ({team_marks}) AND period = 'all' AND period_start = 0
              AND player_id IN ({player_marks})""",
        *teams,
        *ids,
    )
    found = {int(r["player_id"]): score_of(int(r["correct"]), int(r["answered"])) for r in rows}
    return {player: found.get(player) for _, player in wanted}


# Answers per team, question and quarter hour (every period starts on one: totals.py), so a
# rebuild reads about one row per round instead of one per answer.
def _by_quarter(where: str) -> str:
    quarter = f"a.answered_at / {totals.QUARTER_HOUR_MS}"
    return f"""
        SELECT p.team_id, r.question_id, {quarter} AS quarter,
               COUNT(*) AS answered, SUM(a.correct) AS correct
        FROM answers a JOIN rounds r ON r.id = a.round_id JOIN players p ON p.id = a.player_id
        WHERE {where}
        GROUP BY p.team_id, r.question_id, {quarter}
    """


# Per team, question and option: answers, and the choosers' overall score before each answer
# (score_of, in SQL: their answers so far by a window in answer order).
_BY_OPTION = f"""
    SELECT team_id, question_id, choice, COUNT(*) AS answered,
           SUM(CASE WHEN before >= {RATED_AFTER} THEN 1 ELSE 0 END) AS rated,
           SUM(CASE WHEN before >= {RATED_AFTER} THEN score ELSE 0 END) AS score_sum,
           SUM(CASE WHEN before >= {RATED_AFTER} THEN score * score ELSE 0 END) AS score_sq
    FROM (SELECT team_id, question_id, choice, before,
                 (right_before + 1) * {PERMILLE} / (before + 2) AS score
          FROM (SELECT p.team_id, r.question_id, a.choice,
                       COUNT(*) OVER w - 1 AS before,
                       CAST(SUM(a.correct) OVER w AS BIGINT) - a.correct AS right_before
                FROM answers a JOIN rounds r ON r.id = a.round_id
                JOIN players p ON p.id = a.player_id
                WINDOW w AS (PARTITION BY a.player_id ORDER BY a.answered_at, a.round_id
                             ROWS UNBOUNDED PRECEDING)) x) y
    GROUP BY team_id, question_id, choice
"""


def _add_periods(
    counts: _Counts, rows: Sequence[Record], zones: dict[int, str], *, all_time: bool
) -> None:
    for r in rows:
        team = int(r["team_id"])
        item, _ = item_and_slot(str(r["question_id"]), 0)
        for period, start in totals._bucket_starts(int(r["quarter"]), zones.get(team, "UTC")):
            if all_time or period != "all":
                key = (team, period, start, item)
                counts.totals[key][0] += int(r["answered"])
                counts.totals[key][1] += int(r["correct"])


async def rebuild(conn: Conn) -> None:
    """Both read models from every answer, each rated by the score its player had before it
    (the migration step's backfill): the answers are grouped in SQL, a few rows per round."""
    await conn.execute("DELETE FROM item_totals")
    await conn.execute("DELETE FROM item_choices")
    zones = dict(await totals.team_zones(conn))
    counts = _Counts()
    _add_periods(counts, await conn.fetch(_by_quarter("true")), zones, all_time=True)
    for r in await conn.fetch(_BY_OPTION):
        if int(r["choice"]) < 0:  # typed numbers that are no option's (see _Counts.add)
            continue
        item, slot = item_and_slot(str(r["question_id"]), int(r["choice"]))
        choice = counts.choices[(int(r["team_id"]), item, slot)]
        choice.answered += int(r["answered"])
        choice.rated += int(r["rated"])
        choice.score_sum += int(r["score_sum"])
        choice.score_sq += int(r["score_sq"])
    await _write(conn, counts)


async def rebuild_periods(conn: Conn, team_id: int, tz: str, *, since_ms: int) -> None:
    """The team's week and month rows in zone `tz`, from its answers since `since_ms` (older
    ones dropped), as the leaderboard totals are when the zone changes."""
    await conn.execute(
        "DELETE FROM item_totals WHERE team_id = $1 AND period IN ('week', 'month')", team_id
    )
    rows = await conn.fetch(
        _by_quarter("p.team_id = $1 AND a.answered_at >= $2"), team_id, since_ms
    )
    counts = _Counts()
    _add_periods(counts, rows, {team_id: tz}, all_time=False)
    await _write(conn, counts)


class InsightTable:
    """The reads behind `/zeroquiz insights` and the adaptive daily question."""

    def __init__(self, engine: Engine) -> None:
        self._e = engine

    async def team(self, platform: str, team: str) -> tuple[int, str] | None:
        """The team's id and zone, None for a team that never played."""
        async with self._e.reader() as c:
            row = await c.fetchrow(
                "SELECT id, tz FROM teams WHERE platform = $1 AND team = $2", platform, team
            )
        return (int(row["id"]), str(row["tz"])) if row is not None else None

    async def totals(
        self, team_id: int, period: str, starts: Sequence[int]
    ) -> dict[int, list[ItemTotal]]:
        """Per period start asked: every item's answers and right answers then."""
        if not starts:
            return {}
        marks = ", ".join(f"${n + 3}" for n in range(len(starts)))
        async with self._e.reader() as c:
            rows = await c.fetch(
                f"""SELECT period_start, item, answered, correct FROM item_totals
                    WHERE team_id = $1 AND period = $2 AND period_start IN ({marks})""",
                team_id,
                period,
                *starts,
            )
        out: dict[int, list[ItemTotal]] = {start: [] for start in starts}
        for r in rows:
            out[int(r[0])].append(ItemTotal(r[1], r[2], r[3]))
        return out

    async def choices(self, team_id: int) -> list[ChoiceStat]:
        """Every option of every item the team answered, over all time."""
        async with self._e.reader() as c:
            rows = await c.fetch(
                """SELECT item, slot, answered, rated, score_sum, score_sq FROM item_choices
                   WHERE team_id = $1""",
                team_id,
            )
        return [ChoiceStat(r[0], r[1], r[2], r[3], r[4], r[5]) for r in rows]  # columns in order

    async def daily_items(self, schedule_id: int) -> list[str]:
        """The questions a daily schedule has asked so far (its posted or claimed days)."""
        async with self._e.reader() as c:
            rows = await c.fetch(
                """SELECT r.question_id FROM daily_posts d JOIN rounds r ON r.id = d.round_id
                   WHERE d.schedule_id = $1""",
                schedule_id,
            )
        return [str(r["question_id"]) for r in rows]
