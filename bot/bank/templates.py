"""Question templates: a seed draws the numbers, the formulas give the answer and the mistakes.

A drawn question's id is `<template id>@<seed>`, so a round that stores only its question id can
always be re-drawn: `Bank.get` turns the id back into the very same question after a restart, at
a reveal or in a review. Everything here is a pure function of the template and the seed.
"""

from __future__ import annotations

import math
import random
import string
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import NamedTuple

from bot.bank import limits, memchart
from bot.bank.formula import Formula
from bot.bank.numbers import format_amount, format_number, rounded, tolerance
from bot.model import LANGS, Lang, MemoryChart, Numeric, Question, Text, Tolerance
from bot.shuffle import permutation

SEED_LIMIT = 2**31  # rounds draw their seeds with getrandbits(31)
MAX_TEMPLATE_ID = limits.MAX_ID - len(f"@{SEED_LIMIT - 1}")  # a drawn id stays within MAX_ID
OPTIONS = 4
# When a mistake gives the answer's number (or another mistake's) once rounded, the next listed
# mistake is taken, then these multiples of the answer: options always differ as people see them.
FALLBACK_FACTORS = (2.0, 0.5, 4.0, 0.25, 8.0, 3.0, 1.5, 10.0)
ANSWER = "answer"
CASE = "case"  # the placeholder that shows the drawn case's label


class Distractor(NamedTuple):
    formula: Formula
    mistake: str  # for authors: which usual mistake this option stands for
    why: Text | None = None  # for learners: why the number it gives is wrong (placeholders filled)


class Case(NamedTuple):
    """A named row drawn as a whole (a precision and its bytes per parameter): numbers that only
    make sense together, which independent params could not keep together."""

    label: Text
    values: tuple[tuple[str, float], ...]  # name -> number; every case of a template, same names


