"""Clicks on components, routed by custom_id from the client's `on_interaction`.

Our buttons carry everything a click needs in their custom_id (render.py writes it, and reads it
strictly here), so discord.py keeps no view for them (buttons.py): it parses the interaction and
dispatches its documented `interaction` event, and this picks the handler method by prefix. A
custom_id under our prefix that isn't a round and an option (other digits than ASCII, a number
too big) gets a private "no longer valid"; any other component (another app's, a message edited
by someone else) would get no answer at all ("This interaction failed"), so it is told privately
that the button isn't ZeroQuiz's.
"""

from __future__ import annotations

from typing import Any, Protocol

import discord

from adapters.discord.render import (
    CUSTOM_ID_PREFIX,
    DIRECT_PREFIX,
    REPORT_PREFIX,
    REVIEW_PREFIX,
    TYPED_PREFIX,
    answer_choice,
)

ANSWER_PREFIX = f"{CUSTOM_ID_PREFIX}:"
PREFIXES = (ANSWER_PREFIX, REVIEW_PREFIX, REPORT_PREFIX, TYPED_PREFIX, DIRECT_PREFIX)
BUTTON = 2  # the component type


class ClickHandler(Protocol):
    async def on_click(self, interaction: discord.Interaction, round_id: int, option: int) -> None:
        """Record the click, then answer it ephemerally (the answer is the verdict)."""
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

    async def on_typed(self, interaction: discord.Interaction, custom_id: str) -> None:
        """Type it beside a generated question: opens the modal to type the number in."""
        ...

    async def on_direct(self, interaction: discord.Interaction, custom_id: str) -> None:
        """A review's button in a direct message (a reminder's): its custom_id names the server."""
        ...

    async def on_foreign_click(self, interaction: discord.Interaction) -> None:
        """A component that isn't ZeroQuiz's: "that button isn't mine"."""
        ...


def ours(interaction: discord.Interaction) -> str | None:
    """The custom_id of a click on one of our buttons, or None for any other component."""
    data: Any = interaction.data or {}
    custom_id = data.get("custom_id")
    if data.get("component_type") != BUTTON or not isinstance(custom_id, str):
        return None
    return custom_id if custom_id.startswith(PREFIXES) else None


async def route(handler: ClickHandler, interaction: discord.Interaction) -> None:
    """Answer one component interaction (its type is component)."""
    custom_id = ours(interaction)
    if custom_id is None:
        await handler.on_foreign_click(interaction)
    elif custom_id.startswith(DIRECT_PREFIX):
        await handler.on_direct(interaction, custom_id)
    elif custom_id.startswith(TYPED_PREFIX):
        await handler.on_typed(interaction, custom_id)
    elif custom_id.startswith(REPORT_PREFIX):
        await handler.on_report(interaction, custom_id)
    elif custom_id.startswith(REVIEW_PREFIX):
        await handler.on_review(interaction, custom_id.removeprefix(REVIEW_PREFIX))
    else:
        choice = answer_choice(custom_id)
        if choice is None:
            await handler.on_invalid_click(interaction)
        else:
            await handler.on_click(interaction, *choice)
