"""Core views -> Block Kit messages. Pure functions: no I/O, no Slack client.

Every message fits Block Kit's limits by construction (texts are escaped, then clipped to the
limit of the field they land in); tests render every bundled question to prove it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from slack_sdk.models.blocks import ButtonElement, HeaderBlock, SectionBlock

from adapters.slack.insight_blocks import insights_blocks, insights_fallback
from adapters.slack.mrkdwn import bar, clip, escape, local_time
from bot.i18n import t
from bot.model import Lang
from bot.views import (
    ChartView,
    Feedback,
    HomeView,
    InsightsView,
    LeaderboardView,
    Mistake,
    NoticeView,
    QuestionView,
    ReminderView,
    RevealView,
    ReviewButton,
    ReviewResult,
    ReviewView,
    StatsView,
)

Block = dict[str, Any]

# Block Kit's limits as slack_sdk's block models state them; the SDK does not state the last
# three (Slack's reference: section field text 2000, context text 3000, fallback text 3000).
HEADER_TEXT = HeaderBlock.text_max_length
SECTION_TEXT = SectionBlock.text_max_length
BUTTON_TEXT = ButtonElement.text_max_length
FIELD_TEXT = 2000
CONTEXT_TEXT = 3000
FALLBACK_TEXT = 3000
HOME_BLOCKS = 100  # a Home tab view holds up to 100 blocks (a message 50)
HOME_LINE = 280  # one line of a Home list: ten of them (the top 10) fit one section
ANSWER_ACTION_PREFIX = "zq_answer_"
REPORT_ACTION = "zq_report"  # the Report control under a verdict: its value is "lang|question id"
TYPED_ACTION = "zq_typed"  # Type it, beside a generated question's letters: its value is the round
REVIEW_ACTION_PREFIX = "zqr_"  # the personal review's buttons: zqr_A..zqr_E, zqr_next, zqr_stop
_SLOT = "\x00"


class SlackMessage(NamedTuple):
    """What chat.postMessage / chat.update / respond() take: fallback text plus blocks."""

    text: str
    blocks: list[Block]


def question_message(view: QuestionView) -> SlackMessage:
    closes = _fill(view.lang, "closes_at", time=local_time(view.closes_at))
    count = escape(t(view.lang, "answer_count", count=view.answer_count))
    buttons = [
        {
            "type": "button",
            "text": _plain(o.letter, BUTTON_TEXT),
            "action_id": f"{ANSWER_ACTION_PREFIX}{o.letter}",
            "value": f"{view.round_id}:{i}",
            "accessibility_label": clip(t(view.lang, "slack_answer_label", letter=o.letter), 75),
        }
        for i, o in enumerate(view.options)
    ]
    if view.typed is not None:  # the answer is a number: it may be typed (adapters/slack/typed.py)
        buttons.append(_typed_button(view.typed.button, str(view.round_id)))
    blocks = [
        _header(view.title),
        _section(escape(view.prompt)),
        _section("\n".join(f"*{o.letter})* {escape(o.text)}" for o in view.options)),
        {"type": "actions", "block_id": f"zq_round_{view.round_id}", "elements": buttons},
        _context(f"{closes} · {count}", escape(view.hint)),
    ]
    return SlackMessage(_fallback(view.title, view.prompt), blocks)


def reveal_message(view: RevealView) -> SlackMessage:
    options = "\n".join(
        f"✅ *{r.letter})* {escape(r.text)}" if r.correct else f"{r.letter}) {escape(r.text)}"
        for r in view.spread
    )
    bars = "\n".join(
        f"`{bar(r.share)}` *{r.letter}* {r.count} ({r.share:.0%}){' ✅' if r.correct else ''}"
        for r in view.spread
    )
    notes = [escape(line) for line in (view.summary, view.typed, view.fastest) if line]
    blocks = [
        _header(view.title),
        _section(escape(view.prompt)),
        _section(options),
        _section(
            f"*{escape(view.answer_line)}*\n*{escape(view.why_label)}:* {escape(view.explanation)}"
        ),
        *_chart(view.chart),
        _section(f"*{escape(view.spread_label)}*\n{bars}"),
        *_mistake(view.mistake),
        _context(*notes),
    ]
    return SlackMessage(_fallback(view.title, view.answer_line), blocks)


def feedback_message(view: Feedback) -> SlackMessage:
    headline = escape(view.headline)
    if view.points:
        headline += " · " + escape(t(view.lang, "feedback_points", points=view.points))
    blocks = [_section(headline), *_mistake(view.mistake)]
    if view.explanation:
        blocks.append(
            _section(f"*{escape(view.why_label)}:* {escape(view.explanation)}"),
        )
        blocks += _chart(view.chart)
    if view.question_id:
        blocks.append(_report_actions(view.lang, view.question_id))
    return SlackMessage(_fallback(view.headline), blocks)


def _report_button(lang: Lang, question_id: str) -> Block:
    """Report the question just answered: opens a form (adapters/slack/reporting.py)."""
    return {
        "type": "button",
        "text": _plain(t(lang, "report_button"), BUTTON_TEXT),
        "action_id": REPORT_ACTION,
        "value": f"{lang}|{question_id}",
    }


def _report_actions(lang: Lang, question_id: str) -> Block:
    return {
        "type": "actions",
        "block_id": "zq_report",
        "elements": [_report_button(lang, question_id)],
    }


def _mistake(mistake: Mistake | None) -> list[Block]:
    """Why an option is wrong: one section (a reason is at most 300 characters)."""
    if mistake is None:
        return []
    return [_section(f"*{escape(mistake.label)}:* {escape(mistake.text)}")]


def leaderboard_message(view: LeaderboardView) -> SlackMessage:
    body = "\n".join(escape(line) for line in view.lines) or escape(view.empty_text)
    blocks = [_header(view.title), _section(body)]
    if view.me_line:
        blocks.append(_context(escape(view.me_line)))
    return SlackMessage(_fallback(view.title), blocks)


def stats_message(view: StatsView) -> SlackMessage:
    blocks = [_header(view.title), {"type": "section", "fields": _fields(view.lines)}]
    return SlackMessage(_fallback(view.title), blocks)


def notice_message(view: NoticeView) -> SlackMessage:
    blocks: list[Block] = []
    if view.title:
        blocks.append(_header(view.title))
    if view.text and view.text != view.title:
        blocks.append(_section(escape(view.text) + _next_due(view.lang, view.next_due)))
    if view.lines:
        blocks.append(_section("\n".join(escape(line) for line in view.lines)))
    return SlackMessage(_fallback(view.title or view.text), blocks)


def review_message(view: ReviewView | ReviewResult | NoticeView) -> SlackMessage:
    """A step of the private review: a due card with its letter buttons, or the verdict with
    the explanation and Next / Stop, or the closing notice. Button values are the core's
    tokens (at most 96 characters, well inside a value's 2000)."""
    if isinstance(view, NoticeView):
        return notice_message(view)
    blocks = [_header(view.title), _section(escape(view.prompt))]
    if isinstance(view, ReviewView):
        blocks.append(_section("\n".join(f"*{o.letter})* {escape(o.text)}" for o in view.options)))
        notes = [escape(view.due_line)]
        fallback = _fallback(view.title, view.prompt)
    else:
        blocks.append(_section(escape(view.headline)))
        blocks += _mistake(view.mistake)
        blocks.append(_section(f"*{escape(view.why_label)}:* {escape(view.explanation)}"))
        blocks += _chart(view.chart)
        notes = [escape(view.footer) + _next_due(view.lang, view.next_due)]
        fallback = _fallback(view.title, view.headline)
    if view.buttons or isinstance(view, ReviewResult):
        elements = [_review_button(b) for b in view.buttons]
        if isinstance(view, ReviewView) and view.typed is not None and view.buttons:
            elements.append(_typed_button(view.typed.button, view.buttons[0].token))
        if isinstance(view, ReviewResult):
            elements.append(_report_button(view.lang, view.question_id))
        blocks.append({"type": "actions", "block_id": "zqr_review", "elements": elements})
    blocks.append(_context(*notes))
    return SlackMessage(fallback, blocks)


def reminder_message(view: ReminderView) -> SlackMessage:
    """A review reminder's direct message: the count, and the review's own Next button, which
    turns this message into the first due card (as a review step replaces its message)."""
    blocks = [
        _header(view.title),
        _section(escape(view.text)),
        {"type": "actions", "block_id": "zqr_remind", "elements": [_review_button(view.button)]},
    ]
    return SlackMessage(_fallback(view.title, view.text), blocks)


def _typed_button(label: str, value: str) -> Block:
    """Type it: a round's id, or a review or drill card's answer token (adapters/slack/typed.py)."""
    return {
        "type": "button",
        "text": _plain(label, BUTTON_TEXT),
        "action_id": TYPED_ACTION,
        "value": value,
    }


def _review_button(button: ReviewButton) -> Block:
    name = button.label if button.kind == "answer" else button.kind
    element: Block = {
        "type": "button",
        "text": _plain(button.label, BUTTON_TEXT),
        "action_id": f"{REVIEW_ACTION_PREFIX}{name}",
        "value": button.token,
    }
    if button.kind == "next":
        element["style"] = "primary"
    return element


def reply_message(
    reply: NoticeView | LeaderboardView | StatsView | ReviewView | InsightsView,
) -> SlackMessage:
    """The private answer to a /zeroquiz command, whatever kind of view the core returned."""
    if isinstance(reply, InsightsView):
        return SlackMessage(insights_fallback(reply), insights_blocks(reply))
    if isinstance(reply, ReviewView):
        return review_message(reply)
    if isinstance(reply, LeaderboardView):
        return leaderboard_message(reply)
    if isinstance(reply, StatsView):
        return stats_message(reply)
    return notice_message(reply)


def home_view(view: HomeView) -> dict[str, Any]:
    """The Home tab (views.publish's `view`): a handful of blocks, each clipped to its limit."""
    blocks: list[Block] = [_header(view.title)]
    if view.intro is not None:
        blocks.append(_section(escape(view.intro)))
    else:
        stats = _section(f"*{escape(view.stats.title)}*")
        blocks.append({**stats, "fields": _fields(view.stats.lines)})
    if view.review is not None:  # cards are due (the count is among the stats above)
        button = {**_review_button(view.review), "action_id": f"{REVIEW_ACTION_PREFIX}home"}
        blocks.append({"type": "actions", "block_id": "zqr_home", "elements": [button]})
    me = view.week.me_line or ""
    blocks.append(_section(f"*{escape(view.rank_title)}*\n{escape(me)}"))
    blocks.append({"type": "divider"})
    top = [escape(line) for line in view.week.lines] or [escape(view.week.empty_text)]
    blocks.append(_titled(view.top_title, top))
    if view.schedules is not None:
        blocks.append({"type": "divider"})
        daily = [f"<#{s.channel}> · {escape(s.text)}" for s in view.schedules]
        blocks.append(_titled(view.schedules_title, daily or [escape(view.schedules_empty)]))
    if view.insights is not None:  # admins: what the team's answers show this week
        blocks.append({"type": "divider"})
        blocks += insights_blocks(view.insights, header=False)
    blocks.append(_context(escape(view.footer)))
    return {"type": "home", "blocks": blocks[:HOME_BLOCKS]}


def home_after_review(result: ReviewResult, view: HomeView) -> dict[str, Any]:
    """The Home tab after the last due card: its verdict, then the usual page below it, so the
    tab never ends on a verdict without a way on (a handful of blocks each, far below 100)."""
    page = home_view(view)
    blocks = [*review_message(result).blocks, {"type": "divider"}, *page["blocks"]]
    return {**page, "blocks": blocks[:HOME_BLOCKS]}


def _chart(chart: ChartView | None) -> list[Block]:
    """A memory chart as one section: its title, then its lines in a code block (monospace, so
    the bars line up); a few hundred characters, far inside a section's 3000."""
    if chart is None:
        return []
    return [_section(f"*{escape(chart.title)}*\n```{escape(chart.body)}```")]


def _fields(lines: tuple[tuple[str, str], ...]) -> list[dict[str, Any]]:
    """(label, value) pairs as a section's fields: at most 10, each clipped."""
    return [
        {"type": "mrkdwn", "text": clip(f"*{escape(label)}*\n{escape(value)}", FIELD_TEXT)}
        for label, value in lines[:10]
    ]


def _titled(title: str, lines: list[str]) -> Block:
    """A bold title over whole lines, as many as fit the section, then an ellipsis: a line is
    never cut through its leading channel link (`<#C123>`)."""
    text = f"*{escape(title)}*"
    for line in (clip(each, HOME_LINE) for each in lines):
        if len(text) + len(line) + 3 > SECTION_TEXT:
            return _section(text + "\n…")
        text += "\n" + line
    return _section(text)


def _fill(lang: Lang, key: str, *, time: str) -> str:
    """A catalogue text escaped as a whole, with one raw mrkdwn token put into its slot."""
    return escape(t(lang, key, time=_SLOT)).replace(_SLOT, time)


def _next_due(lang: Lang, when: datetime | None) -> str:
    """The review's next due time as a sentence in the reader's own zone (a date token)."""
    if when is None:
        return ""
    return " " + escape(t(lang, "review_next_due", when=_SLOT)).replace(_SLOT, local_time(when))


def _plain(text: str, limit: int) -> dict[str, Any]:
    return {"type": "plain_text", "text": clip(text, limit), "emoji": True}


def _header(text: str) -> Block:
    return {"type": "header", "text": _plain(text, HEADER_TEXT)}


def _section(mrkdwn: str) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": clip(mrkdwn, SECTION_TEXT)}}


def _context(*mrkdwn: str) -> Block:
    elements = [{"type": "mrkdwn", "text": clip(m, CONTEXT_TEXT)} for m in mrkdwn[:10]]
    return {"type": "context", "elements": elements}


def _fallback(*parts: str) -> str:
    """Notification text (shown where blocks can't be): escaped like any mrkdwn."""
    return clip(escape(": ".join(p for p in parts if p)), FALLBACK_TEXT)
