"""`/zeroquiz insights`: what the team gets wrong, which misconception is behind it, and which
questions look wrongly keyed, for whoever teaches. Three reads of maintained totals
(bot/storage/insights.py), the analysis in bot/analysis.py, one view every surface renders.

Everything it lists is bounded (topics, questions, characters per line), so the view fits
Slack's and Discord's limits by construction.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

from bot import analysis
from bot.analysis import ItemStat
from bot.bank import Bank
from bot.clock import Clock
from bot.i18n import t
from bot.model import LETTERS, Lang, Question, TeamRef
from bot.periods import period_start, to_ms
from bot.presenter import text_bar
from bot.results import InsightTables
from bot.storage import Store
from bot.storage.insights import RATED_AFTER, ChoiceStat, ItemTotal
from bot.views import MAX_INSIGHT_LINE, InsightLine, InsightsView, Period, TopicStat

MAX_TOPICS = 20
MAX_LISTED = 5
TOPIC_WIDTH = 16
BAR_WIDTH = 10
LEVEL_KEYS = {1: "discord_choice_easy", 2: "discord_choice_medium", 3: "discord_choice_hard"}


CACHE_FOR = timedelta(seconds=30)
CACHED = 256

Key = tuple[str, str, str, str, str | None]
TeamRows = tuple[tuple[int, str] | None, list[ChoiceStat]]


class Insights:
    """`cache_for`: how long a view is shown again as it was computed (its figures are over
    weeks of answers: a few seconds more change nothing a teacher would see), and requests for
    the same view meanwhile share one computation, so admins asking at once, or a Home tab
    opened again and again, cost the answer path nothing."""

    def __init__(
        self, store: Store, bank: Bank, clock: Clock, *, cache_for: timedelta = CACHE_FOR
    ) -> None:
        self.store = store
        self.bank = bank
        self.clock = clock
        self.cache_for = cache_for
        self._views: dict[Key, tuple[datetime, asyncio.Future[InsightsView]]] = {}
        self._reading: dict[tuple[str, str], asyncio.Future[TeamRows]] = {}

    async def view(
        self, team: TeamRef, period: Period, lang: Lang, topic: str | None = None
    ) -> InsightsView:
        key: Key = (team.platform, team.team, period, lang, topic)
        now = self.clock.now()
        cached = self._views.get(key)
        if cached is not None and now - cached[0] < self.cache_for:
            future = cached[1]
            if not future.done() or future.exception() is None:
                return await asyncio.shield(future)
        future = asyncio.ensure_future(self._compute(team, period, lang, topic))
        if self.cache_for > timedelta(0):
            if len(self._views) >= CACHED:
                self._views.clear()
            self._views[key] = (now, future)
        return await asyncio.shield(future)

    async def tables(
        self, team: TeamRef, period: Period, topic: str | None = None
    ) -> InsightTables:
        """The numbers behind the view, whole (every topic, every answered question): for a
        file a teacher keeps (bot/results.py writes it as CSV or JSON)."""
        found, choices = await self._team_rows(team)
        current: list[ItemTotal] = []
        if found is not None:
            current, _ = await self._totals(*found, period)
        items = analysis.item_stats(self.bank, choices)
        if topic is not None:
            items = [i for i in items if topic in i.entry.tags]
        only = (topic,) if topic is not None else None
        now = analysis.topic_totals(self.bank, current, only)
        topics = sorted(
            (TopicStat(name, n, right, None) for name, (n, right) in now.items() if n),
            key=lambda s: (s.share, -s.answered, s.topic),
        )
        return InsightTables(tuple(topics), tuple(sorted(items, key=lambda i: i.item)))

    async def _compute(
        self, team: TeamRef, period: Period, lang: Lang, topic: str | None
    ) -> InsightsView:
        """The reads on the event loop (they wait on their connections' threads); the analysis
        and the view in a worker thread, so a burst of clicks never waits behind them."""
        found, choices = await self._team_rows(team)
        current: list[ItemTotal] = []
        previous: list[ItemTotal] | None = None
        if found is not None:
            current, previous = await self._totals(*found, period)
        return await asyncio.to_thread(
            self._analyse, lang, period, topic, current, previous, choices
        )

    def _analyse(
        self,
        lang: Lang,
        period: Period,
        topic: str | None,
        current: list[ItemTotal],
        previous: list[ItemTotal] | None,
        choices: list[ChoiceStat],
    ) -> InsightsView:
        """Pure: the item analysis and the view from the rows read (runs off the event loop)."""
        items = analysis.item_stats(self.bank, choices)
        if topic is not None:
            items = [i for i in items if topic in i.entry.tags]
        return self._build(lang, period, topic, current, previous, items)

    async def _team_rows(self, team: TeamRef) -> TeamRows:
        """The team's id and zone and its item_choices rows (what every view of the team needs,
        whatever its period, topic or language): views being computed at once share one read."""
        key = (team.platform, team.team)
        reading = self._reading.get(key)
        if reading is None:
            reading = self._reading[key] = asyncio.ensure_future(self._read_team(team))
            reading.add_done_callback(lambda done: self._forget(key, done))
        return await asyncio.shield(reading)

    def _forget(self, key: tuple[str, str], done: asyncio.Future[TeamRows]) -> None:
        if self._reading.get(key) is done:
            del self._reading[key]

    async def _read_team(self, team: TeamRef) -> TeamRows:
        found = await self.store.insights.team(team.platform, team.team)
        if found is None:
            return None, []
        return found, await self.store.insights.choices(found[0])

    async def _totals(
        self, team_id: int, tz: str, period: Period
    ) -> tuple[list[ItemTotal], list[ItemTotal] | None]:
        if period == "all":
            rows = await self.store.insights.totals(team_id, "all", [0])
            return rows[0], None
        start = period_start(period, self.clock.now(), tz)
        assert start is not None
        before = period_start(period, start - timedelta(milliseconds=1), tz)
        assert before is not None
        rows = await self.store.insights.totals(team_id, period, [to_ms(start), to_ms(before)])
        return rows[to_ms(start)], rows[to_ms(before)]

    def _build(
        self,
        lang: Lang,
        period: Period,
        topic: str | None,
        current: list[ItemTotal],
        previous: list[ItemTotal] | None,
        items: list[ItemStat],
    ) -> InsightsView:
        only = (topic,) if topic is not None else None
        now = analysis.topic_totals(self.bank, current, only)
        then = analysis.topic_totals(self.bank, previous, only) if previous is not None else {}
        stats = sorted(
            (
                TopicStat(name, n, right, _share(then.get(name)) if previous is not None else None)
                for name, (n, right) in now.items()
                if n
            ),
            key=lambda s: (s.share, -s.answered, s.topic),
        )[:MAX_TOPICS]
        period_name = t(lang, f"period_{period}")
        title = t(lang, "insights_title", period=period_name)
        if topic is not None:
            title += f" · {topic}"
        legend_key = "insights_legend_all" if period == "all" else f"insights_legend_{period}"
        answered = {total.item: total for total in current}
        return InsightsView(
            lang=lang,
            title=title,
            period=period,
            topic=topic,
            topics_title=t(lang, "insights_topics"),
            topics=tuple(stats),
            chart=tuple(_chart_line(lang, s) for s in stats),
            legend=t(lang, legend_key),
            missed_title=t(lang, "insights_missed"),
            missed=tuple(self._missed(lang, items, answered)),
            missed_empty=t(lang, "insights_missed_none"),
            check_title=t(lang, "insights_check"),
            check=tuple(_check_line(lang, i) for i in _suspects(items)),
            check_empty=t(lang, "insights_check_none"),
            check_note=t(lang, "insights_check_note", min=analysis.MIN_RATED, rated=RATED_AFTER),
            empty_text=None if stats else _empty(lang, period_name, current, self.bank),
        )

    def _missed(
        self, lang: Lang, items: list[ItemStat], answered: dict[str, ItemTotal]
    ) -> list[InsightLine]:
        """The questions most often answered wrong in the period (at least MIN_MISSED answers
        then), each with its most chosen wrong option over all answers and what it shows."""
        ranked = []
        for item in items:
            total = answered.get(item.item)
            if total is None or total.answered < analysis.MIN_MISSED:
                continue
            wrong = item.top_wrong()
            if wrong is not None and total.correct < total.answered:
                ranked.append((total.correct / total.answered, -total.answered, item, wrong))
        ranked.sort(key=lambda r: (r[0], r[1], r[2].item))
        lines = []
        for share, _, item, wrong in ranked[:MAX_LISTED]:
            n = answered[item.item].answered
            text = t(
                lang,
                "insights_missed_line",
                id=item.item,
                topic=", ".join(item.entry.tags),
                right=_pct(share),
                answered=n,
                option=_option(lang, item, wrong.slot, named=False),  # `shows` names it
                share=_pct(wrong.share),
                shows=_shows(lang, item, wrong.slot),
            )
            lines.append(InsightLine(item.item, _clip(text), wrong.slot))
        return lines


def _empty(lang: Lang, period_name: str, current: list[ItemTotal], bank: Bank) -> str:
    """Nothing to chart: no answers, or answers to questions this bank doesn't hold (a team's
    files not loaded), which is no "no answers"."""
    known = analysis.entries_by_item(bank)
    unknown = sum(total.answered for total in current if total.item not in known)
    if unknown:
        return t(lang, "insights_unloaded", count=unknown, period=period_name)
    return t(lang, "insights_empty", period=period_name)


def _suspects(items: list[ItemStat]) -> list[ItemStat]:
    flagged = [i for i in items if i.suspect is not None]
    flagged.sort(key=lambda i: (i.discrimination if i.discrimination is not None else 0.0, i.item))
    return flagged[:MAX_LISTED]


def _check_line(lang: Lang, item: ItemStat) -> InsightLine:
    suspect = item.suspect
    assert suspect is not None
    key = item.option(item.key)
    level = item.entry.difficulty
    text = t(
        lang,
        "insights_check_line",
        id=item.item,
        key=_option(lang, item, item.key),
        key_share=_pct(key.share if key else 0.0),
        key_score=_score(key.mean_score if key else None),
        option=_option(lang, item, suspect.slot),
        share=_pct(suspect.share),
        score=_score(suspect.mean_score),
        r="–" if item.discrimination is None else f"{item.discrimination:+.2f}",
        answered=item.answered,
        level=t(lang, LEVEL_KEYS[level]) if level in LEVEL_KEYS else "–",
        right=_pct(item.share_right),
    )
    return InsightLine(item.item, _clip(text), suspect.slot)


def _option(lang: Lang, item: ItemStat, slot: int, *, named: bool = True) -> str:
    """A hand-written option as its letter in the file's order and its text (clipped); a
    template's as the mistake it stands for (or the answer), named unless `named` is False."""
    entry = item.entry
    if isinstance(entry, Question):
        if not 0 <= slot < len(entry.options):
            return "?"
        return f"{LETTERS[slot]}) {_short(entry.options[slot].get(lang), 80)}"
    if slot == 0:
        return t(lang, "insights_template_answer")
    if not named:
        return t(lang, "insights_template_mistake", n=slot)
    name = analysis.mistake_names(entry)[slot] if slot < 4 else None
    return t(lang, "insights_template_option", n=slot, mistake=name or "?")


