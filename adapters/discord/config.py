"""Discord settings from the environment.

Errors name the variable, never its value: the token must not end up in a log or a terminal.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

import aiohttp
import yarl

from adapters.discord import redirect
from adapters.discord.shards import ShardPlan, plan_from_env
from adapters.runtime import ConfigError


@dataclass(frozen=True)
class DiscordConfig:
    token: str = field(repr=False)
    guild_id: int | None = None
    application_id: int | None = None
    connect_to: tuple[str, int] | None = None  # DISCORD_CONNECT_TO (adapters/discord/redirect.py)
    ca_file: str | None = None
    shards: ShardPlan = field(default_factory=ShardPlan)

    def connector(self) -> aiohttp.TCPConnector:
        """discord.py's connections, which the start-up's GET /gateway/bot shares."""
        return redirect.connector(self.connect_to, self.ca_file)


def _snowflake(env: Mapping[str, str], name: str) -> int | None:
    value = env.get(name, "").strip()
    if not value:
        return None
    if not value.isdigit():
        raise ConfigError(f"{name} must be a numeric Discord ID")
    return int(value)


def _address(env: Mapping[str, str], name: str) -> tuple[str, int] | None:
    value = env.get(name, "").strip()
    if not value:
        return None
    try:
        url = yarl.URL(f"//{value}")
        host, port = url.host, url.explicit_port
    except ValueError:
        host = port = None
    if not host or port is None or not 0 < port < 65536 or url.path not in ("", "/"):
        raise ConfigError(f"{name} must be a host and a port, such as 127.0.0.1:8443")
    return host, port


def _file(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    if value and not os.access(value, os.R_OK):
        raise ConfigError(f"{name} names no file ZeroQuiz can read")
    return value or None


def config_from_env(env: Mapping[str, str]) -> DiscordConfig | None:
    """None when DISCORD_TOKEN is unset (the adapter is simply not configured)."""
    token = env.get("DISCORD_TOKEN", "").strip()
    if not token:
        return None
    return DiscordConfig(
        token=token,
        guild_id=_snowflake(env, "DISCORD_GUILD_ID"),
        application_id=_snowflake(env, "DISCORD_APPLICATION_ID"),
        connect_to=_address(env, "DISCORD_CONNECT_TO"),
        ca_file=_file(env, "DISCORD_CA_FILE"),
        shards=plan_from_env(env),
    )
