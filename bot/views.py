"""What the core hands to adapters: frozen, already-localised, free of any markup.

Each view carries the numbers (for tests and for adapters that draw bars) and the localised lines
(so adapters never compose sentences themselves).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, NamedTuple

# Values the storage layer returns too, kept in bot.model (below storage) and named here as well.
from bot.model import PERIODS as PERIODS
from bot.model import Lang
from bot.model import LeaderRow as LeaderRow
from bot.model import Period as Period

# "invalid": a typed answer that is no number (nothing was recorded; the headline says how to type)
FeedbackStatus = Literal["correct", "wrong", "already", "closed", "unknown", "invalid"]


class OptionLine(NamedTuple):
    letter: str
    text: str


class TypedForm(NamedTuple):
    """The "Type it" control of a question whose answer is a number (bot/typed.py): the button,
    and the words of the form it opens (a modal on Slack and Discord)."""

    lang: Lang
    button: str
    title: str
    label: str  # the text field's, with the unit
    placeholder: str  # "For example 31.4 GB"
    submit: str
    example: str  # "31.4 GB": in the question's unit and magnitude, never the answer


class QuestionView(NamedTuple):
    round_id: int
    question_id: str
    lang: Lang
    title: str
    prompt: str
    options: tuple[OptionLine, ...]
    opened_at: datetime
    closes_at: datetime
    answer_count: int
    hint: str
    typed: TypedForm | None = None  # the answer is a number: it may be typed too


class ChartView(NamedTuple):
    """A text bar chart: a title, and lines to show in monospace (a code block where the
    platform has one), so the bars line up."""

    title: str
    lines: tuple[str, ...]

    @property
    def body(self) -> str:
        return "\n".join(self.lines)


class Feedback(NamedTuple):
    """The private reply to one click."""

    status: FeedbackStatus
    lang: Lang
    headline: str
    chosen_letter: str | None = None
    correct_letter: str | None = None
    explanation: str | None = None
    why_label: str = ""
    points: int = 0
    chart: ChartView | None = None  # beside the explanation: a memory question's stages
    mistake: Mistake | None = None  # a wrong pick: why that option is wrong, before the explanation
    question_id: str = ""  # what the Report control reports (bot/reports.py)

    @property
    def recorded(self) -> bool:
        return self.status in ("correct", "wrong")


class Mistake(NamedTuple):
    """Why an option is wrong, with its heading ("Why B is not right"): shown to the person who
    picked it above why the key is right, and under a reveal's spread for the most picked one."""

    label: str
    text: str


@dataclass(frozen=True)
class SpreadRow:
    letter: str
    text: str
    count: int
    share: float  # 0..1 of all answers
    correct: bool


class RevealView(NamedTuple):
    round_id: int
    question_id: str
    lang: Lang
    title: str
    prompt: str
    correct_letter: str
    answer_line: str
    explanation: str
    why_label: str
    spread_label: str
    spread: tuple[SpreadRow, ...]
    total: int
    right: int
    summary: str
    fastest: str | None
    streaks: str | None = None  # daily questions: who has been right several days running
    chart: ChartView | None = None  # beside the explanation: a memory question's stages
    mistake: Mistake | None = None  # the most picked wrong option and why it is wrong
    typed: str | None = None  # how many typed their answer and how many of those were right


class LeaderboardView(NamedTuple):
    lang: Lang
    period: Period
    title: str
    rows: tuple[LeaderRow, ...]
    lines: tuple[str, ...]
    me: LeaderRow | None
    me_line: str | None
    empty_text: str


class StatsView(NamedTuple):
    lang: Lang
    title: str
    name: str
    answered: int
    correct: int
    points: int
    accuracy: float  # 0..1
    current_streak: int
    best_streak: int
    lines: tuple[tuple[str, str], ...]  # (label, value)
    due_now: int = 0  # review cards due now
    due_week: int = 0  # ... and within the coming seven days (those due now included)


class PackFile(NamedTuple):
    """A team pack's YAML exactly as it was added, handed back whole: each adapter delivers it
    within its platform's limits (a file on Discord, numbered code blocks on Slack)."""

    pack: str
    version: int
    body: str
    kind: str = "pack"  # "file": a teacher's export (results, insights), not a pack
    suffix: str = "yaml"

    @property
    def filename(self) -> str:
        return f"{self.pack}.{self.suffix}"


