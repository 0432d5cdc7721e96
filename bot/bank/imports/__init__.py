"""Question files from other quiz tools (Moodle's GIFT and Aiken, Kahoot's spreadsheet saved as
CSV) converted into a one-language team pack, the YAML check_pack reads.

Everything here takes text and returns values (no files, no network), so a command, the CLI or a
test can use it alike. What a pack can't hold (short answers, matching, several right answers
...) is listed as skipped, never dropped silently; what is wrong is a problem at the line of the
file the person wrote, since they will fix that file, not the YAML made from it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bot.bank import limits
from bot.bank.bank import ID_PATTERN, Problem
from bot.bank.imports import aiken, gift, kahoot
from bot.bank.imports.common import Parsed
from bot.bank.imports.pack import render, source_line, source_lines
from bot.bank.packs import MAX_PACK_BYTES, MAX_PACK_QUESTIONS
from bot.model import Lang

__all__ = ["FORMATS", "Imported", "convert", "guess_format", "source_problems"]

FORMATS = ("gift", "aiken", "csv")

_PARSERS: dict[str, Callable[[str, str, Lang], Parsed]] = {
    "gift": gift.parse,
    "aiken": aiken.parse,
    "csv": kahoot.parse,
}
_SUFFIXES = {"gift": "gift", "aiken": "aiken", "csv": "csv"}
_AIKEN_ANSWER = re.compile(r"^[ \t]*ANSWER:[ \t]*[A-Za-z][ \t]*$", re.M)
_GIFT_ANSWERS = re.compile(r"\{[^{}]*[=~][^{}]*\}")


@dataclass(frozen=True)
class Imported:
    """A converted file: the pack's YAML, and what was left out or is wrong (at source lines)."""

    yaml: str  # a one-language pack: `language: <lang>` then `questions:` (and `name:` if given)
    count: int  # questions converted
    skipped: tuple[Problem, ...]  # Problem(label, source_line, "skipped: <what and why>")
    problems: tuple[Problem, ...]  # invalid input: nothing may be stored if any


def guess_format(filename: str, text: str) -> str | None:
    """'gift' for .gift, 'aiken' for .aiken, 'csv' for .csv; for .txt (both GIFT and Aiken use it)
    sniff the text (a line `ANSWER: X` -> aiken; `{`...`}` with `=`/`~` -> gift); None otherwise."""
    base, dot, suffix = filename.rpartition(".")
    suffix = suffix.lower() if dot and base else ""
    if suffix in _SUFFIXES:
        return _SUFFIXES[suffix]
    if suffix != "txt":
        return None
    if _AIKEN_ANSWER.search(text):
        return "aiken"
    if _GIFT_ANSWERS.search(text):
        return "gift"
    return None


def convert(text: str, label: str, fmt: str, lang: Lang, name: str | None = None) -> Imported:
    """Parse and convert; every problem and skip names `label` and the SOURCE line (1-based).

    The YAML holds the questions that could be read even when there are problems (to show what
    would come of the file), but it is a valid pack only when `problems` is empty."""
    if fmt not in _PARSERS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    parsed = _PARSERS[fmt](text, label, lang)
    problems = list(parsed.problems)
    if name is not None and not (ID_PATTERN.match(name) and len(name) <= limits.MAX_ID):
        message = f"name must use lowercase letters, digits and '-' (at most {limits.MAX_ID})"
        problems.append(Problem(label, 0, message))
        name = None
    count = len(parsed.questions)
    if count == 0 and not problems:
        held = f" ({len(parsed.skipped)} skipped)" if parsed.skipped else ""
        problems.append(Problem(label, 0, f"the file holds no question a pack can hold{held}"))
    if count > MAX_PACK_QUESTIONS:
        message = (
            f"the file holds {count} questions; a pack holds at most {MAX_PACK_QUESTIONS} "
            "(split it into several files)"
        )
        problems.append(Problem(label, 0, message))
    yaml = render(parsed.questions, lang, name)
    size = len(yaml.encode("utf-8", errors="surrogateescape"))
    if size > MAX_PACK_BYTES:
        message = f"the pack would be {size} bytes; the limit is {MAX_PACK_BYTES} (split the file)"
        problems.append(Problem(label, 0, message))
    return Imported(yaml, count, tuple(parsed.skipped), tuple(sorted(problems)))


def source_problems(imported: Imported, problems: Sequence[Problem]) -> list[Problem]:
    """Problems that check_pack found in imported.yaml (named `label`, YAML lines), re-pointed at
    the source line of the question they fall in (or line 0 when outside any question)."""
    marks = source_lines(imported.yaml)
    return [Problem(p.path, source_line(marks, p.line), p.message) for p in problems]