class Template(NamedTuple):
    id: str
    prompt: Text
    explanation: Text
    params: tuple[tuple[str, tuple[float, ...]], ...]  # name -> allowed values, in file order
    values: tuple[tuple[str, Formula], ...]  # named steps of the worked arithmetic
    answer: Formula
    distractors: tuple[Distractor, ...]
    unit: str = "GB"
    source: str | None = None
    tags: tuple[str, ...] = ()
    difficulty: int | None = None
    origin: str = ""
    cases: tuple[Case, ...] = ()
    chart: int | None = None  # memory templates: the stage asked about (index into memchart.STAGES)
    tolerance: Tolerance | None = None  # a typed answer's (None: the one the rounding implies)

    def drawn(self, seed: int) -> tuple[dict[str, float], Case | None]:
        """The params and the case this seed draws, with Random.random(), which Python keeps
        across versions; the case is drawn after the params, so a template without cases draws
        what it drew before cases existed."""
        rng = random.Random(seed)
        params = {name: allowed[int(rng.random() * len(allowed))] for name, allowed in self.params}
        case = self.cases[int(rng.random() * len(self.cases))] if self.cases else None
        return params, case

    def evaluate(
        self, params: Mapping[str, float], case: Case | None = None
    ) -> tuple[dict[str, float], float, list[float]]:
        """(params, the case's values and named values, answer, mistakes); ZeroDivisionError if a
        formula divides by zero, ValueError if the answer is not a positive number."""
        env = dict(params)
        env.update(case.values if case else ())
        for name, formula in self.values:
            env[name] = formula.evaluate(env)
        answer = self.answer.evaluate(env)
        if not (math.isfinite(answer) and answer > 0):
            raise ValueError(f"gives an answer that is not positive ({answer:g})")
        return env, answer, [d.formula.evaluate(env) for d in self.distractors]

    def draw(self, seed: int) -> Question | None:
        """The question for this seed, or None when its numbers are not a valid question."""
        params, case = self.drawn(seed)
        try:
            env, answer, wrong = self.evaluate(params, case)
        except (ZeroDivisionError, ValueError):
            return None
        chosen, sources = picked(answer, wrong)
        amounts = [_amount(value, self.unit) for value in chosen]
        order = permutation(seed, OPTIONS)  # display-independent: the round shuffles again
        env[ANSWER] = answer
        filled = _filler(env, self.unit, case)  # the numbers formatted once for every text
        whys = [self.reason(i, filled) for i in range(len(wrong))]
        reasons = [whys[source] if 0 <= source < len(wrong) else None for source in sources]
        # What a typed answer may be recognised as: each mistake (the option it shows as, in file
        # order, or -1) and each fallback multiple shown.
        shown = {source: order.index(k) for k, source in enumerate(sources)}
        named = [
            (value, shown.get(i, -1), whys[i])
            for i, value in enumerate(wrong)
            if math.isfinite(value)
        ]
        fallbacks = [k for k, source in enumerate(sources) if source >= len(wrong)]
        named += [(chosen[k], order.index(k), None) for k in fallbacks]
        return Question(
            id=f"{self.id}@{seed}",
            prompt=filled(self.prompt),
            options=tuple(amounts[i] for i in order),
            answer=order.index(0),
            explanation=filled(self.explanation),
            source=self.source,
            tags=self.tags,
            difficulty=self.difficulty,
            origin=self.origin,
            chart=self.memory_chart(env),
            reasons=tuple(reasons[i] for i in order) if any(reasons) else (),
            number=Numeric(answer, self.unit, self.tolerance, tuple(named)),
        )

    def reason(self, source: int, filled: Callable[[Text], Text]) -> Text | None:
        """The reason shown for a drawn option: its distractor's `why`, filled (None for the
        answer, -1, and for a fallback multiple, which names no mistake)."""
        if not 0 <= source < len(self.distractors):
            return None
        why = self.distractors[source].why
        return filled(why) if why is not None else None

    def memory_chart(self, env: Mapping[str, float]) -> MemoryChart | None:
        """The stages side by side for a memory template, from the drawn Ψ and Nd."""
        if self.chart is None:
            return None
        return memchart.chart(env["psi"], env["nd"], self.chart)

    def check_numbers(
        self, params: Mapping[str, float], case: Case | None = None
    ) -> tuple[str, str] | None:
        """(field, message) when these params (and case) give no valid question, or mistakes that
        coincide with the answer or each other once rounded (fallbacks would be needed)."""
        shown = ", ".join(f"{name}={value:g}" for name, value in params.items())
        if case is not None:
            shown = f"case '{case.label.en}', {shown}"
        try:
            env, answer, wrong = self.evaluate(params, case)
        except ZeroDivisionError:
            return "answer", f"divides by zero ({shown})"
        except ValueError as exc:
            return "answer", f"{exc} ({shown})"
        shown_chart = self.memory_chart(env)
        if shown_chart is not None:
            bar = shown_chart.bars[shown_chart.marked]
            if rounded(bar) != rounded(answer):
                stage = memchart.STAGES[self.chart or 0]
                return "chart", (
                    f"the chart's {stage} bar is {format_number(bar, 'en')} {self.unit} but the "
                    f"answer is {format_number(answer, 'en')} {self.unit} ({shown})"
                )
        chosen, fallbacks = pick(answer, wrong)
        typed = self.check_tolerance(answer, chosen[1:], shown)
        if typed is not None or not fallbacks:
            return typed
        return "distractors", (
            f"with {shown} the mistakes give only {OPTIONS - 1 - fallbacks} options that differ "
            "from the answer and each other as shown; add a mistake or change the params"
        )

    def check_tolerance(
        self, answer: float, options: list[float], shown: str
    ) -> tuple[str, str] | None:
        """A typed answer must be right when it is the answer as shown, and never when it is
        another option: the tolerance holds the shown answer and no other option."""
        window, exact = tolerance(answer, self.tolerance), Decimal(repr(answer))
        field = "tolerance" if self.tolerance else "distractors"
        if abs(rounded(answer) - exact) > window:
            return field, f"the answer as shown is outside the tolerance ({shown})"
        if any(abs(Decimal(repr(value)) - exact) <= window for value in options):
            return field, f"an option is within the answer's tolerance ({shown})"
        return None

    def check_texts(self, seed: int) -> list[tuple[str, str]]:
        """(field, message) for each text of this seed's draw that is over its limit."""
        question = self.draw(seed)
        if question is None:
            return []  # check_numbers reports why
        found = []
        for field, text, limit in (
            ("prompt", question.prompt, limits.MAX_PROMPT),
            ("explanation", question.explanation, limits.MAX_EXPLANATION),
            *(("distractors", option, limits.MAX_OPTION) for option in question.options),
            *(("distractors", why, limits.MAX_WHY) for why in question.reasons if why),
        ):
            for lang in LANGS:
                size = len(text.get(lang))
                if size > limit:
                    message = f"{field} ({lang}) for seed {seed} is {size} characters"
                    found.append((field, f"{message}; the limit is {limit}"))
        return found


