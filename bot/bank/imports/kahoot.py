"""Kahoot's quiz spreadsheet template saved as CSV: a header row names the columns (the rows above
it are the template's title and instructions), then one question a row.

Columns are found by how their names start, so the template's long names ("Answer 1 - max 75
characters") and shorter hand-made ones both work. Kahoot's own length limits are not ours: the
bank's limits are checked instead. The time limit is ignored: a round sets its own.
"""

from __future__ import annotations

import csv
import io
import re

from bot.bank.imports.common import Draft, Parsed
from bot.model import Lang

_ANSWERS = ("answer 1", "answer 2", "answer 3", "answer 4")
_NEEDED = ("question", "answer 1", "answer 2", "correct answer")
_COLUMNS = ("question", *_ANSWERS, "time limit", "correct answer")
_DELIMITERS = (",", ";", "\t")
_NUMBER = re.compile(r"([0-9]+)(?:\.0+)?")

Row = tuple[int, list[str]]  # the source line where the row starts, and its cells


def parse(text: str, label: str, lang: Lang) -> Parsed:
    """Every question row after the header row; the file's delimiter is the one that finds it."""
    out = Parsed(label, lang)
    text = text.removeprefix("\ufeff")
    failure: tuple[int, str] | None = None
    for delimiter in _DELIMITERS:
        rows, error = _rows(text, delimiter)
        for at, (_, cells) in enumerate(rows):
            columns = _header(cells)
            if columns is not None:
                if error is not None:
                    out.problem(*error)
                _questions(rows[at + 1 :], columns, out)
                return out
        failure = failure or error
    if failure is not None:
        out.problem(*failure)
    names = "'Question', 'Answer 1', 'Answer 2' and 'Correct answer(s)'"
    out.problem(0, f"no header row with the columns {names} (Kahoot's quiz template)")
    return out


def _rows(text: str, delimiter: str) -> tuple[list[Row], tuple[int, str] | None]:
    """The rows with the physical line each starts at; a CSV error ends them, with its line."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows: list[Row] = []
    done = 0  # lines the reader has consumed: the next row starts on the line after
    try:
        for cells in reader:
            rows.append((done + 1, cells))
            done = reader.line_num
    except csv.Error as exc:
        return rows, (done + 1, f"CSV error: {exc}")
    return rows, None


def _header(cells: list[str]) -> dict[str, int] | None:
    """Column index by name when these cells are the header row."""
    columns: dict[str, int] = {}
    for index, cell in enumerate(cells):
        name = " ".join(cell.split()).lower()
        key = next((k for k in _COLUMNS if name.startswith(k)), None)
        if key is not None and key not in columns:
            columns[key] = index
    return columns if all(k in columns for k in _NEEDED) else None


def _questions(rows: list[Row], columns: dict[str, int], out: Parsed) -> None:
    number = 0
    for line, cells in rows:

        def cell(key: str, cells: list[str] = cells) -> str:
            index = columns.get(key)
            text = cells[index] if index is not None and index < len(cells) else ""
            return text.replace("\r\n", "\n").replace("\r", "\n").strip()

        prompt, correct = cell("question"), cell("correct answer")
        answers = [(n, cell(key)) for n, key in enumerate(_ANSWERS, start=1)]
        if not prompt and not correct and not any(text for _, text in answers):
            continue  # an empty row (the template numbers rows it leaves empty)
        number += 1
        given = [(n, text) for n, text in answers if text]
        picks = [p for p in re.split(r"[\s,;]+", correct) if p]
        if not picks:
            out.problem(line, "no correct answer: give the right answer's number (1 to 4)")
            continue
        numbers = [_NUMBER.fullmatch(p) for p in picks]
        if not all(numbers):
            out.problem(line, f"correct answer '{correct}' must be a number from 1 to 4")
            continue
        right = {int(m.group(1)) for m in numbers if m}
        if len(right) > 1:
            out.skip(line, f"multiple right answers ({correct}); a question has one")
            continue
        pick = right.pop()
        if not 1 <= pick <= len(_ANSWERS):
            out.problem(line, f"correct answer {pick} must be a number from 1 to 4")
            continue
        if pick not in {n for n, _ in given}:
            out.problem(line, f"correct answer {pick} names an empty answer")
            continue
        draft = Draft(
            line=line,
            number=number,
            prompt=prompt,
            options=tuple(text for _, text in given),
            answer=[n for n, _ in given].index(pick),
            whys=(None,) * len(given),
            option_lines=(line,) * len(given),
        )
        out.add(draft)
