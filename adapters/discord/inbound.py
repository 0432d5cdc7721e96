"""The gateway's INTERACTION_CREATE, checked before discord.py reads it.

discord.py parses an interaction inside the gateway's reader task: a payload it can't read (a
component click without a custom_id, a custom_id that isn't a string, an id that isn't a
number) raises out of that task and ends the client's connection, and the bot falls silent;
others fail later in discord.py's own tasks, or in ours, with a traceback.
Discord doesn't send such payloads, but a proxy, a compatible server or a Discord bug might, so
the parser is wrapped: what discord.py and the handlers rely on is checked first, and a payload
discord.py still can't read is dropped. Either way one warning line, never a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, MutableMapping
from typing import Any

log = logging.getLogger(__name__)

EVENT = "INTERACTION_CREATE"
COMMAND, COMPONENT, AUTOCOMPLETE = 2, 3, 4  # interaction types
ROW, BUTTON = 1, 2  # component types
CHAT_INPUT = 1  # the application command type of slash commands
ROWS = 5  # rows per message, buttons per row
COMPONENTS_V2 = 1 << 15  # a message flag
PLAIN_STYLES = frozenset({1, 2, 3, 4})  # primary, secondary, success, danger: not link, premium
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

Parser = Callable[[Any], None]


def problem(payload: object) -> str | None:
    """What makes this INTERACTION_CREATE unreadable for the handlers, or None."""
    if not isinstance(payload, dict):
        return "not an object"
    token = payload.get("token")
    if not isinstance(token, str) or not token:
        return "token is missing or not a string"  # every reply is addressed with it
    found = _person_problem(payload)
    if found is not None:
        return found
    kind = payload.get("type")
    if kind in (COMMAND, AUTOCOMPLETE):
        return _command_problem(payload.get("data"))
    if kind == COMPONENT:
        return _click_problem(payload.get("data"), payload.get("message"))
    return None


def _person_problem(payload: dict[str, Any]) -> str | None:
    """Who clicked or typed: discord.py reads `member` in a server, `user` elsewhere."""
    try:
        in_guild = bool(payload.get("guild_id") and int(payload["guild_id"]))
    except (TypeError, ValueError):
        return "guild_id is not a snowflake"
    member = payload.get("member")
    if in_guild:
        person = member.get("user") if isinstance(member, dict) else None
    else:
        person = payload.get("user")
    if not isinstance(person, dict):
        return "member.user is missing" if in_guild else "user is missing"
    names = [person.get("username"), person.get("global_name")]
    names += [member.get("nick")] if in_guild and isinstance(member, dict) else []
    if not all(name is None or isinstance(name, str) for name in names):
        return "a name is not a string"  # the display name the answer is stored under
    return None


def _click_problem(data: object, message: object) -> str | None:
    if not isinstance(data, dict):
        return "component data is not an object"
    custom_id = data.get("custom_id")
    if not isinstance(custom_id, str) or not custom_id:
        return "custom_id is missing or not a string"
    if type(data.get("component_type")) is not int:
        return "component_type is not an integer"
    return _buttons_problem(message)


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


def _buttons_problem(message: object) -> str | None:
    """discord.py rebuilds the clicked message's components into a View to find the button;
    ZeroQuiz's messages hold rows of at most five plain buttons, and those are what it reads."""
    if not isinstance(message, dict):
        return None  # no message: discord.py looks no further; not an object: it can't parse it
    flags = message.get("flags", 0)
    if type(flags) is not int or flags & COMPONENTS_V2:
        return "message.flags is not an integer without components v2"  # they pick the View
    rows = message.get("components")  # discord.py leaves Message.components unset without it
    if not isinstance(rows, list) or len(rows) > ROWS:
        return f"message.components is not a list of at most {ROWS} rows"
    for row in rows:
        buttons = row.get("components") if isinstance(row, dict) else None
        if not isinstance(buttons, list) or len(buttons) > ROWS or row.get("type") != ROW:
            return f"a message row is not an action row of at most {ROWS} buttons"
        if not all(_plain_button(button) for button in buttons):
            return "a message component is not a plain button"
    return None


def _plain_button(button: object) -> bool:
    if not isinstance(button, dict) or button.get("type") != BUTTON:
        return False
    get = button.get  # several times per button, four buttons per click
    style, label = get("style"), get("label")
    return (
        type(style) is int
        and style in PLAIN_STYLES
        and isinstance(get("custom_id"), str)
        and (label is None or isinstance(label, str))
        and type(get("disabled", False)) is bool
        and get("url") is None
        and get("sku_id") is None
        and get("emoji") is None
    )


def guard(parsers: MutableMapping[str, Parser]) -> None:
    """Wrap discord.py's INTERACTION_CREATE parser (ConnectionState.parsers) in place: the
    gateway looks its parsers up in that same mapping for every event."""
    parse = parsers[EVENT]

    def guarded(payload: Any) -> None:
        found = problem(payload)
        if found is None:
            try:
                parse(payload)
                return
            except Exception as exc:  # discord.py's own reading of the payload failed
                found = f"discord.py could not read it: {type(exc).__name__}"
        log.warning("discord: dropped a malformed %s (%s)", EVENT, found)

    parsers[EVENT] = guarded
