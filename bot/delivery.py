"""Delivery: the one door to the ports, and the one place where a failed send decides what happens.

Only this module calls a `ChatPort`. A port raises `Refused` (permanent) or `Unavailable`
(passing), see bot/ports.py; anything else a port lets through is a bug or an unmapped network
error and counts as passing, so nothing is counted as delivered, or closed for good, on a guess.
Every failure is mapped here once (`_failure`), and every retry is planned in one ledger keyed by
what is being delivered, (kind, round id): question posts (daily posts are question posts) until
the round's deadline, reveals for six tries. Live counts, run standings and stray copies are not
retried (the next click edits the count again; the standings and a copy are courtesies): their
failures are logged and reported to the caller, and nothing waits in the ledger for them.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Literal, NamedTuple

from bot.clock import Clock
from bot.model import ChannelRef, UserRef
from bot.ports import ChatPort, DeliveryError, Unavailable
from bot.storage import RoundRecord
from bot.views import NoticeView, QuestionView, ReminderView, RevealView

log = logging.getLogger(__name__)

Kind = Literal["post", "reveal", "update", "stray", "notice", "direct"]
Outcome = Literal["posted", "refused", "later", "unserved", "given up"]


class Retry(NamedTuple):
    """How one kind of delivery is tried again: after `first`, doubling up to `cap`; at most
    `attempts` tries in all (None: until the caller forgets it, a post at its round's deadline).
    `refusals` too: a refused reveal is tried again like a passing failure (the close is never
    lost to a refusal), a refused post is final."""

    first: timedelta
    cap: timedelta | None = None
    attempts: int | None = None
    refusals: bool = False

    def wait(self, failures: int) -> timedelta:
        wait = self.first * (1 << (failures - 1))
        return wait if self.cap is None else min(wait, self.cap)


POST_RETRY = Retry(timedelta(seconds=15), cap=timedelta(minutes=5))
REVEAL_RETRY = Retry(timedelta(seconds=30), attempts=6, refusals=True)
RETRIES: dict[Kind, Retry] = {"post": POST_RETRY, "reveal": REVEAL_RETRY}
_WHAT: dict[Kind, str] = {"notice": "run", "direct": "reminder"}  # what `key` numbers, in logs


class Posted(NamedTuple):
    outcome: Outcome
    ref: str | None = None
    reason: str = ""

    @property
    def done(self) -> bool:
        """Nothing more will be tried: it reached the platform, or it was given up for good."""
        return self.outcome in ("posted", "refused", "given up")


class Delivery:
    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._ports: dict[str, ChatPort] = {}
        self._retries: dict[tuple[Kind, int], tuple[int, datetime]] = {}  # -> (failures, next)

    # -- the ports ------------------------------------------------------------------------------
    def add_port(self, port: ChatPort) -> None:
        """Registered as an adapter connects, after the core is built: a platform's client (and
        so its port) comes up later than the core it talks to, and `serve` adds one per surface.
        The only write to the port table."""
        self._ports[port.platform] = port

    def serves(self, platform: str) -> bool:
        return platform in self._ports

    def platforms(self) -> frozenset[str]:
        return frozenset(self._ports)

    def live_update_max_age(self, platform: str) -> timedelta | None:
        port = self._ports.get(platform)
        return port.live_update_max_age if port is not None else None

    # -- what is delivered ----------------------------------------------------------------------
    async def post_question(
        self,
        row: RoundRecord,
        view: QuestionView,
        dedupe_key: str | None = None,
        tried_since: datetime | None = None,
    ) -> Posted:
        """Every try of one round carries the same `dedupe_key` (Discord's nonce, Slack's
        metadata); `tried_since`: an earlier try may have reached the platform (ChatPort)."""
        return await self._send(
            "post", row.id, row.platform, row.channel_ref,
            lambda port: port.post_question(
                row.channel_ref, view, dedupe_key=dedupe_key, tried_since=tried_since
            ),
        )  # fmt: skip

    async def update_question(self, row: RoundRecord, view: QuestionView) -> Posted:
        """A live count: the round's message shows the new number."""
        assert row.message_ref is not None
        ref = row.message_ref
        return await self._send(
            "update", row.id, row.platform, row.channel_ref,
            lambda port: port.update_question(row.channel_ref, ref, view),
        )  # fmt: skip

    async def post_reveal(self, row: RoundRecord, view: RevealView) -> Posted:
        return await self._send(
            "reveal", row.id, row.platform, row.channel_ref,
            lambda port: port.post_reveal(row.channel_ref, row.message_ref, view),
        )  # fmt: skip

    async def reveal_stray(self, row: RoundRecord, ref: str, view: RevealView) -> Posted:
        return await self._send(
            "stray", row.id, row.platform, row.channel_ref,
            lambda port: port.reveal_stray(row.channel_ref, ref, view),
        )  # fmt: skip

    async def post_notice(self, channel: ChannelRef, view: NoticeView, *, about: int) -> Posted:
        """A notice nobody asked for at that moment (a run's standings; `about` is its run)."""
        return await self._send(
            "notice", about, channel.platform, channel,
            lambda port: port.post_notice(channel, view),
        )  # fmt: skip

    async def send_direct(
        self,
        user: UserRef,
        view: ReminderView,
        *,
        about: int,
        dedupe_key: str,
        tried_since: datetime | None = None,
    ) -> Posted:
        """A review reminder (`about` is its reminder): not in the retry ledger, its day's claim
        is (bot/reminders.py)."""
        where = ChannelRef(user.platform, user.team, f"direct:{user.user}")
        return await self._send(
            "direct", about, user.platform, where,
            lambda port: port.send_direct(
                user, view, dedupe_key=dedupe_key, tried_since=tried_since
            ),
        )  # fmt: skip

    async def _send(
        self,
        kind: Kind,
        key: int,
        platform: str,
        channel: ChannelRef,
        call: Callable[[ChatPort], Awaitable[str | None]],
    ) -> Posted:
        port = self._ports.get(platform)
        if port is None:
            return Posted("unserved")
        try:
            ref = await call(port)
        except Exception as exc:  # mapped once, here; see _failure
            refused, reason = _failure(exc)
            posted, then = self._failed(kind, key, refused, reason)
            unmapped = not isinstance(exc, DeliveryError)  # a port's bug: its traceback too
            log.log(
                logging.ERROR if unmapped else logging.WARNING,
                "%s of %s %s to %s failed (%s: %s); %s",
                kind, _WHAT.get(kind, "round"), key, channel.channel,
                "refused" if refused else "passing", reason, then,
                exc_info=unmapped,
            )  # fmt: skip
            return posted
        self._retries.pop((kind, key), None)
        return Posted("posted", ref=ref)

    def _failed(self, kind: Kind, key: int, refused: bool, reason: str) -> tuple[Posted, str]:
        """Plan the retry in the ledger; (the outcome, what happens next, for the log)."""
        retry = RETRIES.get(kind)
        if retry is None or (refused and not retry.refusals):
            self._retries.pop((kind, key), None)
            return Posted("refused" if refused else "later", reason=reason), "not tried again"
        failures = self._retries.get((kind, key), (0, self.clock.now()))[0] + 1
        if retry.attempts is not None and failures >= retry.attempts:
            self._retries.pop((kind, key), None)
            return Posted("given up", reason=reason), f"given up after {failures} tries"
        wait = retry.wait(failures)
        self._retries[(kind, key)] = (failures, self.clock.now() + wait)
        return Posted("later", reason=reason), f"trying again in {wait}"

    # -- the retry ledger -----------------------------------------------------------------------
    def may_retry(self, kind: Kind, round_id: int) -> bool:
        retry = self._retries.get((kind, round_id))
        return retry is None or retry[1] <= self.clock.now()

    def next_retry(self) -> datetime | None:
        """The earliest planned retry of any kind (part of the scheduler's next wake)."""
        return min((at for _, at in self._retries.values()), default=None)

    def forget(self, round_id: int) -> None:
        """The round is over: nothing of it is tried again."""
        for kind in RETRIES:
            self._retries.pop((kind, round_id), None)


def _failure(exc: Exception) -> tuple[bool, str]:
    """(refused, reason): the one error mapping. Unavailable is passing; any other
    DeliveryError (Refused, or a port that only says "delivery failed") a refusal; anything
    unmapped passing, never taken as a refusal."""
    if isinstance(exc, Unavailable):
        return False, exc.reason
    if isinstance(exc, DeliveryError):
        return True, exc.reason
    return False, type(exc).__name__
