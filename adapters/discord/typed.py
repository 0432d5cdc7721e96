"""Type it on Discord: the button beside a generated question's letters opens a modal with one
text field (discord.ui.Modal, discord.py's public API); the submission is graded and recorded by
the core (bot/typed_answers.py) before the interaction is answered, so whatever Discord shows the
person is recorded. The button's custom_id carries the round, so a click after a restart needs
nothing kept in memory; an open modal lives in this process (discord.py's modal store), and one
submitted after a restart is not answered and records nothing."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import discord

from adapters.discord.render import CUSTOM_ID_MAX, TYPED_PREFIX
from bot.bank.numbers import MAX_TYPED
from bot.views import TypedForm

MODAL_ID = "zq_typed"
# What the modal hands on: the submission's interaction, the round and the text typed.
Submit = Callable[[discord.Interaction, int, str], Awaitable[None]]


def typed_custom_id(round_id: int) -> str:
    return f"{TYPED_PREFIX}{round_id}"[:CUSTOM_ID_MAX]


def typed_round(custom_id: str) -> int | None:
    """The round a Type it button names (ASCII digits, inside SQLite's int64), or None."""
    digits = custom_id.removeprefix(TYPED_PREFIX)
    ok = custom_id.startswith(TYPED_PREFIX) and digits.isascii() and digits.isdigit()
    return int(digits) if ok and len(digits) <= 18 else None


def typed_button(label: str, round_id: int) -> discord.ui.Button[Any]:
    return discord.ui.Button(
        label=label[:80], style=discord.ButtonStyle.primary, custom_id=typed_custom_id(round_id)
    )


class TypedModal(discord.ui.Modal):
    """One short text field, labelled with the unit; `submit` records and answers it."""

    def __init__(self, form: TypedForm, round_id: int, submit: Submit) -> None:
        super().__init__(title=form.title[:45], custom_id=MODAL_ID)
        self.round_id, self.submit = round_id, submit
        self.number: discord.ui.TextInput[TypedModal] = discord.ui.TextInput(
            label=form.label[:45], custom_id="number", placeholder=form.placeholder[:100],
            max_length=MAX_TYPED,
        )  # fmt: skip
        self.add_item(self.number)

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await self.submit(interaction, self.round_id, self.number.value)
