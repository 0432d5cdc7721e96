"""What an interaction must hold before the handlers read it, checked on discord.py's public hooks.

discord.py parses an interaction in the gateway's reader task and hands on what it can't check
itself as it came: a custom_id, a name or a command option of another type than Discord sends
would fail later in discord.py's task or in ours, with a traceback and no answer. Discord doesn't
send such payloads, but a proxy, a compatible server or a Discord bug might, so the client's
`on_interaction` (clicks) and its command tree's `interaction_check` (commands) look first: one
warning line, never a traceback. A payload discord.py can't parse at all (an id that isn't a
number, a member without a user) raises in its reader task, which ends the connection: the
surface is lost, and `serve` exits 75 to be restarted (docs/operations.md); discord.py has no
public hook before that parse.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

log = logging.getLogger(__name__)

CHAT_INPUT = 1  # the application command type of slash commands
MAX_OPTION_DEPTH = 2  # a subcommand group, its subcommand, that one's options
# Option type -> the JSON types of its value (string 3, integer 4, boolean 5, number 10; users,
# channels, roles, mentionables and attachments come as snowflake strings); 1 and 2 are a
# subcommand and a subcommand group, which hold options instead.
SUBCOMMANDS = frozenset({1, 2})
VALUE_TYPES: dict[int, tuple[type, ...]] = {
    3: (str,),
    4: (int,),
    5: (bool,),
    10: (int, float),
    **{kind: (str,) for kind in (6, 7, 8, 9, 11)},
}
SNOWFLAKES = frozenset({6, 7, 8, 9, 11})
MISSING = object()


def refused(interaction: discord.Interaction) -> bool:
    """Whether the interaction is unreadable for the handlers (then one warning line says why)."""
    found = problem(interaction)
    if found is not None:
        log.warning("discord: dropped a malformed INTERACTION_CREATE (%s)", found)
    return found is not None


def problem(interaction: discord.Interaction) -> str | None:
    """What makes this interaction unreadable for the handlers, or None."""
    token: object = interaction.token
    if not isinstance(token, str) or not token:
        return "token is missing or not a string"  # every reply is addressed with it
    person: Any = interaction.user
    if not isinstance(person, discord.User | discord.Member):  # outside a server: `user`
        return "user is missing"
    names = [person.name, person.global_name, getattr(person, "nick", None)]
    if not all(name is None or isinstance(name, str) for name in names):
        return "a name is not a string"  # the display name the answer is stored under
    if interaction.type in (
        discord.InteractionType.application_command,
        discord.InteractionType.autocomplete,
    ):
        return _command_problem(interaction.data)
    return None


def _command_problem(data: object) -> str | None:
    """A command's name and options, shaped as Discord sends them: discord.py looks them up in
    its own task (a mismatch with what is registered reaches the tree's error handler) and hands
    the values on as they came."""
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return "command data is not an object with a name"
    kind = data.get("type", CHAT_INPUT)
    if type(kind) is not int or kind != CHAT_INPUT:  # context menus: ZeroQuiz has none
        return "command data is not a chat input command"
    if not snowflake(data.get("guild_id"), optional=True):
        return "command data has a guild_id that is not a snowflake"
    found = _resolved_problem(data.get("resolved", {}))
    if found is not None:
        return found
    return _options_problem(data, 0)


def _resolved_problem(resolved: object) -> str | None:
    """`forget`'s person option resolves users, and their server members, each shaped as
    discord.py builds a User or a Member from it; `pack add`'s file resolves an attachment
    (channels, roles: no option)."""
    if not isinstance(resolved, dict) or not set(resolved) <= {"users", "members", "attachments"}:
        return "command data resolves users, channels or roles"
    if "attachments" in resolved and not _attachments_ok(resolved["attachments"]):
        return "command data resolves an attachment without id, filename, size or url"
    users, members = resolved.get("users", {}), resolved.get("members", {})
    if not isinstance(users, dict) or not isinstance(members, dict):
        return "resolved users or members are not objects"
    for key, person in users.items():
        if not snowflake(key) or not isinstance(person, dict) or str(person.get("id")) != key:
            return "a resolved user is not an object with its own id"
        names = [person.get("username"), person.get("global_name")]
        if not isinstance(names[0], str) or not (names[1] is None or isinstance(names[1], str)):
            return "a resolved user's name is not a string"
    for key, member in members.items():
        if key not in users or not isinstance(member, dict):
            return "a resolved member is not an object of a resolved user"
        roles = member.get("roles", [])
        if not isinstance(roles, list) or not all(snowflake(r) for r in roles):
            return "a resolved member's roles are not snowflakes"
        if not all(member.get(k) is None or isinstance(member.get(k), str) for k in
                   ("nick", "joined_at", "avatar", "premium_since")):  # fmt: skip
            return "a resolved member's fields are not strings"
    return None


def _attachments_ok(attachments: object) -> bool:
    """`/zeroquiz pack action:add file:` resolves its file: what discord.py's Attachment and
    adapters/discord/packs.py read."""
    if not isinstance(attachments, dict):
        return False
    for found in attachments.values():
        if not isinstance(found, dict) or not snowflake(found.get("id")):
            return False
        if not isinstance(found.get("filename"), str) or type(found.get("size")) is not int:
            return False
        if not isinstance(found.get("url"), str) or not isinstance(found.get("proxy_url"), str):
            return False
    return True


def _options_problem(parent: dict[str, Any], depth: int) -> str | None:
    if "options" not in parent:
        return None
    options = parent["options"]
    if not isinstance(options, list) or depth > MAX_OPTION_DEPTH:
        return "options are not a list of subcommands and options"
    for option in options:
        if not isinstance(option, dict) or not isinstance(option.get("name"), str):
            return "an option is not an object with a name"
        kind = option.get("type")
        if type(kind) is not int:
            return "an option's type is not an integer"
        if kind in SUBCOMMANDS:
            found = _options_problem(option, depth + 1)
            if found is not None:
                return found
        elif kind in VALUE_TYPES:
            value = option.get("value", MISSING)
            if type(value) not in VALUE_TYPES[kind] or (
                kind in SNOWFLAKES and not snowflake(value)
            ):
                return "an option's value does not have its option's type"
    return None


def snowflake(value: object, optional: bool = False) -> bool:
    """A Discord id as JSON carries it: a string (or an int) of at most 20 ASCII digits."""
    if value is None:
        return optional
    text = str(value) if type(value) is int else value
    return isinstance(text, str) and text.isascii() and text.isdigit() and len(text) <= 20
