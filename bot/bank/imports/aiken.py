"""The Aiken format (Moodle's simplest): a question's text, its options `A)` or `A.` in letter
order, then `ANSWER: X`. It has no ids, titles or feedback.

The text is meant to be one line; further text lines before the options are kept as further
lines of the question (Moodle reads them so too) rather than refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.bank import limits
from bot.bank.imports.common import Draft, Parsed, source_lines
from bot.model import Lang

_OPTION = re.compile(r"([A-Z])[.)](?:\s+(.*))?")
_ANSWER = re.compile(r"ANSWER\s*:(.*)", re.I)  # Moodle wants "ANSWER:"; "Answer :" is as clear


@dataclass
class _Open:
    """A question read up to its ANSWER line."""

    line: int
    number: int
    text: list[str]
    options: list[tuple[str, int]] = field(default_factory=list)  # (text, source line)
    broken: bool = False  # a problem was reported already: no question comes of it


def parse(text: str, label: str, lang: Lang) -> Parsed:
    """Every question of an Aiken text, or a problem at the line where it goes wrong."""
    out = Parsed(label, lang)
    current: _Open | None = None
    number = 0
    for lineno, raw in enumerate(source_lines(text), start=1):
        line = raw.strip()
        if not line:
            continue
        answer = _ANSWER.fullmatch(line)
        if current is None:
            if answer:
                out.problem(lineno, "'ANSWER:' without a question before it")
                continue
            number += 1
            current = _Open(lineno, number, [line])
        elif answer:
            _finish(current, answer.group(1).strip(), lineno, out)
            current = None
        elif (option := _OPTION.fullmatch(line)) and (current.options or option.group(1) == "A"):
            expected = chr(ord("A") + len(current.options))
            if option.group(1) != expected:
                message = f"option '{option.group(1)}' where '{expected}' comes next"
                out.problem(lineno, message)
                current.broken = True
            current.options.append(((option.group(2) or "").strip(), lineno))
        elif current.options:
            _missing_answer(current, out)
            number += 1
            current = _Open(lineno, number, [line])
        else:
            current.text.append(line)
    if current is not None:
        _missing_answer(current, out)
    return out


def _missing_answer(question: _Open, out: Parsed) -> None:
    out.problem(question.line, "the question has no 'ANSWER: X' line after its options")


def _finish(question: _Open, letter: str, line: int, out: Parsed) -> None:
    """The question closed by `ANSWER: letter` at `line`."""
    count = len(question.options)
    if question.broken:
        return
    if count < limits.MIN_OPTIONS:
        message = f"the question has {count} options ('A)', 'B)' ...); it needs 2 to 5"
        out.problem(question.line, message)
        return
    last = chr(ord("A") + count - 1)
    if not re.fullmatch(r"[A-Za-z]", letter):
        out.problem(line, f"'ANSWER:' must give one letter from A to {last}")
        return
    answer = ord(letter.upper()) - ord("A")
    if answer >= count:
        out.problem(line, f"'ANSWER: {letter}' names no option (they are A to {last})")
        return
    if count > limits.MAX_OPTIONS:
        out.skip(question.line, f"{count} options; a question has at most {limits.MAX_OPTIONS}")
        return
    draft = Draft(
        line=question.line,
        number=question.number,
        prompt="\n".join(question.text),
        options=tuple(text for text, _ in question.options),
        answer=answer,
        whys=(None,) * count,
        option_lines=tuple(n for _, n in question.options),
    )
    out.add(draft)
