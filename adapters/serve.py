"""`zeroquiz serve`: every adapter configured in the environment, in one asyncio loop.

Stopping is part of the design: on SIGTERM or Ctrl-C the surfaces stop taking events and finish
what they acknowledged, then the scheduler, live counts and database close, and the process exits 0.
A surface lost for good after it started stops the others the same way and exits 75 (restart me);
wrong settings exit 78 (don't restart): see adapters/exitcodes.py.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import logging
import os
import random
import signal
import sys
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from adapters.exitcodes import EX_CONFIG, EX_TEMPFAIL, storage_exit
from adapters.health import start_server
from adapters.progress import for_log
from adapters.questions import serve_bank
from adapters.runtime import ConfigError, Runtime, Surface, SurfaceUnavailable
from adapters.sdnotify import notify
from adapters.settings import serve_settings
from bot import __version__
from bot.bank import Bank, BankError
from bot.clock import SystemClock
from bot.config import cache_dir, is_default_location, replica_id
from bot.limits import LimitsError, limits_from_env
from bot.storage import StorageError

if TYPE_CHECKING:  # aiohttp's server only when metrics or Slack's HTTP mode ask for it
    from adapters.front import Listener

log = logging.getLogger("zeroquiz")
# How long a thread may hold the GIL while another waits for it (CPython's default: 5 ms). The
# database's writer thread gives the GIL up around each SQLite call (~12 per commit) and must win
# it back from the event loop's thread each time: while the loop is busy with clicks, every one
# of those waits could last the whole interval, so a commit took tens of ms (docs/measured.md).
SWITCH_INTERVAL = 0.0005
METRICS_AFTER = 1.0  # seconds after ready: the metrics registry is made then, or at a scrape


def surface_configs(env: Mapping[str, str]) -> list[tuple[str, Any]]:
    """Each configured surface's name and settings, read and checked (`zeroquiz check` reads
    them here too); ConfigError names everything missing or malformed."""
    configs: list[tuple[str, Any]] = []
    problems: list[str] = []
    readers: list[tuple[str, Callable[[], Any]]] = []
    if any(name.startswith("SLACK_") for name in env):
        from adapters.slack.config import http_limits_of, load_config

        def read_slack() -> Any:
            config = load_config(env)
            if config is not None:
                http_limits_of(config, env)  # read here too, so `check` refuses a bad one
            return config

        readers.append(("slack", read_slack))
    # discord.py costs ~8 MB of memory to import: only when a DISCORD_ variable asks for it.
    if any(name.startswith("DISCORD_") for name in env):
        from adapters.discord.config import config_from_env

        readers.append(("discord", lambda: config_from_env(env)))
    for name, read in readers:
        try:
            config = read()
        except ConfigError as exc:
            problems.append(str(exc))
            continue
        if config is not None:
            configs.append((name, config))
    if problems:
        raise ConfigError("; ".join(problems))
    if not configs:
        raise ConfigError(
            "no chat adapter is configured: set SLACK_BOT_TOKEN with SLACK_APP_TOKEN or "
            "SLACK_SIGNING_SECRET for Slack, and/or DISCORD_TOKEN for Discord "
            "(or try `zeroquiz play` in the terminal)"
        )
    return configs


def configured_surfaces(
    env: Mapping[str, str], runtime: Runtime, host: str, port: int
) -> list[Surface]:
    """Build every surface whose variables are set; ConfigError names anything missing."""
    surfaces: list[Surface] = []
    for name, config in surface_configs(env):
        if name == "slack":
            from adapters.slack.config import http_limits_of
            from adapters.slack.surface import SlackSurface

            limits = http_limits_of(config, env)
            surfaces.append(SlackSurface(config, runtime, host=host, port=port, limits=limits))
        else:
            from adapters.discord.surface import DiscordSurface

            surfaces.append(DiscordSurface(config, runtime))
    return surfaces


def bank_summary(bank: Bank) -> str:
    """`114 questions and 10 templates from 10 file(s)`, counted as `zeroquiz validate` does."""
    origins = [*(q.origin for q in bank.questions), *(t.origin for t in bank.templates)]
    files = len({origin.rsplit(":", 1)[0] for origin in origins})
    templates = f" and {len(bank.templates)} templates" if bank.templates else ""
    return f"{len(bank)} questions{templates} from {files} file(s)"


class StartLog:
    """The version line, once: when every setting has been read (a refusal before then stays the
    one line it is), or earlier when a schema upgrade reports progress (which may take seconds
    and is worth seeing as it goes)."""

    def __init__(self) -> None:
        self._begun = False
        self._upgrade = for_log(log)

    def begin(self) -> None:
        if not self._begun:
            self._begun = True
            log.info("zeroquiz %s starting", __version__)

    def progress(self, what: str, done: int, total: int) -> None:
        self.begin()
        self._upgrade(what, done, total)


def metrics_refusal(exc: OSError) -> str:
    """Why the metrics server can't listen: the errno's words (asyncio puts the address's repr
    into strerror)."""
    reason = os.strerror(exc.errno) if exc.errno else type(exc).__name__
    return f"cannot serve metrics on ZEROQUIZ_METRICS_PORT: {reason}"


async def _after_ready(runtime: Runtime) -> None:
    """METRICS_AFTER seconds after ready: the metrics registry. Its import runs on a thread (the
    interpreter switches threads every SWITCH_INTERVAL), so clicks meanwhile wait a few ms at most,
    not the ~40 ms the import takes; the replay of the kept counts is quick and on the loop."""
    await asyncio.sleep(METRICS_AFTER)
    await asyncio.to_thread(importlib.import_module, "adapters.prom")
    runtime.metrics.load()


async def _first(*waits: Coroutine[Any, Any, Any]) -> None:
    """Return when the first of `waits` finishes; cancel the rest."""
    tasks = [asyncio.ensure_future(w) for w in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()


async def serve(
    db: str | None,
    host: str | None,
    port: int | None,
    *,
    questions: Sequence[str] | None = None,
    no_bundled: bool = False,
) -> int:
    try:
        settings = serve_settings(db, host, port, os.environ)
    except ConfigError as exc:
        print(f"zeroquiz: {exc}", file=sys.stderr)
        return EX_CONFIG
    try:
        limits = limits_from_env(os.environ)  # read once: a bad value stops the start here
    except LimitsError as exc:
        print(f"zeroquiz: {exc}", file=sys.stderr)
        return EX_CONFIG
    host, port, metrics_at, path = settings.host, settings.port, settings.metrics, settings.db
    started_log = StartLog()
    try:
        bank = serve_bank(questions, no_bundled, os.environ, cache=cache_dir())
        runtime = await Runtime.open(
            path,
            bank,
            SystemClock(),
            random.Random(),
            create_parent=is_default_location(path),
            replica=replica_id(),
            limits=limits,
            progress=started_log.progress,
            timeouts=settings.timeouts,
        )
    except BankError as exc:  # the team's questions: the lines `zeroquiz validate` prints
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        print(f"zeroquiz: {len(exc.problems)} problem(s) in the question files", file=sys.stderr)
        return EX_CONFIG
    except ConfigError as exc:
        print(f"zeroquiz: {exc}", file=sys.stderr)
        return EX_CONFIG
    except StorageError as exc:
        print(f"zeroquiz: {exc}", file=sys.stderr)
        return storage_exit(exc)
    started: list[Surface] = []
    health_server: Listener | None = None
    try:
        try:
            surfaces = configured_surfaces(os.environ, runtime, host, port)
        except ConfigError as exc:
            print(f"zeroquiz: {exc}", file=sys.stderr)
            return EX_CONFIG
        runtime.health.surfaces = list(surfaces)
        if metrics_at is not None:
            try:
                health_server = await start_server(runtime.health, *metrics_at)
            except OSError as exc:
                print(f"zeroquiz: {metrics_refusal(exc)}", file=sys.stderr)
                return EX_CONFIG
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        for surface in surfaces:
            try:
                await surface.start()
            except ConfigError as exc:
                print(f"zeroquiz: {surface.name}: {exc}", file=sys.stderr)
                return EX_TEMPFAIL if isinstance(exc, SurfaceUnavailable) else EX_CONFIG
            started.append(surface)
        # Every setting is read and every surface started (a wrong token key, a rejected token):
        # now the start-up lines, so a refusal above stays the one line it is.
        started_log.begin()
        log.info("bank: %s", bank_summary(bank))
        log.info("database: %s", runtime.store.path)  # a URL's password is never kept in it
        log.info("surfaces: %s", ", ".join(surface.name for surface in surfaces))
        for surface in started:
            log.info("%s adapter running", surface.name)
        # Due work starts once every surface is connected, so overdue reveals and daily posts
        # found at start-up go out at once instead of failing on a half-open connection.
        runtime.start()
        # What start-up built (modules, the bank, the clients) stays for the process's life:
        # the cyclic collector's full passes stop rescanning it. Under click load those passes
        # took ~45 ms of CPU each on the 2-core machine (a click waiting behind one is late by
        # that much, which decided p99) and ~8 ms after this (docs/measured.md).
        gc.freeze()
        sys.setswitchinterval(SWITCH_INTERVAL)
        notify("READY=1", os.environ)  # systemd's Type=notify: every surface is connected
        # The metrics registry (prometheus_client's import) once the first events are likely
        # answered; counts made before it are kept and replayed (adapters/metrics.py).
        later = loop.create_task(_after_ready(runtime))
        await _first(stop.wait(), runtime.lost.wait())
        later.cancel()
        if runtime.lost.is_set() and not stop.is_set():
            print(f"zeroquiz: {runtime.lost_reason}; stopping, restart me", file=sys.stderr)
            log.info("stopping: a surface was lost")
            return EX_TEMPFAIL
        log.info("stopping")
        return 0
    finally:
        if started:
            notify("STOPPING=1", os.environ)
        for surface in reversed(started):
            try:
                await surface.stop()
            except Exception:
                log.exception("error while stopping %s", surface.name)
        if health_server is not None:
            await health_server.cleanup()
        await runtime.close()
