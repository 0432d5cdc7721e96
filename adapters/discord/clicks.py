"""Clicks on our own buttons go straight from the gateway to the handler.

discord.py dispatches a `DynamicItem` click by rebuilding the whole View of the clicked message
(`View.from_message`: every component parsed into an Item), making the item with `from_custom_id`
and swapping it in, on every click: under cProfile that was the largest cost of a click beside
the reply itself and the answer's storage (docs/measured.md). Our answer and review buttons need
none of it: the custom_id carries everything (buttons.py reads it strictly). So
INTERACTION_CREATE's parser is wrapped: a button click under one of our prefixes becomes a
`discord.Interaction` and the same handler methods the DynamicItems called run in a task of their
own (kept until done, as discord.py's view store keeps its tasks); everything else goes to
discord.py's parser as before. inbound.guard wraps this, so a payload reaches it checked.

An answer click's Interaction is built without the clicked message: discord.py's Message (its
embeds, components, author) was most of the cost of reading a click, and an answer needs only
where that message is (for a closed round's stray copy), read here from the payload. The
`interaction` event for our clicks: the client's own on_interaction answers other apps' components
and leaves ours alone, and the task discord.py starts per dispatch cost a tenth of a click's
parsing, so `dispatch` (the client's) sends it only when something else listens: a `wait_for`,
an on_interaction put in its place.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, MutableMapping
from typing import Any

import discord

from adapters.discord.buttons import ClickHandler
from adapters.discord.inbound import BUTTON, COMPONENT, EVENT, Parser, snowflake
from adapters.discord.render import (
    CUSTOM_ID_PREFIX,
    DIRECT_PREFIX,
    REPORT_PREFIX,
    REVIEW_PREFIX,
    TYPED_PREFIX,
    answer_choice,
    review_token,
)

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
    prefixes = (ANSWER_PREFIX, REVIEW_PREFIX, REPORT_PREFIX, DIRECT_PREFIX, TYPED_PREFIX)
    return custom_id if custom_id.startswith(prefixes) else None


def clicked_message(payload: Any) -> str | None:
    """Where the clicked message is, "channel id:message id" (a stray copy's reference), or None
    if the payload doesn't say."""
    message = payload.get("message")
    if not isinstance(message, dict):
        return None
    channel = message.get("channel_id") or payload.get("channel_id")
    message_id = message.get("id")
    if not (snowflake(channel) and snowflake(message_id)):
        return None
    return f"{channel}:{message_id}"


def without_message(payload: dict[str, Any]) -> Any:
    """The payload as discord.py's Interaction reads it, less the message it would parse."""
    return {key: value for key, value in payload.items() if key != "message"}


async def click(
    handler: ClickHandler,
    interaction: discord.Interaction,
    custom_id: str,
    clicked: str | None = None,
) -> None:
    """What AnswerButton.callback and ReviewButton.callback do with the same custom_id."""
    try:
        if custom_id.startswith(DIRECT_PREFIX):  # a review in a direct message (a reminder's)
            await handler.on_direct(interaction, custom_id)
            return
        if custom_id.startswith(REPORT_PREFIX):
            await handler.on_report(interaction, custom_id)
            return
        if custom_id.startswith(TYPED_PREFIX):
            await handler.on_typed(interaction, custom_id)
            return
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
            await handler.on_click(interaction, *choice, clicked=clicked)
    except Exception:  # the handlers apologise themselves; this is only the last resort
        log.exception("discord: a click on %s failed", custom_id[:40])


def route(
    parsers: MutableMapping[str, Parser],
    state: Any,  # discord.py's ConnectionState
    handler: ClickHandler,
    dispatch: Callable[[discord.Interaction], None],
) -> set[asyncio.Task[None]]:
    """Wrap the INTERACTION_CREATE parser in place; returns the set holding running clicks."""
    parse = parsers[EVENT]
    running: set[asyncio.Task[None]] = set()

    def routed(payload: Any) -> None:
        custom_id = ours(payload)
        if custom_id is None:
            parse(payload)
            return
        if custom_id.startswith(ANSWER_PREFIX):
            interaction = discord.Interaction(data=without_message(payload), state=state)
            job = click(handler, interaction, custom_id, clicked_message(payload))
        else:  # a review step edits the clicked message: discord.py reads it
            interaction = discord.Interaction(data=payload, state=state)
            job = click(handler, interaction, custom_id)
        task = asyncio.create_task(job)
        running.add(task)
        task.add_done_callback(running.discard)
        dispatch(interaction)

    parsers[EVENT] = routed
    return running
