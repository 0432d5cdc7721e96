"""Buttons that survive restarts: the custom_id carries everything a click needs.

A click on a week-old message finds its round in the database, so no view has to be kept in
memory: every view here is stopped before it is sent (discord.py's documented `View.stop`), which
renders its buttons but keeps nothing per message in discord.py's view store, and starts no task
per click. The clicks reach the client's `on_interaction`, which routes them by custom_id
(clicks.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import discord

from adapters.discord.render import question_button_specs, review_button_specs
from adapters.discord.reporting import report_button
from bot.model import Lang
from bot.views import NoticeView, QuestionView, ReviewResult, ReviewView


def inert(items: Iterable[discord.ui.Item[Any]]) -> discord.ui.View:
    """One row of these items, shown but not listened to (timeout=None: nothing to expire)."""
    view = discord.ui.View(timeout=None)
    for item in items:
        view.add_item(item)
    view.stop()
    return view


def button(label: str, custom_id: str) -> discord.ui.Button[Any]:
    return discord.ui.Button(label=label, style=discord.ButtonStyle.secondary, custom_id=custom_id)


def answer_buttons(view: QuestionView) -> discord.ui.View:
    """One row of letter buttons; the round, not the process, decides when they stop working."""
    return inert(button(label, custom_id) for label, custom_id in question_button_specs(view))


def report_view(lang: Lang, question_id: str) -> discord.ui.View:
    """A verdict's one button: Report."""
    return inert([report_button(lang, question_id)])


def review_buttons(view: ReviewView | ReviewResult | NoticeView) -> discord.ui.View | None:
    """The review step's buttons in one row, or None (the step ends the review)."""
    specs = review_button_specs(view)
    if not specs and not isinstance(view, ReviewResult):
        return None
    items = [button(label, custom_id) for label, custom_id in specs]
    if isinstance(view, ReviewResult):  # a verdict: the Report control beside Next and Stop
        items.append(report_button(view.lang, view.question_id))
    return inert(items)
