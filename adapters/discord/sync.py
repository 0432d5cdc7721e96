"""Sync app commands only when they changed: Discord rate-limits command registration.

A digest of what `tree.sync()` registers is kept in the database (`store.command_syncs`), keyed
by application and scope (global or one guild), so a restart with the same command set, or
another replica on the same database, makes no registration call. The digest is taken from the
tree's documented attributes (each command's name, description, options and their choices), the
localisations' catalogue and discord.py's version, not from the payload discord.py builds (its
methods for that are undocumented, and translating every string into every locale took a few
milliseconds of each start).
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

import discord
from discord import app_commands

from adapters.discord.translator import LOCALES
from bot.i18n import CATALOGUES
from bot.storage.syncs import CommandSyncTable

log = logging.getLogger(__name__)

# Bumped when `described` reads more or less of a command: the next start registers again.
FORMAT = 1
Registered = app_commands.Command[Any, ..., Any] | app_commands.Group | app_commands.ContextMenu


def described(command: Registered) -> dict[str, Any]:
    """What Discord is told of one command, from the attributes discord.py documents."""
    common: dict[str, Any] = {
        "name": command.name,
        "guild_only": command.guild_only,
        "nsfw": command.nsfw,
        "permissions": None
        if command.default_permissions is None
        else command.default_permissions.value,
    }
    if isinstance(command, app_commands.ContextMenu):
        return common | {"type": command.type.value}
    common["description"] = command.description
    if isinstance(command, app_commands.Group):
        return common | {"commands": [described(c) for c in command.commands]}
    return common | {
        "options": [
            {
                "name": p.display_name,
                "description": p.description,
                "type": p.type.value,
                "required": p.required,
                "autocomplete": p.autocomplete,
                "choices": [[c.name, c.value] for c in p.choices],
                "channel_types": [c.value for c in p.channel_types],
                "min": p.min_value,
                "max": p.max_value,
            }
            for p in command.parameters
        ]
    }


def command_hash(tree: app_commands.CommandTree, guild: discord.abc.Snowflake | None) -> str:
    data = {
        "format": FORMAT,
        "discord.py": discord.__version__,
        "commands": [described(command) for command in tree.get_commands(guild=guild)],
        "localised": {lang: CATALOGUES[lang] for lang in sorted(set(LOCALES.values()))},
    }
    raw = json.dumps(data, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(raw).hexdigest()


async def sync_if_changed(
    tree: app_commands.CommandTree,
    application_id: int,
    guild_id: int | None,
    syncs: CommandSyncTable,
) -> bool:
    """Sync globally, or to one guild; True if a registration call was made. The hash is
    recorded only once Discord took the commands: a failed sync is tried again next start."""
    guild = discord.Object(id=guild_id) if guild_id is not None else None
    if guild is not None:
        tree.copy_global_to(guild=guild)
    digest = command_hash(tree, guild)
    key = ("discord", str(application_id), "global" if guild_id is None else str(guild_id))
    if await syncs.last_digest(*key) == digest:
        log.info("Discord commands unchanged; not syncing")
        return False
    await tree.sync(guild=guild)
    await syncs.record(*key, digest)
    log.info("Discord commands synced %s", f"to guild {guild_id}" if guild else "globally")
    return True