def _shows(lang: Lang, item: ItemStat, slot: int) -> str:
    """What choosing it shows: the option's own reason (its `why`), or the mistake a template
    names for it, else (a team pack's option with no reason) the explanation's first sentence."""
    entry = item.entry
    if not isinstance(entry, Question):
        name = analysis.mistake_names(entry)[slot] if 0 < slot < 4 else None
        if name:
            return t(lang, "insights_shows_mistake", mistake=name)
    else:
        reason = entry.reason(slot)
        if reason is not None:
            return t(lang, "insights_shows_reason", reason=_short(reason.get(lang), 200))
    sentence = analysis.first_sentence(entry.explanation.get(lang))
    return t(lang, "insights_shows_explanation", sentence=_short(sentence, 200))


def _chart_line(lang: Lang, stat: TopicStat) -> str:
    """`topic  ███████░░░  70%   120  ▲ +5`: fixed columns, for a monospace block."""
    name = _short(stat.topic, TOPIC_WIDTH).ljust(TOPIC_WIDTH)
    line = f"{name} {text_bar(stat.share, BAR_WIDTH)} {_pct(stat.share):>3}% {stat.answered:>7}"
    if stat.previous is None:
        return line
    change = round(stat.share * 100) - round(stat.previous * 100)
    arrow = "▲" if change > 0 else "▼" if change < 0 else "="
    return f"{line}  {arrow} {change:+d}"


def _share(counts: tuple[int, int] | None) -> float | None:
    if counts is None or counts[0] == 0:
        return None
    return counts[1] / counts[0]


def _pct(share: float) -> int:
    return round(share * 100)


def _score(score: float | None) -> str:
    return "–" if score is None else f"{round(score * 100)}%"


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _clip(text: str) -> str:
    return _short(text, MAX_INSIGHT_LINE)
