"""Item analysis of the team's answers: per topic, per question, per option. Pure functions of
the read models (bot/storage/insights.py) and the bank, shared by the insights and the adaptive
daily question.

A question's *discrimination* is the point-biserial correlation between answering it right and
the answering player's overall score (their share right before that answer): positive for a
sound question (the stronger get it right more often), negative when the stronger get it "wrong"
more often than the weaker, which is what a wrong key looks like. Each option's choosers' mean
score is the distractor analysis: a key few choose while one distractor draws the strongest.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import NamedTuple

from bot.bank import Bank
from bot.bank.templates import Template, pick
from bot.model import Question
from bot.storage.insights import PERMILLE, ChoiceStat, ItemTotal

MIN_RATED = 30  # answers by rated players before a question's key is judged
MIN_MISSED = 5  # answers in the period before a question counts as often missed
NEGATIVE = -0.1  # discrimination at or below this: the stronger answer it wrong more often
RARE_KEY = 0.3  # a key chosen by fewer than this share of all answers ...
DRAWING = 0.4  # ... while one distractor draws at least this share, chosen by stronger players
MISTAKE_SAMPLE = 64  # seeds a template's options are named from

Entry = Question | Template


class OptionStat(NamedTuple):
    slot: int
    answered: int
    share: float  # of the item's answers
    mean_score: float | None  # the choosers' overall score, 0..1 (None: none rated)


class ItemStat(NamedTuple):
    """One question (or template) over all the team's answers."""

    item: str
    entry: Entry
    key: int  # the keyed slot
    answered: int
    rated: int
    share_right: float
    discrimination: float | None  # point-biserial; None when it can't be computed
    options: tuple[OptionStat, ...]  # by slot

    @property
    def judged(self) -> bool:
        return self.rated >= MIN_RATED

    def option(self, slot: int) -> OptionStat | None:
        return next((o for o in self.options if o.slot == slot), None)

    def top_wrong(self) -> OptionStat | None:
        """The most chosen wrong option."""
        wrong = [o for o in self.options if o.slot != self.key and o.answered]
        return max(wrong, key=lambda o: (o.answered, -o.slot)) if wrong else None

    def strong_choice(self) -> OptionStat | None:
        """The wrong option whose choosers have the highest overall score (among those chosen by
        at least a tenth of the answers)."""
        wrong = [
            o for o in self.options
            if o.slot != self.key and o.share >= 0.1 and o.mean_score is not None
        ]  # fmt: skip
        return max(wrong, key=lambda o: (o.mean_score or 0.0, o.answered)) if wrong else None

    @property
    def suspect(self) -> OptionStat | None:
        """The option the strongest chose instead, when the key looks wrong; else None."""
        if not self.judged:
            return None
        strong = self.strong_choice()
        if strong is None:
            return None
        if self.discrimination is not None and self.discrimination <= NEGATIVE:
            return strong
        key = self.option(self.key)
        key_score = key.mean_score if key is not None else None
        rare = key is None or key.share < RARE_KEY
        drawn = strong.share >= DRAWING and (
            key_score is None or (strong.mean_score or 0) > key_score
        )
        return strong if rare and drawn else None


_ENTRIES: dict[int, tuple[Bank, dict[str, Entry]]] = {}


def entries_by_item(bank: Bank) -> dict[str, Entry]:
    """Item id -> its question or template (built once per bank: a bank never changes)."""
    known = _ENTRIES.get(id(bank))
    if known is None or known[0] is not bank:
        found: dict[str, Entry] = {q.id: q for q in bank.questions}
        found.update({t.id: t for t in bank.templates})
        known = _ENTRIES[id(bank)] = (bank, found)
    return known[1]


def key_slot(entry: Entry) -> int:
    """A hand-written question's keyed option (file order); a draw's answer is slot 0."""
    return entry.answer if isinstance(entry, Question) else 0


def item_stats(bank: Bank, choices: Iterable[ChoiceStat]) -> list[ItemStat]:
    """Every answered item of the bank (items no longer in it are left out). One pass over the
    rows, integer sums per item, and an item whose rows are unchanged since a view before is not
    worked out again: this runs for every view computed, beside the clicks."""
    by_item: dict[str, list[ChoiceStat]] = {}
    for choice in choices:
        rows = by_item.get(choice.item)
        if rows is None:
            by_item[choice.item] = [choice]
        else:
            rows.append(choice)
    known = entries_by_item(bank)
    out = []
    for item, rows in by_item.items():
        entry = known.get(item)
        if entry is None:
            continue
        rows.sort(key=_slot)
        seen = (item, tuple(rows))
        done = _ITEMS.get(seen)
        if done is not None and done[0] is entry:
            out.append(done[1])
            continue
        stat = _item(item, entry, rows)
        if len(_ITEMS) >= ITEMS_KEPT:
            _ITEMS.clear()
        _ITEMS[seen] = (entry, stat)
        out.append(stat)
    return out


