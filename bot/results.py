"""A team's answers and insights as a teacher keeps records: one row per answer (`zeroquiz
results`), and the topic table and item analysis (`zeroquiz insights --format`), as CSV or JSON.

Only reads, so both are safe while the bot runs. Text people typed (display names, a pack's
options) is data: a CSV cell that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, a tab
or a carriage return first) is written with a leading `'`, as OWASP advises for CSV exports.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal, NamedTuple

from bot.analysis import ItemStat
from bot.clock import Clock
from bot.i18n import t
from bot.library import Library
from bot.model import LETTERS, Lang, Question, TeamRef
from bot.periods import period_start
from bot.shuffle import permutation
from bot.storage import ResultRecord, Store
from bot.views import NoticeView, PackFile, TopicStat

ResultPeriod = Literal["week", "month", "all", "season"]
RESULT_PERIODS: tuple[ResultPeriod, ...] = ("week", "month", "all", "season")
FORMATS = ("csv", "json")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True)
class ResultRow:
    """One answer as a teacher reads it. `letter` is the one the channel saw (the round's
    shuffle); topic, level and option are blank when the question is no longer known; `typed`
    is what the person typed for a generated question's number ("" for a click)."""

    answered_at: str  # UTC, ISO 8601
    user: str
    name: str
    channel: str
    question: str
    topic: str
    level: int | None
    letter: str
    option: str
    correct: bool
    points: int
    typed: str = ""


class Results:
    def __init__(self, store: Store, library: Library, clock: Clock) -> None:
        self._store = store
        self._library = library
        self._clock = clock

    async def rows(self, team: TeamRef, period: ResultPeriod) -> list[ResultRow]:
        """The team's answers in the period, in the team's time zone (a season: since the
        team's current one began; all time if it never started one)."""
        if period == "season":
            since = await self._store.seasons.current(team)
        else:
            zone = await self._store.seasons.zone(team)
            since = period_start(period, self._clock.now(), zone)
        found = await self._store.results.rows(team, since)
        known: dict[str, Question | None] = {}
        out = []
        for record in found:
            if record.question_id not in known:
                known[record.question_id] = await self._library.get(record.question_id)
            out.append(_row(record, known[record.question_id]))
        return out

    async def notice(
        self, team: TeamRef, period: ResultPeriod, form: str, lang: Lang
    ) -> NoticeView:
        """`/zeroquiz results`: the rows as a file an admin gets privately (an attachment on
        Discord, numbered code blocks on Slack, as a pack's export)."""
        rows = await self.rows(team, period)
        body = results_csv(rows) if form == "csv" else results_json(rows)
        name = f"zeroquiz-results-{period}"
        text = t(lang, "results_export", count=len(rows), period=t(lang, f"period_{period}"))
        return NoticeView(lang, text, file=PackFile(name, 0, body, kind="file", suffix=form))


def insights_notice(tables: InsightTables, period: str, form: str, lang: Lang) -> NoticeView:
    """`/zeroquiz insights csv|json`: the numbers behind the view, as a file."""
    body = insights_csv(tables) if form == "csv" else insights_json(tables)
    text = t(lang, "insights_export", period=t(lang, f"period_{period}"))
    file = PackFile(f"zeroquiz-insights-{period}", 0, body, kind="file", suffix=form)
    return NoticeView(lang, text, file=file)


def _row(record: ResultRecord, question: Question | None) -> ResultRow:
    letter = option = topic = ""
    level = None
    if question is not None:
        topic = ", ".join(question.tags)
        level = question.difficulty
        if 0 <= record.choice < len(question.options):
            order = permutation(record.seed, len(question.options))
            letter = LETTERS[order.index(record.choice)]
            option = question.options[record.choice].get("id" if record.lang == "id" else "en")
    return ResultRow(
        answered_at=record.answered_at.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
        user=record.user,
        name=record.display_name,
        channel=record.channel,
        question=record.question_id,
        topic=topic,
        level=level,
        letter=letter,
        option=option,
        correct=record.correct,
        points=record.points,
        typed=record.typed or "",
    )


def results_csv(rows: Sequence[ResultRow]) -> str:
    fields = list(ResultRow.__dataclass_fields__)
    return _csv([fields, *([_cell(v) for v in asdict(r).values()] for r in rows)])


def results_json(rows: Sequence[ResultRow]) -> str:
    return json.dumps([asdict(r) for r in rows], ensure_ascii=False, indent=1) + "\n"


class InsightTables(NamedTuple):
    """The insights as numbers: topics in the period, and each question's item analysis (its
    answers and share right over the team's answers of all time, as /zeroquiz insights has it)."""

    topics: tuple[TopicStat, ...]
    items: tuple[ItemStat, ...]


TOPIC_FIELDS = ["topic", "answers", "share_right", "previous_share_right"]
ITEM_FIELDS = [
    "question", "topic", "level", "answers", "share_right", "discrimination", "key",
    *(f"share_{letter}" for letter in LETTERS),
]  # fmt: skip


def _topic(s: TopicStat) -> dict[str, Any]:
    previous = round(s.previous, 4) if s.previous is not None else None
    return dict(zip(TOPIC_FIELDS, [s.topic, s.answered, round(s.share, 4), previous], strict=True))


def _item(i: ItemStat) -> dict[str, Any]:
    shares = {o.slot: round(o.share, 4) for o in i.options}
    r = round(i.discrimination, 4) if i.discrimination is not None else None
    key = LETTERS[i.key] if 0 <= i.key < len(LETTERS) else ""
    values = [
        i.item, ", ".join(i.entry.tags), i.entry.difficulty, i.answered,
        round(i.share_right, 4), r, key, *(shares.get(slot) for slot in range(len(LETTERS))),
    ]  # fmt: skip
    return dict(zip(ITEM_FIELDS, values, strict=True))


def insights_json(tables: InsightTables) -> str:
    data = {
        "topics": [_topic(s) for s in tables.topics],
        "questions": [_item(i) for i in tables.items],
    }
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def insights_csv(tables: InsightTables) -> str:
    """Two tables, each with its header, one empty line between: topics, then questions."""
    topics = _csv([TOPIC_FIELDS, *([_cell(v) for v in _topic(s).values()] for s in tables.topics)])
    items = _csv([ITEM_FIELDS, *([_cell(v) for v in _item(i).values()] for i in tables.items)])
    return topics + "\n" + items


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    if isinstance(value, str) and text.startswith(FORMULA_START):
        return "'" + text
    return text


def _csv(rows: Sequence[Sequence[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)  # LF: as the terminal and chat show it
    return out.getvalue()
