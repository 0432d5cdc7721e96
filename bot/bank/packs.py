"""A team's question pack: one YAML text, checked exactly as `zeroquiz validate` checks a file.

A pack's ids are its own: inside the bot each is scoped by the pack and its version
(`p12v3:my-question`), which no bundled id can be (they allow no ':'), so two packs, or a pack
and the bundled bank, never clash. The version is part of the id so that a round, a reveal or a
review card keeps showing the text it showed after the pack changed or was removed.
"""

from __future__ import annotations

import io
import re
from typing import NamedTuple

from bot.bank.bank import Bank, BankError, Problem
from bot.bank.templates import Template
from bot.model import Lang, Question

MAX_PACK_QUESTIONS = 100  # questions and templates in one pack
MAX_PACKS_PER_TEAM = 20
MAX_PACK_BYTES = 200_000  # a pack is one file; the bundled files are under 30 kB each

_SCOPED = re.compile(r"^p([0-9]{1,18})v([0-9]{1,18}):(.+)$")


class PackContent(NamedTuple):
    """A valid pack: its questions and templates under their own ids, its declared language and
    name (None when the text gives none)."""

    bank: Bank
    language: Lang | None
    name: str | None

    @property
    def size(self) -> int:
        return len(self.bank.questions) + len(self.bank.templates)


def check_pack(text: str, label: str) -> PackContent:
    """The pack, or BankError with every problem as `label:line: message` (validate's lines)."""
    data = text.encode("utf-8", errors="surrogateescape")
    if len(data) > MAX_PACK_BYTES:
        raise BankError([Problem(label, 0, f"pack is larger than {MAX_PACK_BYTES} bytes")])
    from bot.bank.loader import FileChecker  # PyYAML and the checker: only when a pack is read

    problems: list[Problem] = []
    checker = FileChecker(label, problems, {}, io.BytesIO(data))
    found = checker.check()
    if problems:
        raise BankError(problems)
    questions = [q for q in found if isinstance(q, Question)]
    templates = [t for t in found if isinstance(t, Template)]
    if not found:
        raise BankError([Problem(label, 0, "the pack holds no questions")])
    if len(found) > MAX_PACK_QUESTIONS:
        message = (
            f"the pack holds {len(found)} questions and templates; "
            f"the limit is {MAX_PACK_QUESTIONS} (split it into several packs)"
        )
        raise BankError([Problem(label, 0, message)])
    return PackContent(Bank(questions, templates), checker.language, checker.name)


def prefix(pack_id: int, version: int) -> str:
    return f"p{pack_id}v{version}:"


def scoped(bank: Bank, pack_id: int, version: int) -> Bank:
    """The pack's bank with every id scoped by the pack and version."""
    head = prefix(pack_id, version)
    return Bank(
        [q._replace(id=head + q.id) for q in bank.questions],
        [t._replace(id=head + t.id) for t in bank.templates],
    )


def parse_scoped(question_id: str) -> tuple[int, int, str] | None:
    """(pack id, version, the id in the pack) of a pack question's id; None for a bundled one."""
    match = _SCOPED.match(question_id)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2)), match.group(3)


def use_key(question_id: str) -> str:
    """What counts as one question when choosing the least asked: a template with all its draws,
    and a pack's question across the pack's versions."""
    base = question_id.partition("@")[0]
    match = _SCOPED.match(base)
    return f"p{match.group(1)}:{match.group(3)}" if match else base
