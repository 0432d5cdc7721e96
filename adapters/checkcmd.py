"""`zeroquiz check` (alias `config`): what `zeroquiz serve` would run with, before running it.

The first thing to run on a new machine or image. Every setting is read by serve's own code
(adapters/settings.py, serve_bank, surface_configs, the logging setup) and the database is looked
at as start-up looks (bot/storage/inspect.py, which writes nothing), so `check` refuses exactly
what `serve` would refuse, with the same line and exit code (78: a setting is wrong; 75: a
database server did not answer). Secrets are shown only as set or not set. What only connecting
can tell (a token the platform rejects, a database lock another process holds) is left to serve.
"""

from __future__ import annotations

import argparse
import errno
import os
import socket
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from adapters.exitcodes import EX_CONFIG, storage_exit
from adapters.runtime import ConfigError
from adapters.settings import Setting, more_settings, serve_settings
from bot import __version__
from bot.bank import BankError, bundled_paths
from bot.config import database_path, is_default_location
from bot.limits import LimitsError, limits_from_env
from bot.storage import StorageError

SECRETS = (
    "SLACK_BOT_TOKEN",
    "SLACK_APP_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_CLIENT_SECRET",
    "ZEROQUIZ_TOKEN_KEY",
    "DISCORD_TOKEN",
)
PLAIN = (
    "SLACK_API_URL",
    "SLACK_CLIENT_ID",
    "SLACK_REDIRECT_URI",
    "ZEROQUIZ_SLACK_ADMINS",
    "DISCORD_APPLICATION_ID",
    "DISCORD_GUILD_ID",
    "DISCORD_CONNECT_TO",
    "DISCORD_CA_FILE",
    "DISCORD_SHARD_COUNT",
    "DISCORD_SHARD_IDS",
)


@dataclass
class Report:
    lines: list[str] = field(default_factory=list)
    problems: list[tuple[int, list[str]]] = field(default_factory=list)  # in serve's order

    def refuse(self, code: int, *lines: str) -> None:
        self.problems.append((code, list(lines)))


def _table(settings: tuple[Setting, ...]) -> list[str]:
    width = max(len(s.name) for s in settings)
    return [f"  {s.name.ljust(width)}  {s.value}  ({s.source})" for s in settings]


def _secrets(env: Mapping[str, str]) -> list[str]:
    width = max(map(len, (*SECRETS, *PLAIN)))
    out = [
        f"  {name.ljust(width)}  {'set' if env.get(name, '').strip() else 'not set'}"
        for name in SECRETS
    ]
    out += [f"  {name.ljust(width)}  {env[name].strip()}" for name in PLAIN if env.get(name)]
    return out


def _surface(name: str, config: Any, host: str, port: int) -> str:
    if name == "slack":
        http = f"HTTP mode on http://{host}:{port}/slack/events"
        if config.oauth is not None:
            mode = f"many workspaces (OAuth), {http}"
        else:
            mode = "Socket Mode" if config.socket_mode else http
        admins = f", {len(config.admins)} extra admin(s)" if config.admins else ""
        return f"  slack: {mode}{admins}"
    from adapters.discord.shards import span

    plan = config.shards
    if plan.count is None:
        shards = "as many shards as Discord recommends"
    else:
        ids = plan.ids if plan.ids is not None else tuple(range(plan.count))
        shards = f"shards {span(ids)} of {plan.count}"
    where = f"commands in server {config.guild_id}" if config.guild_id else "global commands"
    return f"  discord: {where}, {shards}"


def _bind_problem(host: str, port: int) -> OSError | None:
    """Whether `serve` could listen on (host, port): bound and let go at once, with
    SO_REUSEADDR as asyncio's servers do."""
    if not port:
        return None  # a free port is taken at start
    try:
        socket.create_server((host, port)).close()
    except OSError as exc:
        return exc
    return None


