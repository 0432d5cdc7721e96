"""What the three parsers share: a question as read from its source, and the bank's limits checked
against it at the source's own lines, so an author fixes the file they wrote, not our YAML."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import NamedTuple

from bot.bank import limits
from bot.bank.bank import Problem
from bot.model import Lang

NEUTRAL = {"en": "The answer is: {}", "id": "Jawabannya: {}"}  # when the source explains nothing
TRUE_FALSE = {"en": ("True", "False"), "id": ("Benar", "Salah")}


class Draft(NamedTuple):
    """One question as the source gives it; ids and the pack's shape come later (pack.py)."""

    line: int  # where the question starts in the source (1-based)
    number: int  # its number in the file, skipped ones included: the id of an untitled one
    prompt: str
    options: tuple[str, ...]
    answer: int
    whys: tuple[str | None, ...]  # per option; never for the right one
    option_lines: tuple[int, ...]  # the source line of each option
    title: str | None = None
    tag: str | None = None
    feedback: str | None = None  # the general feedback: the explanation when given
    right_feedback: str | None = None  # the right answer's own feedback


@dataclass
class Parsed:
    """A parser's result: the questions that fit the bank, and what was skipped or is wrong."""

    label: str
    lang: Lang
    questions: list[Draft] = field(default_factory=list)
    skipped: list[Problem] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def skip(self, line: int, what: str) -> None:
        self.skipped.append(Problem(self.label, line, f"skipped: {what}"))

    def problem(self, line: int, message: str) -> None:
        self.problems.append(Problem(self.label, line, message))

    def add(self, draft: Draft) -> None:
        """Keep the question, or report each limit it breaks at the line that breaks it."""
        found = [Problem(self.label, line, message) for line, message in check(draft, self.lang)]
        if found:
            self.problems.extend(found)
        else:
            self.questions.append(draft)


def explanation(draft: Draft, lang: Lang) -> str:
    """The general feedback; else a neutral sentence naming the right option, followed by that
    option's own feedback when it has one (the pack requires an explanation)."""
    if draft.feedback:
        return draft.feedback
    right = draft.options[draft.answer]
    sentence = NEUTRAL[lang].format(right if right.endswith((".", "!", "?")) else right + ".")
    if draft.right_feedback:
        return f"{sentence} {draft.right_feedback}"
    return clip(sentence, limits.MAX_EXPLANATION)


def check(draft: Draft, lang: Lang) -> list[tuple[int, str]]:
    """(source line, message) for each of the loader's limits the question breaks."""
    out: list[tuple[int, str]] = []
    if not draft.prompt:
        out.append((draft.line, "the question has no text"))
    elif len(draft.prompt) > limits.MAX_PROMPT:
        out.append((draft.line, _long("the question", draft.prompt, limits.MAX_PROMPT)))
    count = len(draft.options)
    if not limits.MIN_OPTIONS <= count <= limits.MAX_OPTIONS:
        message = f"the question has {count} options; it needs 2 to {limits.MAX_OPTIONS}"
        out.append((draft.line, message))
    seen: set[str] = set()
    rows = zip(draft.options, draft.whys, draft.option_lines, strict=True)
    for i, (text, why, line) in enumerate(rows):
        what = f"option {i + 1}"
        if not text:
            out.append((line, f"{what} has no text"))
        elif len(text) > limits.MAX_OPTION:
            out.append((line, _long(what, text, limits.MAX_OPTION)))
        elif text.casefold() in seen:
            out.append((line, f"{what} repeats another option's text"))
        seen.add(text.casefold())
        if why is not None and len(why) > limits.MAX_WHY:
            out.append((line, _long(f"the feedback of {what}", why, limits.MAX_WHY)))
    if draft.feedback and len(draft.feedback) > limits.MAX_EXPLANATION:
        out.append(
            (draft.line, _long("the general feedback", draft.feedback, limits.MAX_EXPLANATION))
        )
    elif not out and len(explanation(draft, lang)) > limits.MAX_EXPLANATION:
        room = limits.MAX_EXPLANATION - len(explanation(draft._replace(right_feedback=None), lang))
        feedback = draft.right_feedback or ""
        out.append((draft.line, _long("the right answer's feedback", feedback, room - 1)))
    return out


def _long(what: str, text: str, limit: int) -> str:
    return f"{what} is {len(text)} characters; the limit is {limit}"


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def slug(text: str) -> str:
    """An id's or tag's form of a title: lowercase ASCII letters, digits and single '-'."""
    ascii_text = unicodedata.normalize("NFKD", text.lower()).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text).strip("-")[: limits.MAX_ID].rstrip("-")


def source_lines(text: str) -> list[str]:
    """The text's lines as an editor numbers them (\\n, \\r\\n or \\r), without a leading BOM."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
