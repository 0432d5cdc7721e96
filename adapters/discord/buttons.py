"""Answer buttons that survive restarts: the custom_id carries the round and the option.

discord.py matches incoming custom_ids against the template of every registered DynamicItem, so
no view has to be kept in memory: a click on a week-old message finds its round in the database.
"""

from __future__ import annotations

import re
from typing import Any, Protocol, cast

import discord

from adapters.discord.render import TEMPLATE, answer_custom_id, question_button_specs
from bot.views import QuestionView


class ClickHandler(Protocol):
    async def on_click(self, interaction: discord.Interaction, round_id: int, option: int) -> None:
        """Record the click and answer it ephemerally."""
        ...


class HasClickHandler(Protocol):
    handler: ClickHandler


class AnswerButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=TEMPLATE):
    def __init__(self, round_id: int, option: int, label: str) -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                custom_id=answer_custom_id(round_id, option),
            )
        )
        self.round_id = round_id
        self.option = option

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> AnswerButton:
        label = getattr(item, "label", None) or "?"
        return cls(int(match["round"]), int(match["opt"]), label)

    async def callback(self, interaction: discord.Interaction) -> None:
        client = cast(HasClickHandler, interaction.client)
        await client.handler.on_click(interaction, self.round_id, self.option)


def answer_buttons(view: QuestionView) -> discord.ui.View:
    """One row of letter buttons. timeout=None: the round, not the process, decides when to stop."""
    buttons = discord.ui.View(timeout=None)
    for option, (label, _) in enumerate(question_button_specs(view)):
        buttons.add_item(AnswerButton(view.round_id, option, label))
    return buttons
