"""A team's question packs from chat and the terminal: add, write one question, list, show,
remove, export; and what a channel draws from.

A pack is checked whole by bot/bank/packs.py before anything is stored: a broken one is answered
with every problem as `zeroquiz validate` prints it, and nothing changes. Replies are bounded so
they fit a Slack section (3000 characters) and a Discord embed (4096) by construction.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from bot.bank import BankError
from bot.bank.bank import ID_PATTERN
from bot.bank.packs import MAX_PACKS_PER_TEAM, check_pack
from bot.clock import Clock
from bot.i18n import t
from bot.library import Library
from bot.model import ChannelRef, Lang, TeamRef
from bot.storage import SOURCES, PackLimitReached, Source, Store
from bot.views import NoticeView, PackFile

MAX_PROBLEM_LINES = 12
PROBLEM_LINE_MAX = 200  # a problem is one short line (the loader quotes at most 40 characters)
EXPORT_MAX = 2400  # what an inline code block may weigh, Slack's escapes counted (`&` → `&amp;`)
SHOW_IDS_MAX = 1500


class Added(NamedTuple):
    """A pack stored (`notice` says so) or refused (`notice` says why, `ok` False)."""

    notice: NoticeView
    stored: bool
    problems: tuple[str, ...] = ()  # every problem, unclipped (the terminal prints them all)
    skipped: tuple[str, ...] = ()  # an import's questions left out, each at its line


class TeamPacks:
    def __init__(self, store: Store, library: Library, clock: Clock) -> None:
        self._store = store
        self._library = library
        self._clock = clock

    async def add(
        self,
        team: TeamRef,
        text: str,
        *,
        label: str,
        name: str | None,
        by: str,
        lang: Lang,
        default_name: str | None = None,
    ) -> Added:
        """Check the whole pack, then store it as its name's next version. The name is `name`
        if given, else the pack's own `name:`, else `default_name` (a file's name); `label`
        names the text in the problems."""
        try:
            content = check_pack(text, label)
        except BankError as exc:
            problems = tuple(str(p) for p in exc.problems)
            return Added(problems_notice(lang, problems), False, problems)
        chosen = (name or "").strip().lower() or content.name or default_name
        if not chosen or not ID_PATTERN.match(chosen) or len(chosen) > 40:
            notice = NoticeView(lang, t(lang, "pack_name_invalid", name=chosen or ""), ok=False)
            return Added(notice, False)
        stored = await self._store.packs.put(
            team,
            chosen,
            text,
            questions=content.size,
            added_by=by,
            at=self._clock.now(),
            max_packs=MAX_PACKS_PER_TEAM,
        )
        if isinstance(stored, PackLimitReached):
            notice = NoticeView(lang, t(lang, "pack_limit", limit=stored.limit), ok=False)
            return Added(notice, False)
        text_ = t(lang, "pack_added", name=chosen, version=stored.version, count=content.size)
        return Added(NoticeView(lang, text_), True)

    async def add_any(
        self,
        team: TeamRef,
        text: str,
        *,
        label: str,
        name: str | None,
        by: str,
        lang: Lang,
        default_name: str | None = None,
    ) -> Added:
        """A pack from chat, whatever it is written in: a question file (YAML) is added as it
        is; a GIFT, Aiken or Kahoot-CSV file (by its name, or, pasted, by its text) is imported
        in the channel's language."""
        fmt = file_format(label, text)
        if fmt == "yaml":
            label = "pack.yaml" if label == PASTED else label
            return await self.add(
                team, text, label=label, name=name, by=by, lang=lang, default_name=default_name
            )
        if label.startswith(PASTED):
            label = f"{PASTED}.{'csv' if fmt == 'csv' else 'txt'}"
        return await self.import_file(
            team, text, label=label, fmt=fmt, name=name, by=by, lang=lang, pack_lang=lang
        )

    async def import_file(
        self,
        team: TeamRef,
        text: str,
        *,
        label: str,
        fmt: str | None,
        name: str | None,
        by: str,
        lang: Lang,
        pack_lang: Lang,
    ) -> Added:
        """A GIFT, Aiken or Kahoot-CSV file (the format guessed from `label` and the text when
        not given) as a one-language pack in `pack_lang`: every problem and every question left
        out at its line of the file, and stored only if one question or more converts and
        nothing is invalid. The pack kept is the converted YAML (what `pack export` gives)."""
        from bot.bank.imports import convert, guess_format, source_problems

        fmt = fmt or guess_format(label, text)
        if fmt is None:
            problem = f"{label}: {t(lang, 'pack_import_format')}"
            return Added(problems_notice(lang, (problem,)), False, (problem,))
        imported = convert(text, label, fmt, pack_lang, name)
        skipped = tuple(str(p) for p in imported.skipped)
        problems = [str(p) for p in imported.problems]
        if not problems:
            try:
                check_pack(imported.yaml, label)
            except BankError as exc:
                problems = [str(p) for p in source_problems(imported, exc.problems)]
        if problems:  # and what was left out, which may be why nothing could be kept
            every = (*problems, *skipped)
            return Added(problems_notice(lang, every), False, every)
        stem = re.sub(r"[^a-z0-9-]+", "-", label.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower())
        added = await self.add(
            team, imported.yaml, label=label, name=name, by=by, lang=lang,
            default_name=stem.strip("-")[:40] or None,
        )  # fmt: skip
        if not added.stored or not skipped:
            return added
        said = t(lang, "pack_import_skipped", count=len(skipped))
        lines = tuple(_clip(line) for line in skipped[:MAX_PROBLEM_LINES])
        notice = NoticeView(lang, f"{added.notice.text} {said}", lines=lines)
        return Added(notice, True, skipped=skipped)

    async def add_question(
        self,
        team: TeamRef,
        pack: str,
        prompt: str,
        options: str,
        explanation: str,
        *,
        by: str,
        lang: Lang,
    ) -> Added:
        """One question written in a form: added to the pack (created in the channel's language
        if new), and the whole pack checked again as `add` checks it."""
        name = pack.strip().lower()
        if not ID_PATTERN.match(name) or len(name) > 40:
            return Added(NoticeView(lang, t(lang, "pack_name_invalid", name=name), ok=False), False)
        parsed = parse_options(options)
        if parsed is None:
            return Added(NoticeView(lang, t(lang, "question_options_invalid"), ok=False), False)
        import yaml  # only here: a start never needs PyYAML for packs

        existing = await self._store.packs.get(team, name)
        data: dict[str, Any] = {"language": lang, "questions": []}
        if existing is not None:
            loaded = yaml.safe_load(existing.body)
            data = loaded if isinstance(loaded, dict) else data
        one_language = "language" in data or "lang" in data
        data.setdefault("questions", [])

        def text(value: str) -> Any:
            return value if one_language else {"en": value, "id": value}

        entries = [
            {"text": line, "correct": True} if i == parsed[1] else line
            for i, line in enumerate(parsed[0])
        ]
        if not one_language:
            entries = [
                {"en": line, "id": line, **({"correct": True} if i == parsed[1] else {})}
                for i, line in enumerate(parsed[0])
            ]
        ids = {str(q.get("id")) for q in data["questions"] if isinstance(q, dict)}
        data["questions"].append(
            {
                "id": new_id(prompt, ids),
                "prompt": text(prompt.strip()),
                "options": entries,
                "explanation": text(explanation.strip()),
            }
        )
        body = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
        return await self.add(team, body, label=f"{name}.yaml", name=name, by=by, lang=lang)

    async def command(self, team: TeamRef, words: Sequence[str], lang: Lang) -> NoticeView:
        """`pack list|show NAME|remove NAME|export NAME`; `add` and `question` need a form."""
        action = words[0].lower() if words else ""
        name = words[1].lower() if len(words) > 1 else ""
        if action == "list":
            return await self.list(team, lang)
        if action in ("add", "question"):
            return NoticeView(lang, t(lang, "pack_add_here"), ok=False)
        if action not in ("show", "remove", "export"):
            return NoticeView(lang, t(lang, "pack_usage"), ok=False)
        if not name:
            return NoticeView(lang, t(lang, "pack_name_needed", action=action), ok=False)
        if action == "remove":
            if await self._store.packs.remove(team, name, self._clock.now()):
                return NoticeView(lang, t(lang, "pack_removed", name=name))
            return NoticeView(lang, t(lang, "pack_unknown", name=_short(name)), ok=False)
        record = await self._store.packs.get(team, name)
        if record is None:
            return NoticeView(lang, t(lang, "pack_unknown", name=_short(name)), ok=False)
        if action == "export":
            return export_notice(lang, record.name, record.version, record.body)
        content = check_pack(record.body, record.name)
        names = [q.id for q in content.bank.questions] + [t.id for t in content.bank.templates]
        ids = ", ".join(f"`{one}`" for one in names)
        if len(ids) > SHOW_IDS_MAX:
            ids = ids[: ids.rfind(",", 0, SHOW_IDS_MAX)] + ", …"
        shown = t(
            lang,
            "pack_show",
            name=record.name,
            version=record.version,
            count=record.questions,
            by=_short(record.added_by),
            ids=ids,
        )
        return NoticeView(lang, shown)

    async def list(self, team: TeamRef, lang: Lang) -> NoticeView:
        packs = await self._store.packs.list(team)
        if not packs:
            return NoticeView(lang, t(lang, "pack_list_empty"))
        lines = tuple(
            t(lang, "pack_list_line", name=p.name, version=p.version, count=p.questions)
            for p in packs
        )  # at most MAX_PACKS_PER_TEAM short lines
        return NoticeView(lang, t(lang, "pack_list_title"), lines=lines)

    async def source(self, channel: ChannelRef, words: Sequence[str], lang: Lang) -> NoticeView:
        """`questions [bundled|team|both]`: show or set what the channel draws from."""
        if not words:
            current = await self._store.packs.source(channel)
            return NoticeView(lang, t(lang, "source_show", source=t(lang, f"source_{current}")))
        chosen = next((s for s in SOURCES if s == words[0].lower()), None)
        if chosen is None:
            return NoticeView(lang, t(lang, "source_invalid"), ok=False)
        await self._store.packs.set_source(channel, chosen)
        return NoticeView(lang, t(lang, "source_set", source=t(lang, f"source_{chosen}")))

    async def export(self, team: TeamRef, name: str) -> str | None:
        """The pack's YAML as it was added (the terminal's `pack export`)."""
        record = await self._store.packs.get(team, name)
        return record.body if record is not None else None

    async def remove(self, team: TeamRef, name: str) -> bool:
        return await self._store.packs.remove(team, name, self._clock.now())

    async def channel_source(self, channel: ChannelRef) -> Source:
        return await self._store.packs.source(channel)