class NoticeView(NamedTuple):
    """A short message: a command's private answer, or a public notice such as run standings."""

    lang: Lang
    text: str
    title: str = ""
    lines: tuple[str, ...] = ()
    ok: bool = True
    # The review's next card, when nothing is due: each adapter adds "review_next_due" with it
    # written in the reader's own time zone (a date token), so the core never formats it.
    next_due: datetime | None = None
    file: PackFile | None = None  # `pack export`: the YAML itself, beside the notice


class ScheduleLine(NamedTuple):
    """One channel's daily question, for an admin: when it posts and when it posts next, both
    in the schedule's own zone."""

    channel: str  # the platform's channel id (an adapter may show it as a link)
    next_at: datetime | None
    text: str
    topics: tuple[str, ...] = ()  # the questions' topics (named in `text` too); () for any


class HomeView(NamedTuple):
    """A person's own page (Slack's App Home): stats, this week's rank and top 10, and for
    admins the team's daily schedules. `schedules` is None for someone who isn't an admin."""

    lang: Lang
    title: str
    intro: str | None  # someone who has never answered: how to begin
    stats: StatsView
    rank_title: str
    week: LeaderboardView  # the team's top 10 this week, with the person's own line
    top_title: str
    schedules_title: str
    schedules: tuple[ScheduleLine, ...] | None
    schedules_empty: str
    footer: str
    review: ReviewButton | None = None  # "Review now", when cards are due
    insights: InsightsView | None = None  # admins: what the team's answers show this week

    @property
    def is_new(self) -> bool:
        return self.stats.answered == 0


ReviewAction = Literal["answer", "next", "stop"]


class ReviewButton(NamedTuple):
    """A button of the private review: its label and the token that carries everything the
    click needs (bot/reviewing.py reads it back), so a click after a restart still works."""

    kind: ReviewAction
    label: str
    token: str


class ReminderView(NamedTuple):
    """A review reminder's direct message (bot/reminders.py): how many cards are due in which
    team, and a button that starts the person's review there, privately."""

    lang: Lang
    team: str  # the platform's team id: the review the button starts is this team's
    title: str
    text: str
    due: int
    button: ReviewButton


class ReviewView(NamedTuple):
    """One due card of a person's private review, to answer with its letter buttons."""

    lang: Lang
    title: str
    question_id: str
    prompt: str
    options: tuple[OptionLine, ...]
    due_line: str  # how many cards are due (this one included)
    due: int
    buttons: tuple[ReviewButton, ...]  # one per option, in display order
    typed: TypedForm | None = None  # the answer is a number: Type it sends `buttons[0]`'s token


class ReviewResult(NamedTuple):
    """The answer to a review question: the verdict and explanation at once, then Next and
    Stop (or, when nothing more is due, no buttons and `footer` says so)."""

    lang: Lang
    title: str
    question_id: str
    prompt: str
    correct: bool
    rescheduled: bool  # False: a repeated click, the card was already reviewed
    headline: str
    explanation: str
    why_label: str
    footer: str
    remaining: int
    buttons: tuple[ReviewButton, ...]
    next_due: datetime | None = None  # nothing more due: the next card's time (see NoticeView)
    chart: ChartView | None = None  # beside the explanation: a memory question's stages
    mistake: Mistake | None = None  # a wrong pick: why that option is wrong


class TopicStat(NamedTuple):
    """One topic's answers in the period asked, and its share right in the one before."""

    topic: str
    answered: int
    correct: int
    previous: float | None  # 0..1; None: no earlier period (all time) or no answers then

    @property
    def share(self) -> float:
        return self.correct / self.answered if self.answered else 0.0


class InsightLine(NamedTuple):
    """One question the insights name, with its localised line (at most `MAX_INSIGHT_LINE`)."""

    question_id: str
    text: str
    option: int | None = None  # the option it is about (the suspect, the most chosen wrong)


MAX_INSIGHT_LINE = 400


class InsightsView(NamedTuple):
    """What the team's answers show an admin: topics weakest first (with a text bar chart whose
    lines are monospace), the most missed questions and the questions whose key to check."""

    lang: Lang
    title: str
    period: Period
    topic: str | None
    topics_title: str
    topics: tuple[TopicStat, ...]
    chart: tuple[str, ...]  # one line per topic, same order, for a monospace block
    legend: str
    missed_title: str
    missed: tuple[InsightLine, ...]
    missed_empty: str
    check_title: str
    check: tuple[InsightLine, ...]
    check_empty: str
    check_note: str  # how questions are judged, and the minimum of answers
    empty_text: str | None  # nothing answered in the period: this, instead of the chart
    reported_title: str = ""
    reported: tuple[InsightLine, ...] = ()  # questions players reported (shown when there are)
