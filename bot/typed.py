"""Typed answers to generated questions: the number a person typed, read as people write it
(bot/bank/numbers.py `read_number`), graded against the answer with the tolerance its rounding
implies (or the template's `tolerance:`), and recognised as a named mistake when it is one.

Pure functions of the question and the text; bot/typed_answers.py records a round's typed answer
as its person's one answer, and bot/reviewing.py grades a review card's the same way. Which option
a typed number is feeds the same counts as a click on it (a reveal's spread, the insights' options):
the key when it is right, the option of the mistake it matches, and -1 (no option) otherwise.
"""

from __future__ import annotations

from decimal import Decimal
from typing import NamedTuple

from bot.bank.numbers import format_amount, read_number, rounded, tolerance
from bot.i18n import t
from bot.model import Lang, Numeric, Question, Text
from bot.views import TypedForm

EXAMPLES = ("3.14159", "2.71828")  # scaled to the answer's magnitude; the second if the first is it


class Graded(NamedTuple):
    """A typed answer graded: what was typed (trimmed, its spaces collapsed), whether it is right,
    the option it is in file order (-1: none) and, for a named mistake, why it is wrong."""

    typed: str
    correct: bool
    option: int
    why: Text | None = None


def grade(question: Question, text: str, lang: Lang) -> Graded | None:
    """The typed text graded, or None when it is no number in the question's unit (or the
    question takes no typed answer). The key wins; else the nearest mistake within its own
    tolerance."""
    number = question.number
    value = read_number(text, number.unit, lang) if number is not None else None
    if number is None or value is None:
        return None
    typed = " ".join(text.split())
    if _within(value, number.value, number):
        return Graded(typed, True, question.answer)
    near = [
        (abs(value - Decimal(repr(mistake))), option, why)
        for mistake, option, why in number.mistakes
        if _within(value, mistake, number)
    ]
    if not near:
        return Graded(typed, False, -1)
    _, option, why = min(near, key=lambda found: found[0])
    return Graded(typed, False, option, why)


def _within(value: Decimal, target: float, number: Numeric) -> bool:
    return abs(value - Decimal(repr(target))) <= tolerance(target, number.tolerance)


def example(number: Numeric, lang: Lang) -> str:
    """How to type a number, in the answer's unit and magnitude ("31.4 GB" for 27.5 GB), never
    a number that would be right."""
    scale = Decimal(repr(number.value)).copy_abs().adjusted()
    shown = rounded(number.value)
    for digits in EXAMPLES:
        value = float(Decimal(digits).scaleb(scale))
        if rounded(value) != shown and not _within(Decimal(repr(value)), number.value, number):
            break
    return format_amount(value, number.unit, lang)


def invalid(number: Numeric, lang: Lang) -> str:
    """What an unreadable typed answer is told (nothing was recorded)."""
    return t(lang, "typed_invalid", example=example(number, lang))


def form(number: Numeric, lang: Lang) -> TypedForm:
    """The "Type it" button and the words of its form."""
    shown = example(number, lang)
    return TypedForm(
        lang=lang,
        button=t(lang, "typed_button"),
        title=t(lang, "typed_title"),
        label=t(lang, "typed_label", unit=number.unit),
        placeholder=t(lang, "typed_placeholder", example=shown),
        submit=t(lang, "typed_submit"),
        example=shown,
    )
