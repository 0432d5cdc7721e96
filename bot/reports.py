"""Report a question: a person who thinks a question is wrong says why, privately (a Report
control after an answer and on the review card; `/report REASON [note]` at the terminal prompt);
admins see the reports in `/zeroquiz reports` and the insights, and clear them one by one.

One report per person, question and team. A report holds the reason and the person's note, never
the key: nothing here shows which option is right. Notes are the person's text: at most
NOTE_MAX characters, one line, shown as data by every surface.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from bot.clock import Clock
from bot.i18n import t
from bot.library import Library
from bot.model import Lang, TeamRef, UserRef
from bot.storage import Store
from bot.storage.reports import REASONS, ReportRecord
from bot.views import MAX_INSIGHT_LINE, InsightLine, NoticeView

NOTE_MAX = 300
LISTED = 15  # reports in one `/zeroquiz reports` reply (the rest: how many more)
INSIGHT_LINES = 5  # questions in the insights' list, as its other lists
# What people type for each reason, in both languages.
REASON_WORDS = {
    "key": ("key", "wrong-key", "wrongkey", "kunci", "salah-kunci"),
    "unclear": ("unclear", "ambiguous", "tidak-jelas", "ambigu"),
    "typo": ("typo", "salah-ketik"),
    "outdated": ("outdated", "out-of-date", "old", "usang", "kedaluwarsa"),
    "other": ("other", "lain", "lainnya"),
}


def parse_reason(word: str) -> str | None:
    folded = word.strip().lower()
    return next((r for r, words in REASON_WORDS.items() if folded in words), None)


def one_line(note: str) -> str:
    return " ".join(note.split())[:NOTE_MAX]


class Reports:
    def __init__(self, store: Store, library: Library, clock: Clock) -> None:
        self._store = store
        self._library = library
        self._clock = clock

    async def report(
        self, user: UserRef, question_id: str, reason: str, note: str, lang: Lang
    ) -> NoticeView:
        """Keep the person's report of a question they were asked; say so privately."""
        if reason not in REASONS:
            return NoticeView(lang, t(lang, "report_usage"), ok=False)
        if await self._library.get(question_id) is None:
            return NoticeView(lang, t(lang, "button_invalid"), ok=False)
        stored = await self._store.reports.add(
            user, question_id, reason, one_line(note), self._clock.now()
        )
        if stored is None:
            return NoticeView(lang, t(lang, "report_first_answer"), ok=False)
        if not stored:
            return NoticeView(lang, t(lang, "report_already"), ok=False)
        return NoticeView(lang, t(lang, "report_saved", reason=t(lang, f"report_reason_{reason}")))

    async def command(self, team: TeamRef, words: Sequence[str], lang: Lang) -> NoticeView:
        """`reports` lists the open reports, latest first; `reports clear ID` clears one."""
        if not words:
            return await self.listing(team, lang)
        if words[0].lower() in ("clear", "hapus") and len(words) == 2 and words[1].isdigit():
            cleared = await self._store.reports.clear(team, int(words[1]), self._clock.now())
            key = "reports_cleared" if cleared else "reports_unknown"
            return NoticeView(lang, t(lang, key, id=words[1]), ok=cleared)
        return NoticeView(lang, t(lang, "reports_usage"), ok=False)

    async def listing(self, team: TeamRef, lang: Lang) -> NoticeView:
        found = await self._store.reports.open(team)
        if not found:
            return NoticeView(lang, t(lang, "reports_none"))
        lines = [report_line(lang, r) for r in found[:LISTED]]
        if len(found) > LISTED:
            lines.append(t(lang, "reports_more", count=len(found) - LISTED))
        return NoticeView(lang, t(lang, "reports_title", count=len(found)), lines=tuple(lines))

    async def by_question(self, team: TeamRef, lang: Lang) -> tuple[InsightLine, ...]:
        """The insights' "Reported by players": a line per question (at most INSIGHT_LINES),
        latest reported first, with its reasons counted and its notes, latest first."""
        found = await self._store.reports.open(team)
        order: list[str] = []
        grouped: dict[str, list[ReportRecord]] = {}
        for r in found:
            if r.question_id not in grouped:
                order.append(r.question_id)
            grouped.setdefault(r.question_id, []).append(r)
        return tuple(
            InsightLine(qid, question_line(lang, qid, grouped[qid]))
            for qid in order[:INSIGHT_LINES]
        )


def report_line(lang: Lang, r: ReportRecord) -> str:
    when = r.reported_at.strftime("%Y-%m-%d")
    note = f" “{r.note}”" if r.note else ""
    reason = t(lang, f"report_reason_{r.reason}")
    return t(lang, "reports_line", id=r.id, question=r.question_id, reason=reason, note=note,
             name=r.name, date=when)  # fmt: skip


def question_line(lang: Lang, question_id: str, reports: list[ReportRecord]) -> str:
    counts = Counter(r.reason for r in reports)
    reasons = ", ".join(
        f"{t(lang, f'report_reason_{reason}')} ×{n}" for reason, n in counts.most_common()
    )
    notes = "; ".join(f"“{r.note}”" for r in reports if r.note)
    line = t(lang, "insights_reported_line", question=question_id, reasons=reasons)
    return f"{line} {notes}".strip()[:MAX_INSIGHT_LINE]
