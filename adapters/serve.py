"""`zeroquiz serve`: every adapter configured in the environment, in one asyncio loop.

Stopping is part of the design: on SIGTERM or Ctrl-C the surfaces stop taking events and finish
what they acknowledged, then the scheduler, live counts and database close, and the process exits 0.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import signal
import sys
from collections.abc import Callable, Mapping

from aiohttp import web

from adapters.health import metrics_address, start_server
from adapters.runtime import ConfigError, Runtime, Surface
from adapters.sdnotify import notify
from bot.bank import BankError, load_bank
from bot.clock import SystemClock
from bot.config import database_path, is_default_location, replica_id
from bot.storage import StorageError

log = logging.getLogger("zeroquiz")


def configured_surfaces(
    env: Mapping[str, str], runtime: Runtime, host: str, port: int
) -> list[Surface]:
    """Build every surface whose variables are set; ConfigError names anything missing."""
    surfaces: list[Surface] = []
    problems: list[str] = []
    builders: list[Callable[[], Surface | None]] = []
    if any(name.startswith("SLACK_") for name in env):
        from adapters.slack.surface import surface_from_env as slack_from_env

        builders.append(lambda: slack_from_env(env, runtime, host=host, port=port))
    # discord.py costs ~8 MB of memory to import: only when a DISCORD_ variable asks for it.
    if any(name.startswith("DISCORD_") for name in env):
        from adapters.discord.surface import surface_from_env as discord_from_env

        builders.append(lambda: discord_from_env(env, runtime))
    for build in builders:
        try:
            surface = build()
        except ConfigError as exc:
            problems.append(str(exc))
            continue
        if surface is not None:
            surfaces.append(surface)
    if problems:
        raise ConfigError("; ".join(problems))
    if not surfaces:
        raise ConfigError(
            "no chat adapter is configured: set SLACK_BOT_TOKEN with SLACK_APP_TOKEN or "
            "SLACK_SIGNING_SECRET for Slack, and/or DISCORD_TOKEN for Discord "
            "(or try `zeroquiz play` in the terminal)"
        )
    return surfaces


async def serve(db: str | None, host: str | None, port: int | None) -> int:
    host = host or os.environ.get("ZEROQUIZ_HTTP_HOST", "127.0.0.1")
    try:
        port = port if port is not None else int(os.environ.get("ZEROQUIZ_HTTP_PORT", "3000"))
    except ValueError:
        print("zeroquiz: ZEROQUIZ_HTTP_PORT must be a port number", file=sys.stderr)
        return 2
    try:
        metrics_at = metrics_address(os.environ)
    except ValueError as exc:
        print(f"zeroquiz: {exc}", file=sys.stderr)
        return 2
    path = database_path(db)
    try:
        bank = load_bank()
        runtime = await Runtime.open(
            path,
            bank,
            SystemClock(),
            random.Random(),
            create_parent=is_default_location(path),
            replica=replica_id(),
        )
    except (BankError, StorageError) as exc:
        print(f"zeroquiz: {exc}", file=sys.stderr)
        return 2
    started: list[Surface] = []
    health_server: web.AppRunner | None = None
    try:
        try:
            surfaces = configured_surfaces(os.environ, runtime, host, port)
        except ConfigError as exc:
            print(f"zeroquiz: {exc}", file=sys.stderr)
            return 2
        runtime.health.surfaces = list(surfaces)
        if metrics_at is not None:
            try:
                health_server = await start_server(runtime.health, *metrics_at)
            except OSError as exc:
                print(
                    f"zeroquiz: cannot serve metrics on ZEROQUIZ_METRICS_PORT: {exc.strerror}",
                    file=sys.stderr,
                )
                return 2
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        for surface in surfaces:
            try:
                await surface.start()
            except ConfigError as exc:
                print(f"zeroquiz: {surface.name}: {exc}", file=sys.stderr)
                return 2
            started.append(surface)
            log.info("%s adapter running", surface.name)
        # Due work starts once every surface is connected, so overdue reveals and daily posts
        # found at start-up go out at once instead of failing on a half-open connection.
        runtime.start()
        notify("READY=1", os.environ)  # systemd's Type=notify: every surface is connected
        await stop.wait()
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
