"""Discord settings from the environment, and the switch that points discord.py at another server.

Errors name the variable, never its value: the token must not end up in a log or a terminal.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route

from adapters.discord.shards import ShardPlan, plan_from_env
from adapters.runtime import ConfigError

DEFAULT_API_URL = "https://discord.com/api/v10"
DEFAULT_GATEWAY_URL = "wss://gateway.discord.gg/"


@dataclass(frozen=True)
class DiscordConfig:
    token: str = field(repr=False)
    guild_id: int | None = None
    application_id: int | None = None
    api_url: str | None = None
    gateway_url: str | None = None
    shards: ShardPlan = field(default_factory=ShardPlan)


def _snowflake(env: Mapping[str, str], name: str) -> int | None:
    value = env.get(name, "").strip()
    if not value:
        return None
    if not value.isdigit():
        raise ConfigError(f"{name} must be a numeric Discord ID")
    return int(value)


def _url(env: Mapping[str, str], name: str, schemes: tuple[str, ...]) -> str | None:
    value = env.get(name, "").strip()
    if not value:
        return None
    url = yarl.URL(value)
    if url.scheme not in schemes or not url.host:
        raise ConfigError(f"{name} must be a {' or '.join(schemes)} URL")
    return value


def config_from_env(env: Mapping[str, str]) -> DiscordConfig | None:
    """None when DISCORD_TOKEN is unset (the adapter is simply not configured)."""
    token = env.get("DISCORD_TOKEN", "").strip()
    if not token:
        return None
    return DiscordConfig(
        token=token,
        guild_id=_snowflake(env, "DISCORD_GUILD_ID"),
        application_id=_snowflake(env, "DISCORD_APPLICATION_ID"),
        api_url=_url(env, "DISCORD_API_URL", ("http", "https")),
        gateway_url=_url(env, "DISCORD_GATEWAY_URL", ("ws", "wss")),
        shards=plan_from_env(env),
    )


def point_at(api_url: str | None, gateway_url: str | None) -> Callable[[], None]:
    """Send REST and gateway traffic elsewhere; returns a function that restores the defaults.

    discord.py reads both from class attributes, so this affects every client in the process.
    """
    old_base, old_gateway = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
    if api_url:
        Route.BASE = api_url.rstrip("/")
    if gateway_url:
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)

    def restore() -> None:
        Route.BASE = old_base
        DiscordWebSocket.DEFAULT_GATEWAY = old_gateway

    return restore
