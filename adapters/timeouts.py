"""How long ZeroQuiz waits on what it calls: Slack, Discord and a PostgreSQL server (issue 34).

Every outbound call ends at its timeout instead of aiohttp's default 300 s (or never): the call
is then logged in one WARNING line and counted in `/metrics` as
`zeroquiz_timeouts_total{service, call}`, and its work is tried again later where the core does
that (a post, a reveal), or the person is told the platform is not answering.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from bot.storage import DbTimeouts

LOWEST, HIGHEST = 0.1, 3600.0
# Variable -> (the name `zeroquiz check` shows, its default).
VARIABLES = {
    "ZEROQUIZ_SLACK_TIMEOUT": ("slack timeout", 15.0),
    "ZEROQUIZ_DISCORD_TIMEOUT": ("discord timeout", 15.0),
    "ZEROQUIZ_DB_CONNECT_TIMEOUT": ("database connect timeout", DbTimeouts().connect),
    "ZEROQUIZ_DB_STATEMENT_TIMEOUT": ("database statement timeout", DbTimeouts().statement),
}


@dataclass(frozen=True)
class Timeouts:
    """Seconds: one Slack Web API call or response_url post; one Discord request; the
    database's (PostgreSQL only: SQLite is a local file with its own busy timeout)."""

    slack: float = VARIABLES["ZEROQUIZ_SLACK_TIMEOUT"][1]
    discord: float = VARIABLES["ZEROQUIZ_DISCORD_TIMEOUT"][1]
    db: DbTimeouts = field(default_factory=DbTimeouts)


def seconds(env: Mapping[str, str], name: str) -> float | None:
    """A timeout variable's seconds, None when unset; ValueError names it when it isn't a number
    from LOWEST to HIGHEST (the HTTP front's timeouts read the same way)."""
    raw = env.get(name, "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not LOWEST <= value <= HIGHEST:
        raise ValueError(f"{name} must be a number of seconds from {LOWEST:g} to {HIGHEST:g}")
    return value


def timeouts_from_env(env: Mapping[str, str]) -> Timeouts:
    """The timeouts the environment sets, the defaults for the rest; ValueError names a bad one."""
    values = {name: default for name, (_, default) in VARIABLES.items()}
    for name in VARIABLES:
        value = seconds(env, name)
        if value is not None:
            values[name] = value
    return Timeouts(
        slack=values["ZEROQUIZ_SLACK_TIMEOUT"],
        discord=values["ZEROQUIZ_DISCORD_TIMEOUT"],
        db=DbTimeouts(
            connect=values["ZEROQUIZ_DB_CONNECT_TIMEOUT"],
            statement=values["ZEROQUIZ_DB_STATEMENT_TIMEOUT"],
        ),
    )
