"""The insights as one Discord embed (an admin's private reply). Pure.

Fits by construction: the chart (20 lines of about 45 characters) is the description, each list
one field of at most five 400-character lines clipped to a field's 1024, the note the footer;
well inside the 6000 characters an embed holds.
"""

from __future__ import annotations

import discord

from adapters.text import clip
from bot.views import InsightLine, InsightsView

COLOUR = discord.Colour.dark_teal()
FIELD_VALUE = 1024
FIELD_NAME = 256
DESCRIPTION = 4096
FOOTER = 2048
TITLE = 256


def insights_embed(view: InsightsView) -> discord.Embed:
    if view.empty_text is not None:
        description = view.empty_text
    else:
        chart = "\n".join(view.chart)
        description = f"**{view.topics_title}**\n```\n{chart}\n```\n{view.legend}"
    embed = discord.Embed(
        title=clip(view.title, TITLE), description=clip(description, DESCRIPTION), colour=COLOUR
    )
    for title, items, empty in (
        (view.missed_title, view.missed, view.missed_empty),
        (view.check_title, view.check, view.check_empty),
        *(((view.reported_title, view.reported, ""),) if view.reported else ()),
    ):
        embed.add_field(name=clip(title, FIELD_NAME), value=_listed(items, empty), inline=False)
    embed.set_footer(text=clip(view.check_note, FOOTER))
    return embed


def _listed(items: tuple[InsightLine, ...], empty: str) -> str:
    """Whole lines while they fit the field, each line clipped to a fifth of it."""
    budget = FIELD_VALUE // max(1, len(items)) - 3
    lines = [f"• {clip(item.text, budget)}" for item in items]
    return clip("\n".join(lines), FIELD_VALUE) if lines else clip(empty, FIELD_VALUE)
