"""The settings `zeroquiz serve` runs with, and where each came from: one reading for both.

`serve` and `zeroquiz check` call the same function, so `check` reports exactly what `serve`
would use and refuses exactly what `serve` would refuse (a bad port, a bad metrics address, a bad
timeout).
A flag wins over the environment, which wins over the default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from adapters.health import metrics_address
from adapters.runtime import ConfigError
from adapters.timeouts import VARIABLES, Timeouts, timeouts_from_env
from bot.config import database_path

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 3000


class Setting(NamedTuple):
    """One line of `zeroquiz check`: the value as it may be printed, and its source."""

    name: str
    value: str
    source: str  # "--db", "ZEROQUIZ_DB" (the environment) or "default"


class ServeSettings(NamedTuple):
    db: Path | str
    host: str
    port: int
    metrics: tuple[str, int] | None
    shown: tuple[Setting, ...]
    timeouts: Timeouts


def _source(flag: str, given: object, env: Mapping[str, str], variable: str) -> str:
    if given is not None and given != [] and given is not False:
        return flag
    return variable if env.get(variable, "").strip() else "default"


def serve_settings(
    db: str | None,
    host: str | None,
    port: int | None,
    env: Mapping[str, str],
) -> ServeSettings:
    """What serve listens on and opens, and how long it waits on what it calls; ConfigError,
    naming the variable, for a bad port or timeout."""
    chosen_host = host or env.get("ZEROQUIZ_HTTP_HOST") or DEFAULT_HOST
    try:
        chosen_port = port if port is not None else int(env.get("ZEROQUIZ_HTTP_PORT", DEFAULT_PORT))
    except ValueError:
        raise ConfigError("ZEROQUIZ_HTTP_PORT must be a port number") from None
    try:
        metrics = metrics_address(env)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    try:
        timeouts = timeouts_from_env(env)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    where = database_path(db)  # --db, else $ZEROQUIZ_DB, else the per-user default
    shown = (
        Setting("database", _printable(where), _source("--db", db, env, "ZEROQUIZ_DB")),
        Setting("http host", chosen_host, _source("--host", host, env, "ZEROQUIZ_HTTP_HOST")),
        Setting("http port", str(chosen_port), _source("--port", port, env, "ZEROQUIZ_HTTP_PORT")),
        Setting(
            "metrics",
            "off" if metrics is None else f"http://{metrics[0]}:{metrics[1]}",
            _source("", None, env, "ZEROQUIZ_METRICS_PORT"),
        ),
        *(
            Setting(shown_as, f"{seconds:g} s", _source("", None, env, variable))
            for (variable, (shown_as, _)), seconds in zip(
                VARIABLES.items(),
                (timeouts.slack, timeouts.discord, timeouts.db.connect, timeouts.db.statement),
                strict=True,
            )
        ),
    )
    return ServeSettings(where, chosen_host, chosen_port, metrics, shown, timeouts)


def _printable(where: Path | str) -> str:
    from bot.storage.urls import display_url

    return display_url(where) if isinstance(where, str) else str(where)


def more_settings(
    log_level: str,
    questions: Sequence[str] | None,
    no_bundled: bool,
    env: Mapping[str, str],
) -> tuple[Setting, ...]:
    """The other settings serve reads, as `zeroquiz check` shows them (not secrets)."""
    from adapters.logs import log_format
    from adapters.questions import custom_paths
    from adapters.questions import no_bundled as serve_no_bundled
    from bot.config import replica_id

    try:
        form = log_format(env)
    except ValueError:
        form = env.get("ZEROQUIZ_LOG_FORMAT", "")
    paths = custom_paths(questions, env)
    return (
        Setting("log level", log_level, "--log-level" if log_level != "INFO" else "default"),
        Setting("log format", form, _source("", None, env, "ZEROQUIZ_LOG_FORMAT")),
        Setting(
            "team questions",
            ", ".join(paths) or "none",
            _source("--questions", questions, env, "ZEROQUIZ_QUESTIONS"),
        ),
        Setting(
            "bundled questions",
            "no" if serve_no_bundled(no_bundled, env) else "yes",
            _source("--no-bundled", no_bundled or None, env, "ZEROQUIZ_NO_BUNDLED"),
        ),
        Setting("replica id", replica_id(), _source("", None, env, "ZEROQUIZ_REPLICA_ID")),
    )
