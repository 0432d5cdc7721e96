"""The personal review: a person's due cards, one private question at a time, most overdue first.

A review answer reschedules only the card (bot/review.py's FSRS rule): never the answers table,
totals or leaderboards. A button's token holds everything its click needs (the question, the
option, the due time the card had when shown, the language and the filter), so no state lives
in memory and a click after a restart works. The due time makes a repeated click harmless: the
card is rescheduled only while it still has that due time (storage compares and sets).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import datetime

from bot import review
from bot.charts import question_chart
from bot.clock import Clock
from bot.i18n import t
from bot.library import Library
from bot.model import LETTERS, Lang, Question, UserRef
from bot.periods import to_ms
from bot.presenter import mistake_for, option_lines, verdict_headline
from bot.shuffle import permutation
from bot.storage import CardState, Store
from bot.topics import NO_FILTER, Filter, parse_level
from bot.typed import Graded, form, grade, invalid
from bot.views import Mistake, NoticeView, ReviewButton, ReviewResult, ReviewView

# Leaves room inside Discord's 100-character custom_id for an adapter's prefix, and in a direct
# message (a reminder's review) for the server's id too (adapters/discord/render.py).
TOKEN_MAX = 79
_SEP = "|"


@dataclass(frozen=True)
class Click:
    """A review button read back: answer (question, option in bank order, due stamp), next or
    stop; with the language and filter of the review it belongs to. A drill's (bot/drills.py)
    answer "b" and next "m" also carry where the drill is in the person's missed questions (the
    missed time of the one shown: the next is older) and how many it asked."""

    kind: str  # "a", "n" or "s"; a drill's "b" or "m"
    lang: Lang
    flt: Filter
    question_id: str = ""
    option: int = 0
    stamp: int = 0
    cursor: int = 0
    count: int = 0


FIELDS = {"a": 5, "n": 2, "s": 2, "b": 7, "m": 5}  # each kind's fields after its head


def encode(click: Click) -> str:
    """The token of a button; the topic is dropped rather than let it overflow TOKEN_MAX."""
    lang = "i" if click.lang == "id" else "e"
    level = str(click.flt.level or "")
    fields = [click.kind + lang]
    if click.kind in ("a", "b"):
        fields += [click.question_id, str(click.option), _b36(click.stamp)]
    if click.kind == "m":
        fields += [click.question_id]  # with the cursor, where the drill is (ties by id)
    if click.kind in ("b", "m"):
        fields += [_b36(click.cursor), str(click.count)]
    token = _SEP.join([*fields, level, click.flt.topic or ""])
    if len(token) > TOKEN_MAX:
        token = _SEP.join([*fields, level, ""])
    return token


def decode(token: str) -> Click | None:
    """A token back to its click, or None if it isn't one this code wrote."""
    if len(token) > TOKEN_MAX or len(token) < 2:
        return None
    head, *fields = token.split(_SEP)
    if len(head) != 2 or head[0] not in FIELDS or head[1] not in "ei":
        return None
    kind = head[0]
    lang: Lang = "id" if head[1] == "i" else "en"
    if len(fields) != FIELDS[kind]:
        return None
    level_word, topic = fields[-2], fields[-1]
    level = parse_level(level_word) if level_word else None
    if level_word and (level is None or not level_word.isdigit()):
        return None
    flt = Filter(topic or None, level)
    cursor = count = 0
    if kind in ("b", "m"):
        where, asked = fields[-4], fields[-3]
        cursor_ms = _int36(where)
        if cursor_ms is None or not asked.isascii() or not asked.isdigit() or len(asked) > 2:
            return None
        cursor, count = cursor_ms, int(asked)
    if kind == "m":
        return Click(kind, lang, flt, fields[0], cursor=cursor, count=count) if fields[0] else None
    if kind not in ("a", "b"):
        return Click(kind, lang, flt)
    qid, option, stamp = fields[0], fields[1], fields[2]
    if not qid or not option.isascii() or not option.isdigit() or len(option) > 1:
        return None
    stamp_ms = _int36(stamp)
    if stamp_ms is None:
        return None
    return Click(kind, lang, flt, qid, int(option), stamp_ms, cursor, count)