def _amount(value: float, unit: str) -> Text:
    return Text(en=format_amount(value, unit, "en"), id=format_amount(value, unit, "id"))


def pick(answer: float, wrong: list[float]) -> tuple[list[float], int]:
    """The answer first, then three mistakes that differ from it and each other once rounded
    as shown (the same rounding in every language); and how many had to be fallback multiples
    (the checker wants none)."""
    chosen, sources = picked(answer, wrong)
    return chosen, sum(source >= len(wrong) for source in sources)


def picked(answer: float, wrong: list[float]) -> tuple[list[float], list[int]]:
    """`pick`'s values, and where each came from: -1 for the answer, the mistake's index, or an
    index past the mistakes for a fallback multiple."""
    chosen, sources, shown = [answer], [-1], {rounded(answer)}
    for i, value in enumerate([*wrong, *(answer * f for f in FALLBACK_FACTORS)]):
        if len(chosen) == OPTIONS:
            break
        if math.isfinite(value) and value > 0 and rounded(value) not in shown:
            chosen.append(value)
            sources.append(i)
            shown.add(rounded(value))
    return chosen, sources


def placeholders(text: str) -> list[str]:
    """The {names} a text uses; ValueError for a stray brace or a {name!r} / {name:spec}."""
    names = []
    for _, name, spec, conversion in string.Formatter().parse(text):
        if name is None:
            continue
        if spec or conversion:
            raise ValueError(f"placeholder '{{{name}}}' takes no format; write just {{{name}}}")
        if not name.isidentifier():
            raise ValueError(f"placeholder '{{{name}}}' must be a plain name")
        names.append(name)
    return names


def _filler(env: Mapping[str, float], unit: str, case: Case | None) -> Callable[[Text], Text]:
    """Fills a text's placeholders with this draw's numbers (and unit and case), each number
    formatted once per language however many texts it fills."""

    def shown(lang: Lang) -> dict[str, str]:
        out = {name: format_number(value, lang) for name, value in env.items()}
        out[ANSWER] = format_amount(env[ANSWER], unit, lang)
        if case is not None:
            out[CASE] = case.label.get(lang)
        return out

    en, id_ = shown("en"), shown("id")
    return lambda text: Text(en=text.en.format_map(en), id=text.id.format_map(id_))


def parse_draw_id(question_id: str) -> tuple[str, int] | None:
    """(template id, seed) for a drawn question's id; None for any other id."""
    template_id, at, digits = question_id.partition("@")
    if not at or not digits.isascii() or not digits.isdigit() or len(digits) > 10:
        return None
    seed = int(digits)
    if str(seed) != digits or seed >= SEED_LIMIT:
        return None  # one question, one id: no leading zeros
    return template_id, seed
