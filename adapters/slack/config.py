"""Slack settings from the environment, checked at start-up.

Errors name the variable and what is wrong with it, never its value: the message ends up in
logs and terminals, and most of these values are secrets.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from adapters.runtime import ConfigError

if TYPE_CHECKING:
    from adapters.front import HttpLimits

DEFAULT_API_URL = "https://slack.com/api/"
_USER_ID = re.compile(r"[UW][A-Z0-9]+")
_SCOPED_ADMIN = re.compile(r"T[A-Z0-9]+:[UW][A-Z0-9]+")  # an admin in that workspace only


@dataclass(frozen=True)
class OAuthConfig:
    """Multi-workspace mode: each workspace's bot token comes from its OAuth installation."""

    client_id: str
    client_secret: str = field(repr=False)
    token_key: str = field(repr=False)  # a Fernet key sealing the stored bot tokens


@dataclass(frozen=True)
class SlackConfig:
    bot_token: str = field(repr=False)  # '' in multi-workspace mode
    app_token: str | None = field(default=None, repr=False)
    signing_secret: str | None = field(default=None, repr=False)
    api_url: str = DEFAULT_API_URL
    admins: frozenset[str] = frozenset()
    oauth: OAuthConfig | None = None

    @property
    def socket_mode(self) -> bool:
        """Socket Mode wins when both are set: it needs no public URL."""
        return self.app_token is not None


def load_config(env: Mapping[str, str]) -> SlackConfig | None:
    """The Slack settings, or None when no Slack variable is set at all."""
    bot = _get(env, "SLACK_BOT_TOKEN")
    app = _get(env, "SLACK_APP_TOKEN")
    secret = _get(env, "SLACK_SIGNING_SECRET")
    client_id = _get(env, "SLACK_CLIENT_ID")
    client_secret = _get(env, "SLACK_CLIENT_SECRET")
    if bot is None and app is None and secret is None:
        return None
    if bot is None and app is None and client_id and client_secret and secret:
        return _oauth_config(env, client_id, client_secret, secret)
    if bot is None:
        raise ConfigError("SLACK_BOT_TOKEN is not set (the bot token, starting with xoxb-)")
    _token(bot, "SLACK_BOT_TOKEN", "xoxb-")
    if app is not None:
        _token(app, "SLACK_APP_TOKEN", "xapp-")
    if secret is not None and not re.fullmatch(r"[0-9A-Za-z]{16,}", secret):
        raise ConfigError("SLACK_SIGNING_SECRET is malformed (expected the app's signing secret)")
    if client_id and client_secret:
        # Bolt reads these two itself and would switch to multi-workspace OAuth, ignoring the token.
        raise ConfigError(
            "unset SLACK_CLIENT_ID and SLACK_CLIENT_SECRET for a single-workspace app with "
            "SLACK_BOT_TOKEN, or unset SLACK_BOT_TOKEN and SLACK_APP_TOKEN for multi-workspace "
            "OAuth (HTTP mode)"
        )
    if app is None and secret is None:
        raise ConfigError(
            "set SLACK_APP_TOKEN (xapp-, Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode)"
        )
    return SlackConfig(
        bot_token=bot,
        app_token=app,
        signing_secret=secret,
        api_url=normalise_api_url(_get(env, "SLACK_API_URL") or DEFAULT_API_URL),
        admins=_admins(_get(env, "ZEROQUIZ_SLACK_ADMINS") or ""),
    )


def _oauth_config(
    env: Mapping[str, str], client_id: str, client_secret: str, secret: str
) -> SlackConfig:
    """HTTP mode for many workspaces: the OAuth client and the key sealing stored tokens."""
    from adapters.slack.installs import sealer  # cryptography is only loaded when needed

    if not re.fullmatch(r"[0-9A-Za-z]{16,}", secret):
        raise ConfigError("SLACK_SIGNING_SECRET is malformed (expected the app's signing secret)")
    if not re.fullmatch(r"[0-9]+\.[0-9]+", client_id):
        raise ConfigError("SLACK_CLIENT_ID is malformed (expected digits.digits)")
    key = _get(env, "ZEROQUIZ_TOKEN_KEY")
    if key is None:
        raise ConfigError(
            "ZEROQUIZ_TOKEN_KEY is not set (multi-workspace mode stores bot tokens sealed with it)"
        )
    sealer(key)
    return SlackConfig(
        bot_token="",
        signing_secret=secret,
        api_url=normalise_api_url(_get(env, "SLACK_API_URL") or DEFAULT_API_URL),
        admins=_admins(_get(env, "ZEROQUIZ_SLACK_ADMINS") or "", many_workspaces=True),
        oauth=OAuthConfig(client_id, client_secret, key),
    )


def cannot_listen(host: str, port: int, exc: OSError) -> str:
    """Why HTTP mode can't take requests on (host, port), naming the settings: the errno's words,
    since asyncio rewrites strerror with the address's repr."""
    reason = os.strerror(exc.errno).lower() if exc.errno else type(exc).__name__
    return f"cannot listen on {host}:{port} (ZEROQUIZ_HTTP_PORT, --port): {reason}"


def normalise_api_url(url: str) -> str:
    """slack_sdk joins method names onto the base URL, so it must end with exactly one '/'."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query:
        raise ConfigError("SLACK_API_URL must be an http(s) URL like https://slack.com/api/")
    return url.rstrip("/") + "/"


def _get(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value or None


def _token(value: str, name: str, prefix: str) -> None:
    if not value.startswith(prefix) or len(value) <= len(prefix) or re.search(r"\s", value):
        raise ConfigError(f"{name} is malformed (it must start with {prefix})")


def _admins(value: str, *, many_workspaces: bool = False) -> frozenset[str]:
    """User IDs (`U0123ABCD`: admin in the one workspace) or workspace-scoped entries
    (`T0123ABCD:U0123ABCD`: admin in that workspace only). With many workspaces only scoped
    entries are taken: a bare user ID would make someone admin in every workspace installed."""
    ids = [part.strip() for part in value.split(",") if part.strip()]
    if any(not (_USER_ID.fullmatch(i) or _SCOPED_ADMIN.fullmatch(i)) for i in ids):
        raise ConfigError(
            "ZEROQUIZ_SLACK_ADMINS must be comma-separated Slack user IDs (like U0123ABCD) or "
            "workspace:user pairs (like T0123ABCD:U0123ABCD)"
        )
    if many_workspaces and any(_USER_ID.fullmatch(i) for i in ids):
        raise ConfigError(
            "ZEROQUIZ_SLACK_ADMINS needs workspace:user pairs (like T0123ABCD:U0123ABCD) in "
            "multi-workspace mode, not bare user IDs"
        )
    return frozenset(ids)


def http_limits_of(config: SlackConfig, env: Mapping[str, str]) -> HttpLimits:
    """HTTP mode's timeouts and connection cap (Socket Mode listens on nothing); ConfigError
    names a bad variable. Read by serve and `check` alike."""
    from adapters.front import HttpLimits, http_limits

    if config.app_token is not None:
        return HttpLimits()
    try:
        return http_limits(env)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
