"""Core views -> Block Kit messages. Pure functions: no I/O, no Slack client.

Every message fits Block Kit's limits by construction (texts are escaped, then clipped to the
limit of the field they land in); tests render every bundled question to prove it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from slack_sdk.models.blocks import ButtonElement, HeaderBlock, SectionBlock

from adapters.slack.mrkdwn import bar, clip, escape, local_time
from bot.i18n import t
from bot.model import Lang
from bot.views import (
    Feedback,
    LeaderboardView,
    NoticeView,
    QuestionView,
    RevealView,
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
ANSWER_ACTION_PREFIX = "zq_answer_"
_SLOT = "\x00"


@dataclass(frozen=True)
class SlackMessage:
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
    notes = [escape(view.summary)] + ([escape(view.fastest)] if view.fastest else [])
    blocks = [
        _header(view.title),
        _section(escape(view.prompt)),
        _section(options),
        _section(
            f"*{escape(view.answer_line)}*\n*{escape(view.why_label)}:* {escape(view.explanation)}"
        ),
        _section(f"*{escape(view.spread_label)}*\n{bars}"),
        _context(*notes),
    ]
    return SlackMessage(_fallback(view.title, view.answer_line), blocks)


def feedback_message(view: Feedback) -> SlackMessage:
    headline = escape(view.headline)
    if view.points:
        headline += " · " + escape(t(view.lang, "feedback_points", points=view.points))
    blocks = [_section(headline)]
    if view.explanation:
        blocks.append(
            _section(f"*{escape(view.why_label)}:* {escape(view.explanation)}"),
        )
    return SlackMessage(_fallback(view.headline), blocks)


def leaderboard_message(view: LeaderboardView) -> SlackMessage:
    body = "\n".join(escape(line) for line in view.lines) or escape(view.empty_text)
    blocks = [_header(view.title), _section(body)]
    if view.me_line:
        blocks.append(_context(escape(view.me_line)))
    return SlackMessage(_fallback(view.title), blocks)


def stats_message(view: StatsView) -> SlackMessage:
    fields = [
        {"type": "mrkdwn", "text": clip(f"*{escape(label)}*\n{escape(value)}", FIELD_TEXT)}
        for label, value in view.lines[:10]
    ]
    blocks = [_header(view.title), {"type": "section", "fields": fields}]
    return SlackMessage(_fallback(view.title), blocks)


def notice_message(view: NoticeView) -> SlackMessage:
    blocks: list[Block] = []
    if view.title:
        blocks.append(_header(view.title))
    if view.text and view.text != view.title:
        blocks.append(_section(escape(view.text)))
    if view.lines:
        blocks.append(_section("\n".join(escape(line) for line in view.lines)))
    return SlackMessage(_fallback(view.title or view.text), blocks)


def reply_message(reply: NoticeView | LeaderboardView | StatsView) -> SlackMessage:
    """The private answer to a /zeroquiz command, whatever kind of view the core returned."""
    if isinstance(reply, LeaderboardView):
        return leaderboard_message(reply)
    if isinstance(reply, StatsView):
        return stats_message(reply)
    return notice_message(reply)


def _fill(lang: Lang, key: str, *, time: str) -> str:
    """A catalogue text escaped as a whole, with one raw mrkdwn token put into its slot."""
    return escape(t(lang, key, time=_SLOT)).replace(_SLOT, time)


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
