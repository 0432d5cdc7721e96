"""Every review view the core can build for a question: the card, and the verdicts (right,
wrong, a repeated click; with cards left and with none), with the longest filter and the
widest due numbers, in both languages. Renderer tests hold each to its platform's limits."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

from bot.bank.limits import MAX_EXPLANATION, MAX_OPTION, MAX_OPTIONS, MAX_PROMPT
from bot.i18n import t
from bot.model import LANGS, Question, Text, UserRef
from bot.reviewing import Click, card_view, result_view
from bot.topics import Filter
from bot.views import ReviewResult, ReviewView

WHO = UserRef("test", "T" * 64, "U" * 64)
STAMP = 4_102_444_800_000  # 2100-01-01: a long stamp
LATEST = datetime(9999, 12, 31, 23, 59, tzinfo=UTC)  # the widest date token a renderer writes


def longest() -> Question:
    """A question at the bank's maximum lengths, with an id and a tag of the longest."""
    return Question(
        id="x" * 40,
        prompt=Text("W" * MAX_PROMPT, "W" * MAX_PROMPT),
        options=(Text("O" * MAX_OPTION, "O" * MAX_OPTION),) * MAX_OPTIONS,
        answer=MAX_OPTIONS - 1,
        explanation=Text("E" * MAX_EXPLANATION, "E" * MAX_EXPLANATION),
        tags=("t" * 40,),
        difficulty=3,
    )


def review_views(question: Question) -> Iterator[ReviewView | ReviewResult]:
    for lang in LANGS:
        flt = Filter(question.tags[0] if question.tags else None, question.difficulty)
        yield card_view(WHO, question, STAMP, 10**6, flt, lang)
        wrong = (question.answer + 1) % len(question.options)
        for option in (question.answer, wrong):
            click = Click("a", lang, flt, question.id, option, STAMP)
            for rescheduled in (True, False):
                left = t(lang, "review_left", count=10**6)
                yield result_view(WHO, question, click, rescheduled, 10**6, left)
                done = t(lang, "review_done")
                yield result_view(WHO, question, click, rescheduled, 0, done, next_due=LATEST)
