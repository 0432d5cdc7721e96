"""Plain-text rendering of core views for a terminal."""

from __future__ import annotations

import textwrap
from datetime import datetime, tzinfo

from adapters.insight_text import insights_text
from bot.commands import Reply
from bot.i18n import t
from bot.model import Lang
from bot.views import (
    ChartView,
    Feedback,
    InsightsView,
    LeaderboardView,
    Mistake,
    NoticeView,
    QuestionView,
    ReviewResult,
    ReviewView,
    StatsView,
)

WIDTH = 78


def wrap(text: str, indent: str = "") -> str:
    return textwrap.fill(text, WIDTH, initial_indent=indent, subsequent_indent=indent + "   ")


def question(view: QuestionView, n: int, total: int) -> str:
    lines = ["", t(view.lang, "term_question", n=n, total=total), wrap(view.prompt), ""]
    lines += [wrap(f"{o.letter}) {o.text}", "  ") for o in view.options]
    return "\n".join(lines)


def feedback(view: Feedback) -> str:
    lines = [wrap(view.headline), *mistake(view.mistake)]
    if view.explanation:
        lines.append(wrap(f"{view.why_label}: {view.explanation}"))
        lines += chart(view.chart)
    return "\n".join(lines)


def mistake(view: Mistake | None) -> list[str]:
    """Why the option picked is wrong, above why the key is right."""
    return [wrap(f"{view.label}: {view.text}")] if view is not None else []


def chart(view: ChartView | None) -> list[str]:
    """A memory chart under the explanation: its title, then its bars as they are (a terminal
    is monospace already), indented like the options."""
    if view is None:
        return []
    return ["", wrap(view.title), *(f"  {line}" for line in view.lines)]


def session_score(lang: Lang, before: StatsView, after: StatsView) -> str:
    """This session's score: what the player's stats (the core's count) gained meanwhile."""
    return t(
        lang,
        "term_final",
        correct=after.correct - before.correct,
        answered=after.answered - before.answered,
        points=after.points - before.points,
    )


def leaderboard(view: LeaderboardView, title: str) -> str:
    lines = ["", title]
    lines += [f"  {line}" for line in view.lines] or [f"  {view.empty_text}"]
    if view.me_line:
        lines.append(f"  {view.me_line}")
    return "\n".join(lines)


def review_card(view: ReviewView) -> str:
    lines = ["", view.title, wrap(view.prompt), ""]
    lines += [wrap(f"{o.letter}) {o.text}", "  ") for o in view.options]
    return "\n".join([*lines, wrap(view.due_line)])


def review_result(view: ReviewResult, zone: tzinfo | None = None) -> str:
    footer = view.footer + next_due(view.lang, view.next_due, zone)
    lines = [wrap(view.headline), *mistake(view.mistake)]
    lines.append(wrap(f"{view.why_label}: {view.explanation}"))
    return "\n".join([*lines, *chart(view.chart), wrap(footer)])


def notice(view: NoticeView, zone: tzinfo | None = None) -> str:
    """A notice as plain text: the chat surfaces' code marks (`offload`) dropped."""
    return view.text.replace("`", "") + next_due(view.lang, view.next_due, zone)


def next_due(lang: Lang, when: datetime | None, zone: tzinfo | None = None) -> str:
    """The review's next due time in `zone` (None: this machine's local zone), the zone named,
    as the sentence that follows a review notice; "" when there is no next card."""
    if when is None:
        return ""
    local = when.astimezone(zone)
    return " " + t(lang, "review_next_due", when=local.strftime("%Y-%m-%d %H:%M %Z"))


def reply(view: Reply) -> str:
    """Any `/zeroquiz` command's private answer, as the terminal shows it (a `/word` typed at a
    prompt): whatever the registry gains, the terminal can show."""
    if isinstance(view, LeaderboardView):
        return leaderboard(view, view.title)
    if isinstance(view, StatsView):
        return "\n".join(["", view.title, *(f"  {label}: {value}" for label, value in view.lines)])
    if isinstance(view, ReviewView):
        return review_card(view)
    if isinstance(view, InsightsView):
        return insights_text(view)
    return "\n".join([*filter(None, [view.title]), notice(view), *view.lines])
