"""A click's verdict: one ephemeral message, sent without reading back the message it created.

`InteractionResponse.send_message` asks Discord for the created message (`with_response=1`) and
builds a discord.py `InteractionCallbackResponse` and `InteractionMessage` from it, a Message
parse per click that nothing here reads. This sends the same body to the same endpoint through
the same discord.py webhook adapter (its rate-limit and 5xx retries, its errors) without asking
for the created message, so Discord answers 204 with no body to send, receive or decode, and
marks the interaction answered as `send_message` does, so `is_done()` and a second answer's
refusal behave as before.
"""

from __future__ import annotations

from typing import Any

import discord
from discord.enums import InteractionResponseType
from discord.http import Route
from discord.webhook.async_ import async_context, interaction_message_response_params

CHANNEL_MESSAGE = InteractionResponseType.channel_message
NO_MENTIONS = discord.AllowedMentions.none()


def _ephemeral() -> discord.MessageFlags:
    flags = discord.MessageFlags._from_value(0)
    flags.ephemeral = True
    return flags


EPHEMERAL = _ephemeral()


async def send_ephemeral(
    interaction: discord.Interaction,
    embed: discord.Embed,
    view: discord.ui.View | None = None,
) -> None:
    """`interaction.response.send_message(embed=embed, view=view, ephemeral=True,
    allowed_mentions=NO_MENTIONS)`, less the reading back."""
    response: Any = interaction.response
    if response.is_done():
        raise discord.InteractionResponded(interaction)
    state: Any = interaction._state
    params = interaction_message_response_params(
        type=CHANNEL_MESSAGE.value,
        embed=embed,
        view=view,
        flags=EPHEMERAL,
        allowed_mentions=NO_MENTIONS,
        previous_allowed_mentions=state.allowed_mentions,
    )
    http = state.http
    route = Route(
        "POST",
        "/interactions/{webhook_id}/{webhook_token}/callback",
        webhook_id=interaction.id,
        webhook_token=interaction.token,
    )  # AsyncWebhookAdapter.create_interaction_response's route, without `with_response`
    await async_context.get().request(
        route,
        session=interaction._session,
        proxy=http.proxy,
        proxy_auth=http.proxy_auth,
        payload=params.payload,
    )
    response._response_type = CHANNEL_MESSAGE
