"""Answer buttons that survive restarts: the custom_id carries the round and the option.

No view has to be kept in memory: a click on a week-old message finds its round in the database.
The template takes every custom_id under our prefix and the button reads it strictly: one that
isn't a round and an option (other digits than ASCII, a number too big) gets a private "no
longer valid" instead of an exception in discord.py's task and no answer at all.
The DynamicItems build the messages' buttons; their clicks are routed by clicks.py, which calls
the same handler methods as `callback` below without discord.py rebuilding the View per click.
"""

from __future__ import annotations

import re
from typing import Any, Protocol, cast

import discord

from adapters.discord.render import (
    DIRECT_ID,
    REVIEW_PREFIX,
    REVIEW_TEMPLATE,
    TEMPLATE,
    answer_choice,
    direct_custom_id,
    question_button_specs,
    review_button_specs,
    review_token,
)
from adapters.discord.reporting import report_button
from adapters.discord.typed import typed_button
from bot.views import NoticeView, QuestionView, ReminderView, ReviewResult, ReviewView


class ClickHandler(Protocol):
    async def on_click(
        self,
        interaction: discord.Interaction,
        round_id: int,
        option: int,
        *,
        clicked: str | None = None,
    ) -> None:
        """Record the click and answer it ephemerally. `clicked`: "channel id:message id" of the
        clicked message when the interaction was built without it (clicks.py)."""
        ...

    async def on_invalid_click(self, interaction: discord.Interaction) -> None:
        """Tell the person, ephemerally, that the button is no longer valid."""
        ...

    async def on_review(
        self, interaction: discord.Interaction, token: str, *, guild: str | None = None
    ) -> None:
        """A button of the private review: the next step replaces that ephemeral message.
        `guild`: the server whose review it is, for a click in a direct message."""
        ...

    async def on_report(
        self, interaction: discord.Interaction, custom_id: str, *, guild: str | None = None
    ) -> None:
        """The Report control under a verdict: opens the report's modal."""
        ...

    async def on_direct(self, interaction: discord.Interaction, custom_id: str) -> None:
        """A review's button in a direct message: its custom_id names the server."""
        ...

    async def on_typed(self, interaction: discord.Interaction, custom_id: str) -> None:
        """Type it beside a generated question: opens the modal to type the number in."""
        ...


class HasClickHandler(Protocol):
    handler: ClickHandler


class AnswerButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=TEMPLATE):
    def __init__(self, custom_id: str, label: str) -> None:
        super().__init__(
            discord.ui.Button(label=label, style=discord.ButtonStyle.secondary, custom_id=custom_id)
        )
        self.choice = answer_choice(custom_id)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> AnswerButton:
        label = getattr(item, "label", None) or "?"
        return cls(match.string, label)

    async def callback(self, interaction: discord.Interaction) -> None:
        handler = cast(HasClickHandler, interaction.client).handler
        if self.choice is None:
            await handler.on_invalid_click(interaction)
        else:
            await handler.on_click(interaction, *self.choice)


def answer_buttons(view: QuestionView) -> discord.ui.View:
    """One row of letter buttons, and Type it when the answer is a number (its click is routed
    by clicks.py). timeout=None: the round, not the process, decides when to stop."""
    buttons = discord.ui.View(timeout=None)
    for label, custom_id in question_button_specs(view):
        buttons.add_item(AnswerButton(custom_id, label))
    if view.typed is not None:
        buttons.add_item(typed_button(view.typed.button, view.round_id))
    return buttons


class ReviewButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=REVIEW_TEMPLATE):
    """A button of the private review: its custom_id holds the core's whole token, so a click
    after a restart needs nothing kept in memory."""

    def __init__(self, custom_id: str, label: str) -> None:
        super().__init__(
            discord.ui.Button(label=label, style=discord.ButtonStyle.secondary, custom_id=custom_id)
        )
        self.token = review_token(custom_id)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ReviewButton:
        label = getattr(item, "label", None) or "?"
        return cls(match.string, label)

    async def callback(self, interaction: discord.Interaction) -> None:
        handler = cast(HasClickHandler, interaction.client).handler
        if self.token is None:
            await handler.on_invalid_click(interaction)
        else:
            await handler.on_review(interaction, self.token)


class DirectButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=DIRECT_ID.pattern):
    """A review's button in a direct message (a reminder's): as ReviewButton, with the server."""

    def __init__(self, custom_id: str, label: str) -> None:
        super().__init__(
            discord.ui.Button(label=label, style=discord.ButtonStyle.secondary, custom_id=custom_id)
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> DirectButton:
        label = getattr(item, "label", None) or "?"
        return cls(match.string, label)

    async def callback(self, interaction: discord.Interaction) -> None:
        handler = cast(HasClickHandler, interaction.client).handler
        await handler.on_direct(interaction, self.item.custom_id or "")


def review_buttons(
    view: ReviewView | ReviewResult | NoticeView, *, guild: str | None = None
) -> discord.ui.View | None:
    """The review step's buttons in one row, or None (the step ends the review); `guild`: the
    server of a review in a direct message, which every custom_id then names."""
    specs = review_button_specs(view)
    if not specs and not isinstance(view, ReviewResult):
        return None
    buttons = discord.ui.View(timeout=None)
    for label, custom_id in specs:
        if guild is None:
            buttons.add_item(ReviewButton(custom_id, label))
        else:
            buttons.add_item(DirectButton(direct_custom_id(guild, custom_id), label))
    # Type it in a server only: a card in a direct message (a reminder's) takes the letters.
    if isinstance(view, ReviewView) and view.typed is not None and view.buttons and guild is None:
        buttons.add_item(typed_button(view.typed.button, view.buttons[0].token))
    if isinstance(view, ReviewResult):  # a verdict: the Report control beside Next and Stop
        report = report_button(view.lang, view.question_id)
        report.custom_id = direct_custom_id(guild, report.custom_id or "")
        buttons.add_item(report)
    return buttons


def reminder_buttons(view: ReminderView) -> discord.ui.View:
    """A reminder's one button, "Review now": the review's own Next, naming the server."""
    buttons = discord.ui.View(timeout=None)
    custom_id = direct_custom_id(view.team, f"{REVIEW_PREFIX}{view.button.token}")
    buttons.add_item(DirectButton(custom_id, view.button.label[:80]))
    return buttons
