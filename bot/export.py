"""The bank as plain data: JSON for other tools, or a question file that `zeroquiz validate` and
`zeroquiz serve --questions` read back (templates stay templates, their formulas as written)."""

from __future__ import annotations

import itertools
from typing import Any

import yaml

from bot.bank import Bank, memchart
from bot.bank.templates import Distractor, Template
from bot.model import Question, Text

Data = dict[str, Any]


def _text(text: Text) -> dict[str, str]:
    return {"en": text.en, "id": text.id}


def bank_to_data(bank: Bank) -> list[dict[str, Any]]:
    return [
        {
            "id": q.id,
            "prompt": _text(q.prompt),
            "options": _options(q, correct=False),
            "answer": q.answer,
            "explanation": _text(q.explanation),
            "source": q.source,
            "tags": list(q.tags),
            "difficulty": q.difficulty,
        }
        for q in bank.questions
    ]


def _options(q: Question, *, correct: bool) -> list[Data]:
    """Each option's texts and, for a wrong one that gives it, its `why`; `correct: true` on the
    key when asked (the JSON names the key by `answer` instead)."""
    out: list[Data] = []
    for i, option in enumerate(q.options):
        entry: Data = _text(option)
        if correct and i == q.answer:
            entry["correct"] = True
        reason = q.reason(i)
        if reason is not None:
            entry["why"] = _text(reason)
        out.append(entry)
    return out


def _number(value: float) -> int | float:
    """Whole numbers written as integers, as an author writes them (and a range needs them)."""
    return int(value) if value.is_integer() else value


def _allowed(values: tuple[float, ...]) -> list[int | float] | dict[str, int]:
    """A param's values; an evenly spaced run of whole numbers as the {from, to, step} it was
    most likely written as, so that a 64-value range stays one line."""
    steps = {b - a for a, b in itertools.pairwise(values)}
    if len(values) >= 3 and all(v.is_integer() for v in values) and len(steps) == 1:
        step = steps.pop()
        if step > 0:
            return {"from": int(values[0]), "to": int(values[-1]), "step": int(step)}
    return [_number(v) for v in values]


def _common(item: Question | Template) -> Data:
    """id, difficulty, tags and source, each only when set (as in the bundled files)."""
    out: Data = {"id": item.id}
    if item.difficulty is not None:
        out["difficulty"] = item.difficulty
    if item.tags:
        out["tags"] = list(item.tags)
    if item.source is not None:
        out["source"] = item.source
    return out


def question_entry(q: Question) -> Data:
    return _common(q) | {
        "prompt": _text(q.prompt),
        "options": _options(q, correct=True),
        "explanation": _text(q.explanation),
    }


def template_entry(t: Template) -> Data:
    out = _common(t) | {"unit": t.unit, "params": {n: _allowed(v) for n, v in t.params}}
    if t.cases:
        out["cases"] = [
            {"label": _text(c.label), "values": {n: _number(v) for n, v in c.values}}
            for c in t.cases
        ]
    if t.values:
        out["values"] = {name: formula.text for name, formula in t.values}
    if t.chart is not None:
        out["chart"] = memchart.STAGES[t.chart]
    if t.tolerance is not None:  # as written: "2%", or the amount in the unit
        amount = t.tolerance.amount
        out["tolerance"] = f"{amount * 100:g}%" if t.tolerance.relative else f"{amount:g}"
    return out | {
        "answer": t.answer.text,
        "distractors": [_distractor(d) for d in t.distractors],
        "prompt": _text(t.prompt),
        "explanation": _text(t.explanation),
    }


def _distractor(d: Distractor) -> Data:
    out: Data = {"formula": d.formula.text, "mistake": d.mistake}
    return out | ({"why": _text(d.why)} if d.why is not None else {})


def bank_to_file(bank: Bank) -> Data:
    """The bank in the shape of a question file: {questions: [...], templates: [...]}."""
    out: Data = {}
    if bank.questions:
        out["questions"] = [question_entry(q) for q in bank.questions]
    if bank.templates:
        out["templates"] = [template_entry(t) for t in bank.templates]
    return out


class _NoAliases(yaml.SafeDumper):
    """Question files may not hold aliases (`*name`); every value is written out."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def bank_to_yaml(bank: Bank) -> str:
    return yaml.dump(
        bank_to_file(bank), Dumper=_NoAliases, allow_unicode=True, sort_keys=False, width=100
    )
