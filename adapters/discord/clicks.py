"""Clicks on our own buttons go straight from the gateway to the handler.

discord.py dispatches a `DynamicItem` click by rebuilding the whole View of the clicked message
(`View.from_message`: every component parsed into an Item), making the item with `from_custom_id`
and swapping it in, on every click: under cProfile that was the largest cost of a click beside
the reply itself and the answer's storage (docs/measured.md). Our answer and review buttons need
none of it: the custom_id carries everything (buttons.py reads it strictly). So
INTERACTION_CREATE's parser is wrapped: a button click under one of our prefixes becomes a
`discord.Interaction` as discord.py makes it, and the same handler methods the DynamicItems
called run in a task of their own (kept until done, as discord.py's view store keeps its tasks);
the `interaction` event is still dispatched, and everything else goes to discord.py's parser as
before. inbound.guard wraps this, so a payload reaches it checked.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import MutableMapping
from typing import Any

import discord

from adapters.discord.buttons import ClickHandler
from adapters.discord.inbound import BUTTON, COMPONENT, EVENT, Parser
from adapters.discord.render import CUSTOM_ID_PREFIX, REVIEW_PREFIX, answer_choice, review_token

ANSWER_PREFIX = f"{CUSTOM_ID_PREFIX}:"  # AnswerButton's template: zq:a: then anything
log = logging.getLogger(__name__)


def ours(payload: Any) -> str | None:
    """The custom_id of a click on one of our buttons, or None for any other interaction."""
    if payload.get("type") != COMPONENT:
        return None
    data = payload.get("data") or {}
    custom_id = data.get("custom_id")
    if data.get("component_type") != BUTTON or not isinstance(custom_id, str):
        return None
    return custom_id if custom_id.startswith((ANSWER_PREFIX, REVIEW_PREFIX)) else None


async def click(handler: ClickHandler, interaction: discord.Interaction, custom_id: str) -> None:
    """What AnswerButton.callback and ReviewButton.callback do with the same custom_id."""
    try:
        if custom_id.startswith(REVIEW_PREFIX):
            token = review_token(custom_id)
            if token is None:
                await handler.on_invalid_click(interaction)
            else:
                await handler.on_review(interaction, token)
            return
        choice = answer_choice(custom_id)
        if choice is None:
            await handler.on_invalid_click(interaction)
        else:
            await handler.on_click(interaction, *choice)
    except Exception:  # the handlers apologise themselves; this is only the last resort
        log.exception("discord: a click on %s failed", custom_id[:40])


def route(
    parsers: MutableMapping[str, Parser],
    state: Any,  # discord.py's ConnectionState
    handler: ClickHandler,
) -> set[asyncio.Task[None]]:
    """Wrap the INTERACTION_CREATE parser in place; returns the set holding running clicks."""
    parse = parsers[EVENT]
    running: set[asyncio.Task[None]] = set()

    def routed(payload: Any) -> None:
        custom_id = ours(payload)
        if custom_id is None:
            parse(payload)
            return
        interaction: discord.Interaction = discord.Interaction(data=payload, state=state)
        task = asyncio.create_task(click(handler, interaction, custom_id))
        running.add(task)
        task.add_done_callback(running.discard)
        state.dispatch("interaction", interaction)

    parsers[EVENT] = routed
    return running
