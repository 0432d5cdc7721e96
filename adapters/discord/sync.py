"""Sync app commands only when they changed: Discord rate-limits command registration.

The hash of the exact payload `tree.sync()` would send is kept in the database
(`store.command_syncs`), keyed by application and scope (global or one guild), so a restart with
the same command set, or another replica on the same database, makes no registration call.
"""

from __future__ import annotations

import hashlib
import json
import logging

import discord
from discord import app_commands

from bot.storage.syncs import CommandSyncTable

log = logging.getLogger(__name__)


async def command_hash(tree: app_commands.CommandTree, guild: discord.abc.Snowflake | None) -> str:
    translator = tree.translator
    payload = [
        await command.get_translated_payload(tree, translator)
        if translator
        else command.to_dict(tree)
        for command in tree.get_commands(guild=guild)
    ]
    raw = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()
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
    digest = await command_hash(tree, guild)
    key = ("discord", str(application_id), "global" if guild_id is None else str(guild_id))
    if await syncs.last_digest(*key) == digest:
        log.info("Discord commands unchanged; not syncing")
        return False
    await tree.sync(guild=guild)
    await syncs.record(*key, digest)
    log.info("Discord commands synced %s", f"to guild {guild_id}" if guild else "globally")
    return True
