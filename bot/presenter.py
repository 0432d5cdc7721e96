"""Turn stored rows and bank questions into localised views. Pure functions, no I/O."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Literal

from bot.charts import question_chart
from bot.i18n import t
from bot.model import LETTERS, Lang, Question, Text
from bot.shuffle import permutation
from bot.storage.records import RoundRecord
from bot.typed import form as typed_form
from bot.views import (
    Feedback,
    HomeView,
    LeaderboardView,
    LeaderRow,
    Mistake,
    OptionLine,
    Period,
    QuestionView,
    RevealView,
    ReviewButton,
    ScheduleLine,
    SpreadRow,
    StatsView,
)


def text_bar(share: float, width: int) -> str:
    """A share of answers as a bar of block characters, drawable on any text surface."""
    filled = round(max(0.0, min(1.0, share)) * width)
    return "█" * filled + "░" * (width - filled)


def display_order(row: RoundRecord, question: Question) -> tuple[int, ...]:
    return permutation(row.seed, len(question.options))


def title_for(row: RoundRecord) -> str:
    if row.run_index is not None and row.run_total is not None:
        return t(row.lang, "quiz_title_run", n=row.run_index + 1, total=row.run_total)
    if row.kind == "daily":
        return t(row.lang, "quiz_title_daily")
    return t(row.lang, "quiz_title")


def question_view(row: RoundRecord, question: Question, answer_count: int) -> QuestionView:
    lang = row.lang
    order = display_order(row, question)
    return QuestionView(
        round_id=row.id,
        question_id=question.id,
        lang=lang,
        title=title_for(row),
        prompt=question.prompt.get(lang),
        options=option_lines(question, order, lang),
        opened_at=row.opened_at,
        closes_at=row.deadline_at,
        answer_count=answer_count,
        hint=t(lang, "pick_letter"),
        typed=typed_form(question.number, lang) if question.number else None,
    )


def option_lines(question: Question, order: tuple[int, ...], lang: Lang) -> tuple[OptionLine, ...]:
    """The options in display order, lettered."""
    return tuple(
        OptionLine(LETTERS[i], question.options[src].get(lang)) for i, src in enumerate(order)
    )


def verdict_headline(lang: Lang, question: Question, order: tuple[int, ...], option: int) -> str:
    """The verdict line (right, or which letter was chosen) and the right option, as lettered."""
    right = LETTERS[order.index(question.answer)]
    right_text = question.options[question.answer].get(lang)
    if option == question.answer:
        return t(lang, "feedback_correct", letter=right, text=right_text)
    chosen = LETTERS[order.index(option)]
    return t(lang, "feedback_wrong", chosen=chosen, letter=right, text=right_text)


def mistake_for(
    lang: Lang,
    question: Question,
    order: tuple[int, ...],
    option: int,
    *,
    most_picked: bool = False,
) -> Mistake | None:
    """Why the picked option is wrong, headed with its letter as shown; None for the key, or
    an option that gives no reason (a team pack may leave them out)."""
    reason = question.reason(option)
    if reason is None:
        return None
    key = "why_wrong_most_picked" if most_picked else "why_wrong"
    label = t(lang, key, letter=LETTERS[order.index(option)])
    return Mistake(label, reason.get(lang))


FEEDBACK_CACHE = 4096  # distinct verdicts remembered: (question, order, option, status, points)
FeedbackStatus = Literal["correct", "wrong", "already"]


def _feedback(
    lang: Lang,
    question: Question,
    order: tuple[int, ...],
    option: int,
    status: FeedbackStatus,
    points: int,
) -> Feedback:
    """The private reply to a click: verdict, the right option and the explanation."""
    chosen = LETTERS[order.index(option)]
    right = LETTERS[order.index(question.answer)]
    if status in ("correct", "wrong"):
        headline = verdict_headline(lang, question, order, option)
    else:
        headline = t(lang, "feedback_already", letter=chosen)
    return Feedback(
        status=status,
        lang=lang,
        headline=headline,
        chosen_letter=chosen,
        correct_letter=right,
        explanation=question.explanation.get(lang),
        why_label=t(lang, "why"),
        points=points,
        chart=question_chart(question.chart, lang),
        mistake=mistake_for(lang, question, order, option),
        question_id=question.id,
    )


# Remembered: every click on one option of one round gets the same reply, so a burst renders it
# (its chart above all) once instead of per click; the views are frozen, safe to share.
feedback_view: Callable[[Lang, Question, tuple[int, ...], int, FeedbackStatus, int], Feedback] = (
    functools.lru_cache(maxsize=FEEDBACK_CACHE)(_feedback)
)


def typed_feedback(
    lang: Lang,
    question: Question,
    order: tuple[int, ...],
    typed: str,
    status: FeedbackStatus,
    points: int = 0,
    why: Text | None = None,
) -> Feedback:
    """The private reply to a typed answer (bot/typed.py): a click's, saying what was typed and,
    for a named mistake, why that number is wrong."""
    right = LETTERS[order.index(question.answer)]
    text = question.options[question.answer].get(lang)
    headline = t(lang, f"typed_{status}", typed=typed, letter=right, text=text)
    mistake = Mistake(t(lang, "why_typed", typed=typed), why.get(lang)) if why else None
    return Feedback(
        status=status,
        lang=lang,
        headline=headline,
        correct_letter=right,
        explanation=question.explanation.get(lang),
        why_label=t(lang, "why"),
        points=points,
        chart=question_chart(question.chart, lang),
        mistake=mistake,
        question_id=question.id,
    )


def reveal_view(
    row: RoundRecord,
    question: Question,
    counts: dict[int, int],
    fastest: tuple[str, int] | None,
    streaks: list[tuple[str, int]] | None = None,
    typed: tuple[int, int] = (0, 0),
) -> RevealView:
    """`counts` per option in file order (a typed number that is no option's: -1); `typed`: the
    answers typed, and how many of those were right."""
    lang = row.lang
    order = display_order(row, question)
    total = sum(counts.values())
    right = counts.get(question.answer, 0)
    correct_letter = LETTERS[order.index(question.answer)]
    spread = tuple(
        SpreadRow(
            letter=LETTERS[i],
            text=question.options[src].get(lang),
            count=counts.get(src, 0),
            share=(counts.get(src, 0) / total) if total else 0.0,
            correct=src == question.answer,
        )
        for i, src in enumerate(order)
    )
    wrong = [src for src in order if src != question.answer and counts.get(src, 0)]
    # The most picked wrong option (ties: the one shown first): what the channel most needs fixed.
    common = max(wrong, key=lambda src: counts.get(src, 0), default=None)
    fastest_line = None
    if fastest is not None:
        seconds = f"{fastest[1] / 1000:.1f}"
        fastest_line = t(lang, "reveal_fastest", name=fastest[0], seconds=seconds)
    return RevealView(
        round_id=row.id,
        question_id=question.id,
        lang=lang,
        title=title_for(row),
        prompt=question.prompt.get(lang),
        correct_letter=correct_letter,
        answer_line=t(
            lang,
            "reveal_answer",
            letter=correct_letter,
            text=question.options[question.answer].get(lang),
        ),
        explanation=question.explanation.get(lang),
        why_label=t(lang, "why"),
        spread_label=t(lang, "reveal_spread"),
        spread=spread,
        total=total,
        right=right,
        summary=t(lang, "reveal_right", right=right, total=total)
        if total
        else t(lang, "reveal_nobody"),
        fastest=fastest_line,
        streaks=(
            t(lang, "reveal_streaks", names=", ".join(f"{n} ({d})" for n, d in streaks))
            if streaks
            else None
        ),
        chart=question_chart(question.chart, lang),
        mistake=(
            mistake_for(lang, question, order, common, most_picked=True)
            if common is not None
            else None
        ),
        typed=t(lang, "reveal_typed", typed=typed[0], right=typed[1]) if typed[0] else None,
    )


def daily_streaks(
    history: list[dict[str, str]], minimum: int = 2, top: int = 10
) -> list[tuple[str, int]]:
    """People right on the latest daily question and the days before it without a break.

    `history` is newest first: user id -> name of those right on each daily round.
    """
    if not history:
        return []
    found: list[tuple[str, int]] = []
    for user, name in history[0].items():
        days = 0
        for right in history:
            if user not in right:
                break
            days += 1
        if days >= minimum:
            found.append((name, days))
    found.sort(key=lambda item: (-item[1], item[0]))
    return found[:top]


def leaderboard_view(
    lang: Lang, period: Period, top: list[LeaderRow], me: LeaderRow | None, *, asked: bool
) -> LeaderboardView:
    """`top` in rank order; `me` the asker's line (ranked even outside the top), if asked."""
    period_name = t(lang, f"period_{period}")
    rows = tuple(top)
    me_line: str | None = None
    if asked:
        me_line = (
            t(lang, "leaderboard_you", rank=me.rank, points=me.points, correct=me.correct)
            if me is not None
            else t(lang, "leaderboard_you_none", period=period_name)
        )
    return LeaderboardView(
        lang=lang,
        period=period,
        title=t(lang, "leaderboard_title", period=period_name),
        rows=rows,
        lines=tuple(
            t(lang, "leaderboard_row", rank=r.rank, name=r.name, points=r.points, correct=r.correct)
            for r in rows
        ),
        me=me,
        me_line=me_line,
        empty_text=t(lang, "leaderboard_empty", period=period_name),
    )


def in_season(view: LeaderboardView, began: str) -> LeaderboardView:
    """A board of a team that started a season (on the date `began`): it counts from then on,
    and its title says so."""
    period_name = t(view.lang, f"period_{view.period}")
    title = t(view.lang, "leaderboard_title_season", period=period_name, date=began)
    return view._replace(title=title)


def stats_view(
    lang: Lang, name: str, history: list[tuple[bool, int]], due: tuple[int, int] = (0, 0)
) -> StatsView:
    """A person's stats; `due`: their review cards due now and within the coming week."""
    answered = len(history)
    correct = sum(1 for ok, _ in history if ok)
    points = sum(p for _, p in history)
    best = run = 0
    for ok, _ in history:
        run = run + 1 if ok else 0
        best = max(best, run)
    accuracy = correct / answered if answered else 0.0
    return StatsView(
        lang=lang,
        title=t(lang, "stats_title"),
        name=name,
        answered=answered,
        correct=correct,
        points=points,
        accuracy=accuracy,
        current_streak=run,
        best_streak=best,
        lines=(
            (t(lang, "stats_answered"), str(answered)),
            (t(lang, "stats_correct"), str(correct)),
            (t(lang, "stats_accuracy"), f"{accuracy:.0%}"),
            (t(lang, "stats_points"), str(points)),
            (t(lang, "stats_streak"), str(run)),
            (t(lang, "stats_best_streak"), str(best)),
            (t(lang, "stats_due_now"), str(due[0])),
            (t(lang, "stats_due_week"), str(due[1])),
        ),
        due_now=due[0],
        due_week=due[1],
    )


def home_view(
    stats: StatsView,
    week: LeaderboardView,
    schedules: tuple[ScheduleLine, ...] | None,
    review: ReviewButton | None = None,
) -> HomeView:
    """A person's Home page from their stats and this week's board (asked with their line);
    `review`, the "Review now" button, shows only while cards are due."""
    lang = stats.lang
    return HomeView(
        lang=lang,
        title=t(lang, "home_title"),
        intro=t(lang, "home_new") if stats.answered == 0 else None,
        stats=stats,
        rank_title=t(lang, "home_rank_title"),
        week=week,
        top_title=t(lang, "home_top_title"),
        schedules_title=t(lang, "home_daily_title"),
        schedules=schedules,
        schedules_empty=t(lang, "home_daily_none"),
        footer=t(lang, "home_refreshed"),
        review=review if stats.due_now else None,
    )
