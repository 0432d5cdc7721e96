"""`zeroquiz discord-invite`: the OAuth2 URL that adds the bot with exactly what it needs."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

import discord

SCOPES = ("bot", "applications.commands")


def needed_permissions() -> discord.Permissions:
    """See the channel, post questions and reveals as embeds, in channels and in threads and
    forum posts. Editing its own messages and answering interactions need no further
    permission; it never reads history."""
    return discord.Permissions(
        view_channel=True, send_messages=True, send_messages_in_threads=True, embed_links=True
    )


def invite_url(application_id: int) -> str:
    return discord.utils.oauth_url(application_id, permissions=needed_permissions(), scopes=SCOPES)


def cmd_invite(app_id: str | None, env: Mapping[str, str] = os.environ) -> int:
    """Print the invite URL; exit 2 naming what is missing or malformed."""
    value = (app_id or env.get("DISCORD_APPLICATION_ID", "")).strip()
    if not value:
        print(
            "zeroquiz: set DISCORD_APPLICATION_ID or pass --app-id "
            "(Developer Portal → your application → General Information → Application ID)",
            file=sys.stderr,
        )
        return 2
    if not value.isdigit():
        print("zeroquiz: the application ID must be a number", file=sys.stderr)
        return 2
    print(invite_url(int(value)))
    return 0
