"""Which gateway shards this process runs (DISCORD_SHARD_COUNT, DISCORD_SHARD_IDS), and the pace
at which it may identify them.

Discord puts every guild on shard `(guild_id >> 22) % count` and sends the guild's events (clicks,
commands) only over connections identified with that shard. Splitting the shards between
processes splits the guilds; without the variables one process runs every shard Discord
recommends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import aiohttp

from adapters.runtime import ConfigError
from bot.clock import Clock

MAX_SHARDS = 65536  # far beyond any bot; keeps a typo like 0-9999999999 from filling memory
IDENTIFY_WINDOW = timedelta(seconds=5)  # Discord: max_concurrency IDENTIFYs per 5 s
GATEWAY_BOT = "https://discord.com/api/v10/gateway/bot"  # Discord's documented REST endpoint
GATEWAY_SECONDS = 10.0


@dataclass(frozen=True)
class ShardPlan:
    count: int | None = None  # None: as many as Discord recommends
    ids: tuple[int, ...] | None = None  # None: every shard of `count`

    @property
    def leased(self) -> tuple[int, tuple[int, ...]]:
        """(count, ids) as leased: every shard is kept as shard 0 of 1 (it overlaps them all)."""
        if self.count is None:
            return 1, (0,)
        return self.count, self.ids if self.ids is not None else tuple(range(self.count))


def span(ids: Sequence[int]) -> str:
    """Shard numbers as an admin would write them: 0-3,6."""
    parts: list[str] = []
    ordered = sorted(ids)
    start = prev = ordered[0]
    for n in [*ordered[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if n is not None:
            start = prev = n
    return ",".join(parts)


def describe(count: int, ids: Sequence[int]) -> str:
    """How a message names shards: all shards, shard 1 of 2, shards 0-1 of 4."""
    if len(set(ids)) == count:
        return "all shards"
    return f"shard{'s' if len(ids) > 1 else ''} {span(ids)} of {count}"


def _count(env: Mapping[str, str]) -> int | None:
    value = env.get("DISCORD_SHARD_COUNT", "").strip()
    if not value:
        return None
    if not value.isdigit() or not 1 <= int(value) <= MAX_SHARDS:
        raise ConfigError(f"DISCORD_SHARD_COUNT must be a whole number from 1 to {MAX_SHARDS}")
    return int(value)


def _ids(value: str, count: int) -> tuple[int, ...]:
    ids: list[int] = []
    for part in value.split(","):
        low, dash, high = part.strip().partition("-")
        bounds = (low.strip(), high.strip() if dash else low.strip())
        if not all(b.isdigit() for b in bounds):
            raise ConfigError(
                "DISCORD_SHARD_IDS must be shard numbers or ranges separated by commas, "
                "like 0,1 or 0-3"
            )
        first, last = int(bounds[0]), int(bounds[1])
        if first > last:
            raise ConfigError(f"DISCORD_SHARD_IDS: the range {first}-{last} runs backwards")
        if last >= count:
            raise ConfigError(
                f"DISCORD_SHARD_IDS: shard {last} does not exist: with DISCORD_SHARD_COUNT={count} "
                f"the shards are 0-{count - 1}"
            )
        for n in range(first, last + 1):
            if n in ids:
                raise ConfigError(f"DISCORD_SHARD_IDS lists shard {n} more than once")
            ids.append(n)
    return tuple(ids)


def plan_from_env(env: Mapping[str, str]) -> ShardPlan:
    """The shards this process runs; ConfigError, one line naming the variable, if malformed."""
    count = _count(env)
    value = env.get("DISCORD_SHARD_IDS", "").strip()
    if not value:
        return ShardPlan(count)
    if count is None:
        raise ConfigError(
            "DISCORD_SHARD_IDS needs DISCORD_SHARD_COUNT, the number of shards over all processes"
        )
    return ShardPlan(count, _ids(value, count))


class IdentifyPacer:
    """Discord accepts `max_concurrency` IDENTIFYs per 5 s, one per bucket `shard % that`; more
    are refused. discord.py's default waits 5 s before every shard but the first; this waits
    only where a bucket was used less than 5 s ago (on the injected clock)."""

    def __init__(self, clock: Clock, max_concurrency: int = 1) -> None:
        self.clock = clock
        self.max_concurrency = max(1, max_concurrency)
        self._last: dict[int, datetime] = {}
        self._locks: dict[int, asyncio.Lock] = {}

    async def wait(self, shard_id: int | None) -> None:
        bucket = (shard_id or 0) % self.max_concurrency
        async with self._locks.setdefault(bucket, asyncio.Lock()):
            last = self._last.get(bucket)
            if last is not None:
                await self.clock.sleep_until(last + IDENTIFY_WINDOW)
            self._last[bucket] = self.clock.now()


async def bot_gateway(connector: aiohttp.BaseConnector, token: str) -> tuple[int, int] | None:
    """(shards Discord recommends, IDENTIFYs it allows at once) from GET /gateway/bot, asked on
    discord.py's own connector (its address, TLS context and open connections: discord.py has no
    documented way to share what it read there). None when Discord does not say: discord.py then
    asks for the shard count itself, and this process identifies one shard at a time."""
    headers = {"Authorization": f"Bot {token}"}
    timeout = aiohttp.ClientTimeout(total=GATEWAY_SECONDS)
    try:
        async with (
            aiohttp.ClientSession(connector=connector, connector_owner=False) as session,
            session.get(GATEWAY_BOT, headers=headers, timeout=timeout) as response,
        ):
            if response.status != 200:
                return None
            data = await response.json()
        return int(data["shards"]), int(data["session_start_limit"]["max_concurrency"])
    except (aiohttp.ClientError, TimeoutError, KeyError, TypeError, ValueError):
        return None