PASTED = "pasted"  # the label of a text pasted in a form, which has no file name


def file_format(label: str, text: str) -> str | None:
    """'yaml', 'gift', 'aiken' or 'csv': by the file's extension, else (a pasted text) by what
    the text looks like; None when it can't be told."""
    from bot.bank.imports import guess_format

    suffix = label.rsplit(".", 1)[-1].lower() if "." in label else ""
    if suffix in ("yaml", "yml"):
        return "yaml"
    if suffix or not label.startswith(PASTED):
        return guess_format(label, text)
    if re.search(r"^\s*(questions|templates)\s*:", text, re.MULTILINE):
        return "yaml"  # a question file's top-level list
    head = text.lower().splitlines()[:20]
    if any("question" in line and "answer 1" in line for line in head):
        return "csv"  # Kahoot's header row (its template has a few rows above it)
    return guess_format(f"{PASTED}.txt", text) or "yaml"


def problems_notice(lang: Lang, problems: Sequence[str]) -> NoticeView:
    """Every problem as validate prints it, up to a bound (lines and characters, Slack's
    escapes counted), then how many more."""
    shown: list[str] = []
    total = 0
    for problem in problems[:MAX_PROBLEM_LINES]:
        line = _clip(problem)
        total += _weight(line) + 1
        if total > EXPORT_MAX:
            break
        shown.append(line)
    if len(shown) < len(problems):
        shown.append(t(lang, "pack_problems_more", count=len(problems) - len(shown)))
    notice = t(lang, "pack_problems", count=len(problems))
    return NoticeView(lang, notice, lines=tuple(shown), ok=False)