ITEMS_KEPT = 8192
_ITEMS: dict[tuple[str, tuple[ChoiceStat, ...]], tuple[Entry, ItemStat]] = {}
"""An item's analysis by its rows: the same rows give the same figures, and between two views
only the items answered meanwhile have new rows, so the rest are not worked out again."""


def _item(item: str, entry: Entry, rows: list[ChoiceStat]) -> ItemStat:
    key = key_slot(entry)
    answered = rated = total = squares = 0
    right = n1 = s1 = 0
    for r in rows:
        answered += r.answered
        rated += r.rated
        total += r.score_sum
        squares += r.score_sq
        if r.slot == key:
            right += r.answered
            n1 += r.rated
            s1 += r.score_sum
    options = tuple(
        OptionStat(
            r.slot,
            r.answered,
            r.answered / answered if answered else 0.0,
            r.score_sum / r.rated / PERMILLE if r.rated else None,
        )
        for r in rows
    )
    return ItemStat(
        item=item,
        entry=entry,
        key=key,
        answered=answered,
        rated=rated,
        share_right=right / answered if answered else 0.0,
        discrimination=_biserial(rated, n1, total, squares, s1),
        options=options,
    )


def _slot(row: ChoiceStat) -> int:
    return row.slot


def point_biserial(rows: Iterable[ChoiceStat], key: int) -> float | None:
    """r = (M1 - M0) / s * sqrt(p q) over the rated answers, from the per-option sums."""
    rows = list(rows)
    return _biserial(
        sum(r.rated for r in rows),
        sum(r.rated for r in rows if r.slot == key),
        sum(r.score_sum for r in rows),
        sum(r.score_sq for r in rows),
        sum(r.score_sum for r in rows if r.slot == key),
    )


def _biserial(n: int, n1: int, total: int, squares: int, s1: int) -> float | None:
    """The point-biserial from the sums: n rated answers (n1 of them right), their scores' sum
    and sum of squares, and the right ones' sum."""
    if n < 2 or n1 in (0, n):
        return None
    mean = total / n
    variance = squares / n - mean * mean
    if variance <= 1e-9:
        return None
    m1, m0 = s1 / n1, (total - s1) / (n - n1)
    p = n1 / n
    return (m1 - m0) / math.sqrt(variance) * math.sqrt(p * (1 - p))


def topic_totals(
    bank: Bank, totals: Iterable[ItemTotal], topics: Iterable[str] | None = None
) -> dict[str, tuple[int, int]]:
    """topic -> (answers, right answers), each answer counted in every tag of its question."""
    known = entries_by_item(bank)
    wanted = set(topics) if topics is not None else None
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for total in totals:
        entry = known.get(total.item)
        for tag in entry.tags if entry is not None else ():
            if wanted is None or tag in wanted:
                out[tag][0] += total.answered
                out[tag][1] += total.correct
    return {tag: (n, right) for tag, (n, right) in out.items()}


_NAMED: dict[tuple[str, str], tuple[str | None, ...]] = {}


def mistake_names(template: Template) -> tuple[str | None, ...]:
    """Slot -> the mistake the template names for it (slot 0, the answer, None): for each slot
    the mistake most draws show there (an earlier one that rounds like the answer is skipped)."""
    key = (template.id, template.origin)
    if key not in _NAMED:
        _NAMED[key] = _mistake_names(template)
    return _NAMED[key]


def _mistake_names(template: Template) -> tuple[str | None, ...]:
    named: list[Counter[str]] = [Counter() for _ in range(4)]
    for seed in range(MISTAKE_SAMPLE):
        params, case = template.drawn(seed)
        try:
            _, answer, wrong = template.evaluate(params, case)
        except (ZeroDivisionError, ValueError):
            continue
        chosen, _ = pick(answer, wrong)
        for slot, value in enumerate(chosen[1:], start=1):
            index = next((i for i, w in enumerate(wrong) if w == value), None)
            if index is not None and slot < len(named):
                named[slot][template.distractors[index].mistake] += 1
    return (None, *(c.most_common(1)[0][0] if c else None for c in named[1:]))


def first_sentence(text: str) -> str:
    """The explanation's first sentence (up to its first '. ')."""
    head, dot, _ = text.strip().partition(". ")
    return head + "." if dot else head
