"""Slack's limits for chat.postMessage, on the tests' fake Slack (its `before` hook), for the
nine-o'clock benchmark: one message a second per channel, a budget of posts per workspace per
window (sliding), one workspace held to a small budget, 429 with Retry-After beyond.

Each replica of the app is pointed at its own address of the fake, so a call's local port tells
which replica made it. The victim replica can be "killed just before a post": its first
chat.postMessage from a given moment on is held (never done), the bench is told to SIGKILL it,
and every call it makes from then on is held too, until the bench says it is dead.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web
from fake_slack import Call, FakeSlack

POST = "chat.postMessage"


@dataclass(frozen=True)
class Post:
    """A post Slack accepted: when (epoch seconds), where, from which replica, its round key."""

    at: float
    team: str
    channel: str
    replica: str
    key: str


@dataclass
class SlackLimits:
    fake: FakeSlack
    team_budget: int = 600  # posts a workspace may make per team_window (generous)
    team_window: float = 60.0
    channel_gap: float = 1.0  # one message a second per channel
    held: str = ""  # the workspace held to its budget
    held_budget: int = 1
    held_window: float = 25.0
    victim: str = "a"  # the replica killed just before a post ("": whichever posts first)
    kill_from: float | None = None  # epoch: its first post from then on triggers the kill
    ports: dict[int, str] = field(default_factory=dict)  # local port -> replica
    posts: list[Post] = field(default_factory=list)
    refused: Counter[str] = field(default_factory=Counter)  # 429s by which limit
    lost: list[tuple[float, str, str]] = field(default_factory=list)  # victim's held posts
    doomed: str | None = None  # the replica whose calls are held now
    triggered: asyncio.Event = field(default_factory=asyncio.Event)
    dead: asyncio.Event = field(default_factory=asyncio.Event)
    _team_posts: dict[str, deque[float]] = field(default_factory=lambda: defaultdict(deque))
    _channel_last: dict[tuple[str, str], float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.fake.before = self.check

    async def address(self, replica: str) -> str:
        """An api_url of the fake for `replica` alone."""
        url = await self.fake.listen()
        self.ports[int(url.rsplit(":", 1)[1].split("/")[0])] = replica
        return url

    def spend(self, team: str, at: float) -> None:
        """`team` spent its whole budget at `at` (its other traffic, just before the minute)."""
        budget = self.held_budget if team == self.held else self.team_budget
        self._team_posts[team].extend([at] * budget)

    def doom(self) -> None:
        """Hold every call of the victim from now on (it is about to be killed)."""
        self.doomed = self.victim
        self.triggered.set()

    def revive(self) -> None:
        """The victim was restarted: its calls go through again."""
        self.doomed = None
        self.dead.clear()

    def replica_of(self, request: web.Request) -> str:
        sock = request.transport.get_extra_info("sockname") if request.transport else None
        return self.ports.get(int(sock[1]), "?") if sock else "?"

    async def check(self, call: Call, request: web.Request) -> web.Response | None:
        replica = self.replica_of(request)
        now = time.time()
        if (
            call.method == POST
            and replica == (self.victim or replica)
            and self.kill_from is not None
            and now >= self.kill_from
        ):
            self.kill_from = None
            self.victim = replica
            self.doom()
        if replica == self.doomed:
            if call.method == POST:
                self.lost.append((now, call.team, str(call.args.get("channel"))))
            await self.dead.wait()  # the answer goes nowhere: the process is gone
            return web.Response(status=503)
        if call.method != POST:
            return None
        return self._limit(call, replica, now)

    def _limit(self, call: Call, replica: str, now: float) -> web.Response | None:
        team, channel = call.team, str(call.args.get("channel"))
        last = self._channel_last.get((team, channel))
        if last is not None and now - last < self.channel_gap:
            return self._too_many("channel", last + self.channel_gap - now)
        budget, window = self.team_budget, self.team_window
        if team == self.held:
            budget, window = self.held_budget, self.held_window
        spent = self._team_posts[team]
        while spent and spent[0] <= now - window:
            spent.popleft()
        if len(spent) >= budget:
            return self._too_many("held" if team == self.held else "team", spent[0] + window - now)
        spent.append(now)
        self._channel_last[(team, channel)] = now
        self.posts.append(Post(now, team, channel, replica, _key(call.args.get("metadata"))))
        return None

    def _too_many(self, limit: str, wait: float) -> web.Response:
        self.refused[limit] += 1
        return web.json_response(
            {"ok": False, "error": "ratelimited"},
            status=429,
            headers={"Retry-After": str(max(1, math.ceil(wait)))},
        )


def _key(metadata: Any) -> str:
    """The round key a post carries in its metadata ('' without)."""
    if isinstance(metadata, str):
        metadata = json.loads(metadata)
    if not isinstance(metadata, dict):
        return ""
    return json.dumps(metadata.get("event_payload"), sort_keys=True)
