"""Sync app commands only when they changed: Discord rate-limits command registration.

The hash of the exact payload `tree.sync()` would send is kept in a small JSON file next to the
database, keyed by application and scope (global or one guild), so a restart with the same
command set makes no registration call at all.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

import discord
from discord import app_commands

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


class SyncState:
    def __init__(self, path: Path) -> None:
        self.path = path

    def _load(self) -> dict[str, str]:
        try:
            data = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def get(self, key: str) -> str | None:
        return self._load().get(key)

    def put(self, key: str, value: str) -> None:
        data = self._load()
        data[key] = value
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(data, indent=2, sort_keys=True))
        tmp.replace(self.path)


def state_path_for(db_path: str) -> Path | None:
    """`quiz.sqlite3` -> `quiz.sqlite3.discord-commands.json`; None for in-memory databases and
    for a database server (then the commands are synced again at each start)."""
    if not db_path or db_path == ":memory:" or "://" in db_path:
        return None
    return Path(db_path).with_name(Path(db_path).name + ".discord-commands.json")


async def sync_if_changed(
    tree: app_commands.CommandTree,
    application_id: int,
    guild_id: int | None,
    state: SyncState | None,
) -> bool:
    """Sync globally, or to one guild; True if a registration call was made."""
    guild = discord.Object(id=guild_id) if guild_id is not None else None
    if guild is not None:
        tree.copy_global_to(guild=guild)
    digest = await command_hash(tree, guild)
    key = f"{application_id}:{guild_id if guild_id is not None else 'global'}"
    if state is not None and state.get(key) == digest:
        log.info("Discord commands unchanged; not syncing")
        return False
    await tree.sync(guild=guild)
    if state is not None:
        state.put(key, digest)
    log.info("Discord commands synced %s", f"to guild {guild_id}" if guild else "globally")
    return True
