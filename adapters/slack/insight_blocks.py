"""The insights as Block Kit (a command's private reply, and the admin's Home tab). Pure.

Fits by construction: the core bounds the lines (20 topics, 5 questions per list, 400
characters a line), so each section stays under 3000 characters and a reply under 12 blocks.
"""

from __future__ import annotations

from typing import Any

from adapters.slack.mrkdwn import clip, escape
from bot.views import InsightLine, InsightsView

Block = dict[str, Any]
SECTION_TEXT = 3000
HEADER_TEXT = 150
CONTEXT_TEXT = 3000


def insights_blocks(view: InsightsView, *, header: bool = True) -> list[Block]:
    blocks: list[Block] = []
    if header:
        blocks.append({"type": "header", "text": _plain(view.title, HEADER_TEXT)})
    else:
        blocks.append(_section(f"*{escape(view.title)}*"))
    if view.empty_text is not None:
        blocks.append(_section(escape(view.empty_text)))
    else:
        chart = "\n".join(escape(line) for line in view.chart)
        blocks.append(_section(f"*{escape(view.topics_title)}*\n```{chart}```"))
        blocks.append(_context(escape(view.legend)))
    blocks.append(_listed(view.missed_title, view.missed, view.missed_empty))
    blocks.append(_listed(view.check_title, view.check, view.check_empty))
    blocks.append(_context(escape(view.check_note)))
    if view.reported:
        blocks.append(_listed(view.reported_title, view.reported, ""))
    return blocks


def insights_fallback(view: InsightsView) -> str:
    return clip(escape(view.title), 3000)


def _listed(title: str, items: tuple[InsightLine, ...], empty: str) -> Block:
    lines = [f"• {escape(item.text)}" for item in items] or [escape(empty)]
    return _section(f"*{escape(title)}*\n" + "\n".join(lines))


def _plain(text: str, limit: int) -> dict[str, Any]:
    return {"type": "plain_text", "text": clip(text, limit), "emoji": True}


def _section(mrkdwn: str) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": clip(mrkdwn, SECTION_TEXT)}}


def _context(mrkdwn: str) -> Block:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": clip(mrkdwn, CONTEXT_TEXT)}]}
