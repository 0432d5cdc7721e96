"""Who is clicking: display names for leaderboards, and admin rights for admin commands.

Names come from users.info and are cached in memory (leaderboards show names, never mentions,
so nobody is pinged): at most NAME_CACHE, the least recently used dropped first, each used for
NAME_TTL_SECONDS by the runtime clock and then refreshed in the background while still shown, so
a person's commands and clicks cost no users.info after their first. A click never waits for
users.info: it is recorded with the name known now (or the handle), and the name is fetched
afterwards by a few background workers, so a burst of new people costs a bounded number of
concurrent lookups. Admin rights are looked up fresh for every admin action (once per command),
so a demoted admin loses them at once. Everything is keyed by (workspace, user): in an
Enterprise Grid one user id is a member of several workspaces, admin in some only.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.web import Rejected, TokenSource, error_code, with_token

log = logging.getLogger(__name__)

NAME_TTL_SECONDS = 3600.0
NAME_CACHE = 50_000  # names kept in memory; a forgotten one is looked up again
NAME_WORKERS = 2  # concurrent background users.info calls
NAME_BATCH = 20  # names stored per transaction
NAME_BACKLOG = 10_000  # people waiting for a lookup; beyond that, their next click asks again
QUIET = 8  # names are looked up while fewer clicks than this are being answered
# Background lookups: a burst of this many at once, then this many a second. Slack rate-limits
# users.info (the SDK then waits out Retry-After), and each lookup costs the CPU that clicks need.
NAME_BURST = 200
NAME_RATE = 20.0

Who = tuple[str, str]  # (workspace, user id)
NameSink = Callable[[list[tuple[str, str, str]]], Awaitable[None]]  # (team, user id, name)


class SlackUsers:
    def __init__(
        self,
        client: AsyncWebClient,
        admins: frozenset[str],
        *,
        tokens: TokenSource | None = None,
        rejected: Rejected | None = None,
        ttl: float = NAME_TTL_SECONDS,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.tokens = tokens  # multi-workspace: the bot token of the person's workspace
        self.rejected = rejected  # ... and the newer one when Slack rejects it (web.with_token)
        self.admins = admins
        self.ttl = ttl
        self._now = now
        self._names: OrderedDict[Who, tuple[str, float]] = OrderedDict()  # least recent first
        self._lookups: dict[Who, asyncio.Task[dict[str, Any] | None]] = {}
        self._wanted: set[Who] = set()
        self._queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._workers: list[asyncio.Task[None]] = []
        self._sink: NameSink | None = None
        self._quiet: Callable[[], Awaitable[None]] | None = None
        self._tokens = float(NAME_BURST)
        self._filled = time.monotonic()

    def store_names(self, sink: NameSink, quiet: Callable[[], Awaitable[None]]) -> None:
        """Where learnt names go, and how to wait until clicks leave room for lookups: a burst
        of answers is served first, the names of its new people follow."""
        self._sink = sink
        self._quiet = quiet

    def known_name(self, user_id: str, *, team: str = "") -> str | None:
        """The cached name, without waiting; an expired one is refreshed in the background."""
        who = (team, user_id)
        cached = self._names.get(who)
        if cached is None:
            return None
        self._names.move_to_end(who)  # recently used: the last to be dropped
        if self._now() - cached[1] >= self.ttl:
            self._lookup(user_id, team)
        return cached[0]

    def forget(self) -> None:
        """Drop every cached name (the app was removed from a workspace; refilling the cache
        costs only lookups)."""
        self._names.clear()

    def learn_name(self, team: str, user_id: str) -> None:
        """Fetch the person's name in the background and store it (see store_names)."""
        who = (team, user_id)
        if self._sink is None or who in self._wanted or len(self._wanted) >= NAME_BACKLOG:
            return
        self._wanted.add(who)
        self._queue.put_nowait((team, user_id))
        while len(self._workers) < NAME_WORKERS:
            self._workers.append(asyncio.create_task(self._work(), name="zeroquiz-slack-names"))

    async def _work(self) -> None:
        while True:
            batch = [await self._queue.get()]
            while len(batch) < NAME_BATCH and not self._queue.empty():
                batch.append(self._queue.get_nowait())
            found: list[tuple[str, str, str]] = []
            for team, user_id in batch:
                if self._quiet is not None:
                    await self._quiet()
                await self._paced()
                info = await self._info(user_id, team)
                self._wanted.discard((team, user_id))
                if info is not None:
                    found.append((team, user_id, _name(info)))
            try:
                if found and self._sink is not None:
                    await self._sink(found)
            except Exception as exc:  # the answers are recorded; only the names wait
                log.warning("%d names not stored: %s", len(found), type(exc).__name__)

    async def _paced(self) -> None:
        """A token bucket: NAME_BURST lookups at once, then NAME_RATE a second."""
        now = time.monotonic()  # real time, whatever clock names expire by: it paces real calls
        self._tokens = min(float(NAME_BURST), self._tokens + (now - self._filled) * NAME_RATE)
        self._filled = now
        self._tokens -= 1
        if self._tokens < 0:  # wait for this lookup's token
            await asyncio.sleep(-self._tokens / NAME_RATE)

    async def close(self) -> None:
        for task in self._workers:
            task.cancel()
        await asyncio.gather(*self._workers, return_exceptions=True)
        self._workers.clear()

    async def display_name(self, user_id: str, fallback: str = "", *, team: str = "") -> str:
        """The name people see in Slack; `fallback` (the handle) if users.info fails.

        Only a person's first click waits for users.info: an expired name is still used while a
        fresh one is fetched in the background, so the click path stays fast.
        """
        cached = self.known_name(user_id, team=team)
        if cached is not None:
            return cached
        info = await self._info(user_id, team)
        return _name(info) if info else fallback

    async def is_admin(self, user_id: str, *, team: str = "") -> bool:
        """Listed in ZEROQUIZ_SLACK_ADMINS (bare, or as `team:user` for this workspace), or a
        workspace admin or owner right now."""
        if user_id in self.admins or f"{team}:{user_id}" in self.admins:
            return True
        info = await self._info(user_id, team)
        if info is None:
            return False  # when Slack can't tell, refuse: admin actions are never assumed
        return any(info.get(k) for k in ("is_admin", "is_owner", "is_primary_owner"))

    async def _info(self, user_id: str, team: str) -> dict[str, Any] | None:
        return await asyncio.shield(self._lookup(user_id, team))

    def _lookup(self, user_id: str, team: str) -> asyncio.Task[dict[str, Any] | None]:
        """One users.info call per person at a time, however many clicks arrive together."""
        who = (team, user_id)
        task = self._lookups.get(who)
        if task is None:
            task = asyncio.create_task(self._fetch(user_id, team))
            self._lookups[who] = task
            task.add_done_callback(lambda _: self._lookups.pop(who, None))
        return task

    async def _fetch(self, user_id: str, team: str) -> dict[str, Any] | None:
        try:
            if self.tokens is None:
                response = await self.client.users_info(user=user_id)
            else:
                token = await self.tokens(team)
                if token is None:
                    log.warning("users.info for %s: workspace %s is not installed", user_id, team)
                    return None
                response = await with_token(
                    team, token, self.client.users_info, self.rejected, user=user_id
                )
        except Exception as exc:
            log.warning("users.info for %s failed: %s", user_id, error_code(exc))
            return None
        user = response.get("user")
        if not isinstance(user, dict):
            return None
        self._names[(team, user_id)] = (_name(user), self._now())
        self._names.move_to_end((team, user_id))
        while len(self._names) > NAME_CACHE:  # memory stays bounded however many people click
            self._names.popitem(last=False)
        return user


def _name(user: dict[str, Any]) -> str:
    profile = user.get("profile") or {}
    for candidate in (
        profile.get("display_name"),
        profile.get("real_name"),
        user.get("real_name"),
        user.get("name"),
    ):
        if isinstance(candidate, str) and candidate.strip():
            return candidate.strip()
    return str(user.get("id", ""))
