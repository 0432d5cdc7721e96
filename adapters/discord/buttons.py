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

from adapters.discord.render import (
    REVIEW_PREFIX,
    direct_custom_id,
    question_button_specs,
    review_button_specs,
)
from adapters.discord.reporting import report_button
from adapters.discord.typed import typed_button
from bot.model import Lang
from bot.views import NoticeView, QuestionView, ReminderView, ReviewResult, ReviewView


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
    """One row of letter buttons, and Type it when the answer is a number; the round, not the
    process, decides when they stop working."""
    items = [button(label, custom_id) for label, custom_id in question_button_specs(view)]
    if view.typed is not None:
        items.append(typed_button(view.typed.button, view.round_id))
    return inert(items)


def report_view(lang: Lang, question_id: str) -> discord.ui.View:
    """A verdict's one button: Report."""
    return inert([report_button(lang, question_id)])


def review_buttons(
    view: ReviewView | ReviewResult | NoticeView, *, guild: str | None = None
) -> discord.ui.View | None:
    """The review step's buttons in one row, or None (the step ends the review); `guild`: the
    server of a review in a direct message (a reminder's), which every custom_id then names."""
    specs = review_button_specs(view)
    if not specs and not isinstance(view, ReviewResult):
        return None
    items = [button(label, direct_custom_id(guild, custom_id)) for label, custom_id in specs]
    # Type it in a server only: a card in a direct message takes the letters.
    if isinstance(view, ReviewView) and view.typed is not None and view.buttons and guild is None:
        items.append(typed_button(view.typed.button, view.buttons[0].token))
    if isinstance(view, ReviewResult):  # a verdict: the Report control beside Next and Stop
        report = report_button(view.lang, view.question_id)
        report.custom_id = direct_custom_id(guild, report.custom_id or "")
        items.append(report)
    return inert(items)


def reminder_buttons(view: ReminderView) -> discord.ui.View:
    """A reminder's one button, "Review now": the review's own Next, naming the server."""
    custom_id = direct_custom_id(view.team, f"{REVIEW_PREFIX}{view.button.token}")
    return inert([button(view.button.label[:80], custom_id)])
