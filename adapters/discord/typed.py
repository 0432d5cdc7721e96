"""Type it on Discord: the button beside a generated question's letters (a round's, or a review or
drill card's) opens a modal with one text field (discord.ui.Modal, discord.py's public API); the
submission is graded and recorded by the core (bot/typed_answers.py; a card's rescheduled by
Quiz.review_click) before the interaction is answered, so whatever Discord shows the person is
recorded. The button's custom_id carries the round (digits) or the card's answer token, so a click
after a restart needs nothing kept in memory; an open modal lives in this process (discord.py's
modal store), and one submitted after a restart is not answered and records nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import discord

from adapters.discord.render import CUSTOM_ID_MAX, TYPED_PREFIX
from bot.bank.numbers import MAX_TYPED
from bot.views import TypedForm

MODAL_ID = "zq_typed"
# What the modal hands on: the submission's interaction and the text typed.
Submit = Callable[[discord.Interaction, str], Awaitable[None]]


def typed_target(custom_id: str) -> int | str | None:
    """What a Type it button names: a round (ASCII digits, inside SQLite's int64), or a card's
    answer token (the core reads it strictly); None for neither."""
    rest = custom_id.removeprefix(TYPED_PREFIX)
    if not custom_id.startswith(TYPED_PREFIX) or not rest:
        return None
    if rest.isascii() and rest.isdigit():
        return int(rest) if len(rest) <= 18 else None
    return rest


def typed_button(label: str, target: int | str) -> discord.ui.Button[Any]:
    """Type it for a round (its id) or a card (its answer token, at most 96 characters)."""
    custom_id = f"{TYPED_PREFIX}{target}"[:CUSTOM_ID_MAX]
    return discord.ui.Button(
        label=label[:80], style=discord.ButtonStyle.primary, custom_id=custom_id
    )


class TypedModal(discord.ui.Modal):
    """One short text field, labelled with the unit; `submit` records and answers it."""

    def __init__(self, form: TypedForm, submit: Submit) -> None:
        super().__init__(title=form.title[:45], custom_id=MODAL_ID)
        self.submit = submit
        self.number: discord.ui.TextInput[TypedModal] = discord.ui.TextInput(
            label=form.label[:45], custom_id="number", placeholder=form.placeholder[:100],
            max_length=MAX_TYPED,
        )  # fmt: skip
        self.add_item(self.number)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await self.submit(interaction, self.number.value)