def _int36(text: str) -> int | None:
    if not text or not text.isascii() or not text.isalnum():
        return None
    try:
        return int(text, 36)
    except ValueError:
        return None


class Reviews:
    def __init__(self, store: Store, library: Library, clock: Clock) -> None:
        self._store = store
        self._library = library
        self._clock = clock

    async def start(self, user: UserRef, flt: Filter, lang: Lang) -> ReviewView | NoticeView:
        """The first due card, or a notice that nothing is due (and when the next card is)."""
        due, upcoming = await self._due(user, flt)
        if not due:
            return self._nothing(lang, upcoming)
        question, stamp = due[0]
        return card_view(user, question, stamp, len(due), flt, lang)

    async def due_count(self, user: UserRef) -> int:
        """How many of the person's cards of bank questions are due now (a reminder's N)."""
        due, _ = await self._due(user, NO_FILTER)
        return len(due)

    def review_now(self, lang: Lang) -> ReviewButton:
        """The Home tab's "Review now": the first due card, of any topic."""
        return ReviewButton(
            "next", t(lang, "home_review_button"), encode(Click("n", lang, NO_FILTER))
        )

    async def click(
        self, user: UserRef, token: str, typed: str | None = None
    ) -> ReviewView | ReviewResult | NoticeView | None:
        """A review button: its answer, the next card, or the end; None for a foreign token.
        `typed`: the number typed for the card whose answer token this is (see `reschedule`)."""
        click = decode(token)
        kinds = ("a", "n", "s") if typed is None else ("a",)  # a number answers a card
        if click is None or click.kind not in kinds:
            return None
        if click.kind == "s":
            return NoticeView(click.lang, t(click.lang, "review_stopped"))
        if click.kind == "n":
            return await self.start(user, click.flt, click.lang)
        return await self.answer(user, click, typed)

    async def answer(
        self, user: UserRef, click: Click, typed: str | None = None
    ) -> ReviewResult | NoticeView:
        lang = click.lang
        done = await reschedule(
            self._store, self._library, self._clock, user, click, early=False, typed=typed
        )
        if isinstance(done, NoticeView):
            return done
        question, rescheduled, graded = done
        due, upcoming = await self._due(user, click.flt)
        footer = t(lang, "review_left" if due else "review_done", count=len(due))
        next_due = None if due else upcoming
        return result_view(
            user, question, click, rescheduled, len(due), footer, next_due=next_due, typed=graded
        )

    async def _due(
        self, user: UserRef, flt: Filter
    ) -> tuple[list[tuple[Question, int]], datetime | None]:
        """The person's due cards of bank questions matching the filter, most overdue first
        (with each card's due stamp), and when the next one not yet due will be."""
        now = self._clock.now()
        due: list[tuple[Question, int]] = []
        upcoming: datetime | None = None
        for question_id, due_at in await self._store.cards.of(user):
            question = await self._library.get(question_id)
            if question is None or not flt.matches(question):
                continue
            if due_at <= now:
                due.append((question, to_ms(due_at)))
            elif upcoming is None:
                upcoming = due_at
        return due, upcoming

    def _nothing(self, lang: Lang, upcoming: datetime | None) -> NoticeView:
        """Nothing (more) due; the adapter writes `next_due` in the reader's own zone."""
        return NoticeView(lang, t(lang, "review_none"), next_due=upcoming)


async def reschedule(
    store: Store,
    library: Library,
    clock: Clock,
    user: UserRef,
    click: Click,
    *,
    early: bool,
    typed: str | None = None,
) -> tuple[Question, bool, Graded | None] | NoticeView:
    """The clicked card's question, whether this click rescheduled it (only while the card
    still has the due time it was shown with: a second click changes nothing) and, for a number
    `typed` instead of a letter, how it was graded (bot/typed.py); a notice (not ok, nothing
    changed, the card stays) for a button that names no question or a typed text that is no
    number. `early`: a drill reviews a card before it is due."""
    question = await library.get(click.question_id)
    if question is None or not 0 <= click.option < len(question.options):
        return NoticeView(click.lang, t(click.lang, "button_invalid"), ok=False)
    graded = grade(question, typed, click.lang) if typed is not None else None
    if typed is not None and (graded is None or question.number is None):
        words = invalid(question.number, click.lang) if question.number else ""
        return NoticeView(click.lang, words or t(click.lang, "button_invalid"), ok=False)
    correct = graded.correct if graded else click.option == question.answer
    now = clock.now()

    def rule(state: str) -> CardState:
        return review.next_card(state, correct, now)

    if not early and to_ms(now) < click.stamp:
        return question, False, graded
    return question, await store.cards.review(user, question.id, click.stamp, rule), graded


