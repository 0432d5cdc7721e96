"""The bank's values (Bank, Problem, BankError), apart from the YAML checker that builds them.

Everything that only uses a bank (rounds, storage, the surfaces) imports these without importing
PyYAML and the checker (bot/bank/loader.py), so a start that takes its bank from the cache
(bot/bank/cache.py) never pays for them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bot.bank.templates import Template, parse_draw_id
from bot.model import Question

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*$")
DRAWN_CACHE = 4096


@dataclass(frozen=True, order=True)
class Problem:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        """`file:line: message`, or `file: message` for the whole file (line 0: no line)."""
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


class BankError(Exception):
    """Raised with every problem found, so an author can fix them all in one pass."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = sorted(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


@dataclass
class Bank:
    """The hand-written questions, and the templates whose drawn ids (`tid@seed`) `get` knows."""

    questions: list[Question] = field(default_factory=list)
    templates: list[Template] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._by_id = {q.id: q for q in self.questions}
        self._templates = {t.id: t for t in self.templates}
        self._drawn: dict[str, Question | None] = {}

    def get(self, question_id: str) -> Question | None:
        question = self._by_id.get(question_id)
        if question is not None or "@" not in question_id:
            return question
        if question_id not in self._drawn:  # a round asks for it once per click: keep a few
            if len(self._drawn) >= DRAWN_CACHE:
                self._drawn.clear()
            self._drawn[question_id] = self._draw(question_id)
        return self._drawn[question_id]

    def _draw(self, question_id: str) -> Question | None:
        parsed = parse_draw_id(question_id)
        template = self._templates.get(parsed[0]) if parsed else None
        return template.draw(parsed[1]) if template and parsed else None

    def __len__(self) -> int:
        return len(self.questions)


def bundled_paths() -> list[Path]:
    """The question files shipped inside the installed package (a folder of files, as
    importlib.resources would give for it, without importing importlib.resources)."""
    import questions

    root = Path(questions.__file__).parent
    return sorted(p for p in root.iterdir() if p.name.endswith((".yaml", ".yml")))


def expand_paths(paths: Iterable[str | Path], problems: list[Problem]) -> list[Path]:
    """Files as given, folders as their YAML files; a folder that cannot be listed is a problem."""
    out: list[Path] = []
    for p in map(Path, paths):
        try:
            if p.is_dir():
                out.extend(sorted(x for x in p.iterdir() if x.suffix in (".yaml", ".yml")))
            else:
                out.append(p)
        except OSError as exc:
            message = f"cannot read file or folder: {exc.strerror or exc}"
            problems.append(Problem(str(p), 0, message))
    return out