def export_notice(lang: Lang, name: str, version: int, body: str) -> NoticeView:
    """The YAML back, whole, as `file` (each adapter delivers it within its limits); also as a
    code block in the notice when it fits one message and a code block can show it exactly."""
    head = t(lang, "pack_export", name=name, version=version)
    file = PackFile(name, version, body)
    if _weight(body) > EXPORT_MAX or "```" in body:
        return NoticeView(lang, head, file=file)
    return NoticeView(lang, head, lines=("```\n" + body.rstrip() + "\n```",), file=file)


def parse_options(text: str) -> tuple[list[str], int] | None:
    """Options one per line, the correct one starting with `*`: (texts, its index)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    marked = [i for i, line in enumerate(lines) if line.startswith("*")]
    if not 2 <= len(lines) <= 5 or len(marked) != 1:
        return None
    lines[marked[0]] = lines[marked[0]].lstrip("*").strip()
    return (lines, marked[0]) if all(lines) else None


def new_id(prompt: str, taken: set[str]) -> str:
    """An id for a question written in a form: from its first words, unique in the pack."""
    base = "-".join(re.findall(r"[a-z0-9]+", prompt.lower()))[:30].strip("-") or "question"
    found, n = base, 2
    while found in taken:
        found, n = f"{base}-{n}", n + 1
    return found


def _weight(text: str) -> int:
    """Characters once a renderer escapes `&`, `<` and `>` (at most 5 each: `&amp;`)."""
    return len(text) + 4 * sum(text.count(c) for c in "&<>")


def _clip(line: str) -> str:
    return line if len(line) <= PROBLEM_LINE_MAX else line[: PROBLEM_LINE_MAX - 1] + "…"


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:39] + "…"