def card_view(
    user: UserRef,
    question: Question,
    stamp: int,
    due: int,
    flt: Filter,
    lang: Lang,
    *,
    drill: tuple[int, int, str] | None = None,
) -> ReviewView:
    """A card to answer; a drill's (`drill`: the missed time of this one, how many the drill has
    asked with it, the line under it) answers with drill buttons."""
    order = _order(user, question)
    options = option_lines(question, order, lang)
    cursor, count = (drill[0], drill[1]) if drill else (0, 0)
    kind = "b" if drill else "a"
    buttons = tuple(
        ReviewButton(
            "answer",
            LETTERS[i],
            encode(Click(kind, lang, flt, question.id, src, stamp, cursor, count)),
        )
        for i, src in enumerate(order)
    )
    return ReviewView(
        lang=lang,
        title=t(lang, "drill_title" if drill else "review_title"),
        question_id=question.id,
        prompt=question.prompt.get(lang),
        options=options,
        due_line=drill[2] if drill else t(lang, "review_due", count=due),
        due=due,
        buttons=buttons,
        typed=form(question.number, lang) if question.number else None,
    )


def result_view(
    user: UserRef,
    question: Question,
    click: Click,
    rescheduled: bool,
    remaining: int,
    footer: str,
    *,
    next_due: datetime | None = None,
    typed: Graded | None = None,
) -> ReviewResult:
    """The verdict on a review answer (a letter, or the number `typed`), with the explanation;
    Next and Stop while cards remain (a drill's Next goes on from the question it showed)."""
    lang = click.lang
    correct = typed.correct if typed else click.option == question.answer
    order = _order(user, question)
    headline = verdict_headline(lang, question, order, click.option)
    mistake = mistake_for(lang, question, order, click.option)
    if typed is not None:
        key, text = LETTERS[order.index(question.answer)], question.options[question.answer]
        status = "correct" if correct else "wrong"
        headline = t(lang, f"typed_{status}", typed=typed.typed, letter=key, text=text.get(lang))
        label = t(lang, "why_typed", typed=typed.typed)
        mistake = Mistake(label, typed.why.get(lang)) if typed.why else None
    if not rescheduled:
        headline += " " + t(lang, "review_already")
    drill = click.kind == "b"
    following = (
        Click("m", lang, click.flt, click.question_id, cursor=click.cursor, count=click.count)
        if drill
        else Click("n", lang, click.flt)
    )
    buttons = (
        ReviewButton("next", t(lang, "review_next"), encode(following)),
        ReviewButton("stop", t(lang, "review_stop"), encode(Click("s", lang, click.flt))),
    )
    return ReviewResult(
        lang=lang,
        title=t(lang, "drill_title" if drill else "review_title"),
        question_id=question.id,
        prompt=question.prompt.get(lang),
        correct=correct,
        rescheduled=rescheduled,
        headline=headline,
        explanation=question.explanation.get(lang),
        why_label=t(lang, "why"),
        footer=footer,
        remaining=remaining,
        buttons=buttons if remaining else (),
        next_due=next_due,
        chart=question_chart(question.chart, lang),
        mistake=mistake,
    )


def _order(user: UserRef, question: Question) -> tuple[int, ...]:
    """The option order of this person's review of this question: seeded from stable data, so
    every rendering (after a restart too) shows the same letters."""
    seed = zlib.crc32(f"{user.platform}:{user.team}:{user.user}:{question.id}".encode())
    return permutation(seed, len(question.options))


def _b36(value: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        value, rest = divmod(value, 36)
        out = digits[rest] + out
        if value == 0:
            return out
