"""Parsed questions as a one-language pack's YAML, and the way back from its lines to the source's.

Each question is preceded by a `# source line N` comment: the pack stays plain YAML, a person
reading it sees where each question came from, and `source_lines` needs nothing but the text to
re-point a problem check_pack finds in it. The texts go through yaml.safe_dump, which quotes
whatever could read as YAML, so any text people typed arrives unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from bot.bank import limits
from bot.bank.imports.common import Draft, explanation, slug
from bot.model import Lang

_BREAKS = "\x85\u2028\u2029"  # line breaks to YAML besides \n and \r (which it escapes)
_MARK = re.compile(r"  # source line ([0-9]+)")


def render(drafts: Sequence[Draft], lang: Lang, name: str | None) -> str:
    """The pack: `language:`, `name:` when given, then the questions in source order."""
    import yaml

    class Dumper(yaml.SafeDumper):
        """Indents a list under its key, as the docs' examples do."""

        def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
            super().increase_indent(flow, False)

    def text(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
        # PyYAML writes NEL, LS and PS raw and reads a NEL back as a space; escaped they stay
        # what they were, and the pack's lines are its "\n" lines alone (see source_lines).
        style = '"' if any(c in data for c in _BREAKS) else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)

    Dumper.add_representer(str, text)

    def dump(data: dict[str, Any]) -> str:
        return yaml.dump(data, Dumper=Dumper, allow_unicode=True, sort_keys=False, width=1 << 20)

    head: dict[str, Any] = {"language": lang}
    if name is not None:
        head["name"] = name
    if not drafts:
        return dump({**head, "questions": []})
    parts = [dump(head), "questions:\n"]
    for draft, qid in zip(drafts, ids(drafts), strict=True):
        item = dump({"questions": [_question(draft, qid, lang)]})
        parts += [f"  # source line {draft.line}\n", item.split("\n", 1)[1]]
    return "".join(parts)


def _question(draft: Draft, qid: str, lang: Lang) -> dict[str, Any]:
    options: list[Any] = []
    for i, (text, why) in enumerate(zip(draft.options, draft.whys, strict=True)):
        if i == draft.answer:
            options.append({"text": text, "correct": True})
        elif why:
            options.append({"text": text, "why": why})
        else:
            options.append(text)
    question: dict[str, Any] = {"id": qid}
    if draft.tag:
        question["tags"] = [draft.tag]
    question.update(prompt=draft.prompt, options=options, explanation=explanation(draft, lang))
    return question


def ids(drafts: Sequence[Draft]) -> list[str]:
    """Each title's slug, else `q-<number in the file>`; a repeat gets `-2`, `-3` ..."""
    used: set[str] = set()
    out: list[str] = []
    for draft in drafts:
        base = (slug(draft.title) if draft.title else "") or f"q-{draft.number}"
        qid, n = base, 1
        while qid in used:
            n += 1
            suffix = f"-{n}"
            qid = base[: limits.MAX_ID - len(suffix)].rstrip("-") + suffix
        used.add(qid)
        out.append(qid)
    return out


def source_lines(yaml_text: str) -> list[tuple[int, int]]:
    """(YAML line, source line) where each question's comment stands, in order."""
    return [
        (number, int(found.group(1)))
        for number, line in enumerate(yaml_text.split("\n"), start=1)
        if (found := _MARK.fullmatch(line))
    ]


def source_line(marks: Sequence[tuple[int, int]], yaml_line: int) -> int:
    """The source line of the question holding this YAML line; 0 outside every question."""
    found = 0
    for at, source in marks:
        if at > yaml_line:
            break
        found = source
    return found if yaml_line > 0 else 0
