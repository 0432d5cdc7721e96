"""Moodle's GIFT format, as Moodle's own importer reads it (qformat_gift), for the questions a
ZeroQuiz pack can hold: multiple choice with one right answer, and true/false.

Questions are separated by blank lines; each line is trimmed and `//` lines are dropped, as Moodle
does. Texts keep their escapes until the very end (`\\~ \\= \\# \\{ \\} \\: \\\\ \\n`), so every
search for a marker skips escaped ones. An `[html]` text is made plain: `<br>` and `</p>` become
line breaks, other tags are dropped and entities decoded (chat shows plain text, not HTML).
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right

from bot.bank import limits
from bot.bank.imports.common import TRUE_FALSE, Draft, Parsed, slug, source_lines
from bot.model import Lang

_ESCAPE = re.compile(r"\\(.)", re.S)
_UNESCAPED = {"~": "~", "=": "=", "#": "#", "{": "{", "}": "}", ":": ":", "\\": "\\", "n": "\n"}
_FORMAT = re.compile(r"\[(html|moodle|plain|markdown)\]")
_WEIGHT = re.compile(r"\s*%-?[0-9.]+%")
_TRUE_FALSE = {"T": True, "TRUE": True, "F": False, "FALSE": False}
_CATEGORY = "$CATEGORY:"


def parse(text: str, label: str, lang: Lang) -> Parsed:
    """Every question of a GIFT text: kept, skipped (a kind the bank can't ask) or a problem."""
    out = Parsed(label, lang)
    tag: str | None = None
    number = 0
    for block in _blocks(text):
        while block and block[0][1].startswith(_CATEGORY):
            path = re.split(r"(?<!/)/(?!/)", block[0][1][len(_CATEGORY) :].strip())
            tag = slug(path[-1].replace("//", "/")) or None
            block = block[1:]
        if block:
            number += 1
            _Question(block, number, tag, out).read()
    return out


def _blocks(text: str) -> list[list[tuple[int, str]]]:
    """(line number, trimmed line) runs between blank lines, comment lines left out."""
    blocks: list[list[tuple[int, str]]] = [[]]
    for number, line in enumerate(source_lines(text), start=1):
        line = line.strip()
        if not line:
            blocks.append([])
        elif not line.startswith("//"):
            blocks[-1].append((number, line))
    return [b for b in blocks if b]


def _marks(raw: str, chars: str, start: int = 0, end: int | None = None) -> list[int]:
    """Where the unescaped `chars` are in raw[start:end]: an escape pair is skipped whole."""
    found: list[int] = []
    stop = len(raw) if end is None else end
    i = start
    while i < stop:
        if raw[i] == "\\":
            i += 2
            continue
        if raw[i] in chars:
            found.append(i)
        i += 1
    return found


def _plain(raw: str, fmt: str) -> str:
    """A piece of GIFT text as it reads: escapes resolved, HTML made plain, trimmed."""
    text = _ESCAPE.sub(lambda m: _UNESCAPED.get(m.group(1), m.group(0)), raw)
    if fmt == "html":
        text = re.sub(r"<br\s*/?>|</p\s*>", "\n", text, flags=re.I)
        text = html.unescape(re.sub(r"<[^>]*>", "", text))
        text = re.sub(r"\n{3,}", "\n\n", "\n".join(line.strip() for line in text.split("\n")))
    return text.strip()


def _piece(raw: str, fmt: str) -> str:
    """An answer's or feedback's text, which may give its own `[format]`."""
    raw = raw.strip()
    found = _FORMAT.match(raw)
    return _plain(raw[found.end() :], found.group(1)) if found else _plain(raw, fmt)


class _Question:
    """One block of lines: its title, text and answers, read into a Draft or reported."""

    def __init__(self, block: list[tuple[int, str]], number: int, tag: str | None, out: Parsed):
        self.lines = [n for n, _ in block]
        self.raw = "\n".join(t for _, t in block)
        self.starts = [0]
        for _, line in block[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)
        self.number, self.tag, self.out = number, tag, out
        self.first = self.lines[0]
        self.title: str | None = None
        self.prompt = ""
        self.fmt = "moodle"
        self.feedback: str | None = None

    def line_at(self, pos: int) -> int:
        return self.lines[bisect_right(self.starts, pos) - 1]

    def read(self) -> None:
        raw, start = self.raw, 0
        if raw.startswith("::"):
            end = next((i for i in _marks(raw, ":", 2) if raw.startswith("::", i)), -1)
            if end < 0:
                self.out.problem(self.first, "the title's '::' has no closing '::'")
                return
            self.title, start = _plain(raw[2:end], "plain"), end + 2
        start += len(raw[start:]) - len(raw[start:].lstrip())
        found = _FORMAT.match(raw, start)
        if found:
            self.fmt, start = found.group(1), found.end()
        opens, closes = _marks(raw, "{", start), _marks(raw, "}", start)
        if not opens and not closes:
            self.out.skip(self.first, "a description (no answers in '{...}')")
            return
        if not closes:
            self.out.problem(self.line_at(opens[0]), "'{' is never closed by '}'")
            return
        if not opens or closes[0] < opens[0]:
            self.out.problem(self.line_at(closes[0]), "'}' without an opening '{'")
            return
        if len(opens) > 1 or len(closes) > 1:
            where = opens[1] if len(opens) > 1 else closes[1]
            message = "a second '{' or '}': write a brace in a text as '\\{' or '\\}'"
            self.out.problem(self.line_at(where), message)
            return
        before, after = raw[start : opens[0]], raw[closes[0] + 1 :]
        self.prompt = _plain(before + "_____" + after if after.strip() else before, self.fmt)
        self.answers(opens[0] + 1, closes[0])

    def answers(self, start: int, end: int) -> None:
        """The `{...}` between start and end: its kind, then its options."""
        raw = self.raw
        general = next((i for i in _marks(raw, "#", start, end) if raw.startswith("####", i)), -1)
        if general >= 0:
            self.feedback = _piece(raw[general + 4 : end], self.fmt) or None
            end = general
        body = raw[start:end].strip()
        marks = _marks(raw, "~=", start, end)
        tilde = any(raw[i] == "~" for i in marks)
        if not body:
            self.out.skip(self.first, "an essay question ('{}')")
        elif body.startswith("#"):
            self.out.skip(self.first, "a numeric question ('{#...}')")
        elif tilde:
            self.choices(start, end, marks)
        elif marks and "->" in body:
            self.out.skip(self.first, "a matching question ('->')")
        else:
            hashes = _marks(raw, "#", start, end)
            value = raw[start : hashes[0] if hashes else end].strip()
            if value in _TRUE_FALSE:
                self.true_false(_TRUE_FALSE[value], start, end, hashes)
            else:
                self.out.skip(self.first, "a short answer question (no '~' answers)")

    def true_false(self, right: bool, start: int, end: int, hashes: list[int]) -> None:
        """`{T}`, or `{FALSE#shown for the wrong pick#shown for the right one}` (Moodle's)."""
        cuts = [*hashes[:2], end]
        wrong = _piece(self.raw[cuts[0] + 1 : cuts[1]], self.fmt) if len(cuts) > 1 else ""
        good = _piece(self.raw[cuts[1] + 1 : end], self.fmt) if len(cuts) > 2 else ""
        whys = (None, wrong or None) if right else (wrong or None, None)
        line = self.line_at(start)
        options = TRUE_FALSE[self.out.lang]
        self.add(options, 0 if right else 1, whys, (line, line), good or None)

    def choices(self, start: int, end: int, marks: list[int]) -> None:
        """A multiple-choice block: `=right` and `~wrong`, each with an optional `#feedback`."""
        raw = self.raw
        if raw[start : marks[0]].strip():
            message = "text before the first answer: start each answer with '=' or '~'"
            self.out.problem(self.line_at(start), message)
            return
        texts: list[str] = []
        whys: list[str | None] = []
        lines: list[int] = []
        rights: list[int] = []
        weighted = False
        for i, (mark, stop) in enumerate(zip(marks, [*marks[1:], end], strict=True)):
            begin = mark + 1
            weight = _WEIGHT.match(raw, begin, stop)
            if weight:
                weighted, begin = True, weight.end()
            hashes = _marks(raw, "#", begin, stop)
            cut = hashes[0] if hashes else stop
            texts.append(_piece(raw[begin:cut], self.fmt))
            whys.append(_piece(raw[cut + 1 : stop], self.fmt) or None if hashes else None)
            lines.append(self.line_at(mark))
            if raw[mark] == "=":
                rights.append(i)
            if not texts[-1]:
                self.out.problem(lines[-1], f"answer {i + 1} has no text")
        if not all(texts):
            return
        if weighted:
            self.out.skip(self.first, "weighted answers ('%50%')")
        elif len(rights) > 1:
            self.out.skip(self.first, f"{len(rights)} right answers ('='); a question has one")
        elif not rights:
            self.out.problem(self.first, "no right answer: mark the right one with '='")
        elif len(texts) > limits.MAX_OPTIONS:
            message = f"{len(texts)} answers; a question has at most {limits.MAX_OPTIONS}"
            self.out.skip(self.first, message)
        else:
            right_feedback, whys[rights[0]] = whys[rights[0]], None
            self.add(tuple(texts), rights[0], tuple(whys), tuple(lines), right_feedback)

    def add(
        self,
        options: tuple[str, ...],
        answer: int,
        whys: tuple[str | None, ...],
        lines: tuple[int, ...],
        right_feedback: str | None,
    ) -> None:
        draft = Draft(
            line=self.first,
            number=self.number,
            prompt=self.prompt,
            options=options,
            answer=answer,
            whys=whys,
            option_lines=lines,
            title=self.title,
            tag=self.tag,
            feedback=self.feedback,
            right_feedback=right_feedback,
        )
        self.out.add(draft)