def _listen(report: Report, host: str, port: int, refusal: Callable[[OSError], str]) -> str:
    """`` if (host, port) can be listened on; else serve's refusal, and a note for the report.
    A port in use is refused as serve would refuse it: run `check` before `serve` (beside a
    running bot its own ports are in use, and the note says so)."""
    exc = _bind_problem(host, port)
    if exc is None:
        return ""
    reason = os.strerror(exc.errno) if exc.errno else type(exc).__name__
    report.refuse(EX_CONFIG, refusal(exc))
    if exc.errno == errno.EADDRINUSE:
        return " (refused: in use now, by a running bot or another program)"
    return f" (refused: {reason.lower()})"


async def cmd_check(args: argparse.Namespace, env: Mapping[str, str] = os.environ) -> int:
    from adapters.logs import log_format
    from adapters.questions import custom_paths, no_bundled, serve_bank
    from adapters.serve import bank_summary, metrics_refusal, surface_configs
    from bot.storage.inspect import inspect_database

    report = Report([f"zeroquiz {__version__}"])
    try:
        log_format(env)
    except ValueError as exc:
        report.refuse(EX_CONFIG, f"zeroquiz: {exc}")
    host, port = "?", 0
    settings_ok = False
    try:
        settings = serve_settings(args.db, args.host, args.port, env)
        host, port = settings.host, settings.port
        shown = settings.shown
        settings_ok = True
    except ConfigError as exc:
        report.refuse(EX_CONFIG, f"zeroquiz: {exc}")
        shown = ()
    try:
        limits_from_env(env)  # what people and teams may do: serve reads it next
    except LimitsError as exc:
        report.refuse(EX_CONFIG, f"zeroquiz: {exc}")
    shown += more_settings(args.log_level, args.questions, args.no_bundled, env)
    report.lines += ["settings:", *_table(shown), "secrets and platform settings:", *_secrets(env)]

    try:
        bank = serve_bank(args.questions, args.no_bundled, env)
        report.lines.append(f"bank: {bank_summary(bank)}")
        if not no_bundled(args.no_bundled, env):
            bundled = bundled_paths()
            report.lines.append(f"  bundled: {len(bundled)} file(s) in {bundled[0].parent}")
        report.lines += [f"  team: {p}" for p in custom_paths(args.questions, env)]
    except BankError as exc:
        report.lines.append("bank: refused")
        report.refuse(
            EX_CONFIG,
            *map(str, exc.problems),
            f"zeroquiz: {len(exc.problems)} problem(s) in the question files",
        )
    except ConfigError as exc:
        report.lines.append("bank: refused")
        report.refuse(EX_CONFIG, f"zeroquiz: {exc}")

    path = database_path(args.db)
    try:
        found = await inspect_database(path, create_parent=is_default_location(path))
        report.lines.append(f"database: {found.describe()}")
    except StorageError as exc:
        report.lines.append("database: refused")
        report.refuse(storage_exit(exc), f"zeroquiz: {exc}")

    try:  # in serve's order: the surfaces' settings, then the metrics server, then Slack's
        configs = surface_configs(env)
    except ConfigError as exc:
        report.lines.append("surfaces: refused")
        report.refuse(EX_CONFIG, f"zeroquiz: {exc}")
        configs = []
    if settings_ok and settings.metrics is not None:
        at = settings.metrics
        note = _listen(report, *at, lambda exc: f"zeroquiz: {metrics_refusal(exc)}")
        report.lines.append(f"health and metrics: http://{at[0]}:{at[1]}{note}")
    if configs:
        report.lines.append("surfaces:")
    for name, config in configs:
        note = ""
        if name == "slack" and settings_ok and not config.socket_mode:
            from adapters.slack.config import cannot_listen

            note = _listen(
                report, host, port, lambda exc: f"zeroquiz: slack: {cannot_listen(host, port, exc)}"
            )
        report.lines.append(_surface(name, config, host, port) + note)

    print("\n".join(report.lines))
    if report.problems:
        print(f"serve would refuse to start: {len(report.problems)} problem(s), on stderr")
        for _, lines in report.problems:
            for line in lines:
                print(line, file=sys.stderr)
        return report.problems[0][0]
    print("OK: serve would start (the platforms check the tokens when it connects)")
    return 0
