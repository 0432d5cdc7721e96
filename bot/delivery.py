"""Delivery: the ports by platform, and the one place where a failed post decides what happens.

A port raises `Refused` (permanent) or `Unavailable` (passing), see bot/ports.py; anything else a
port lets through is a bug or an unmapped network error and is treated as passing, so a question
is never counted as delivered, or closed for good, on a guess. Passing failures are retried with
backoff by the scheduler until the round's deadline.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from bot.clock import Clock
from bot.ports import ChatPort, DeliveryError, Unavailable
from bot.storage import RoundRecord
from bot.views import QuestionView

log = logging.getLogger(__name__)

POST_RETRY = timedelta(seconds=15)
POST_RETRY_MAX = timedelta(minutes=5)


@dataclass(frozen=True)
class Posted:
    outcome: Literal["posted", "refused", "later", "unserved"]
    ref: str | None = None
    reason: str = ""


class Delivery:
    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.ports: dict[str, ChatPort] = {}
        self._retries: dict[int, tuple[int, datetime]] = {}  # round -> (failures, next try)

    async def post_question(
        self, row: RoundRecord, view: QuestionView, dedupe_key: str | None = None
    ) -> Posted:
        port = self.ports.get(row.platform)
        if port is None:
            return Posted("unserved")
        try:
            ref = await port.post_question(row.channel_ref, view, dedupe_key=dedupe_key)
        except Unavailable as exc:
            return self._later(row, exc.reason)
        except DeliveryError as exc:  # Refused, or a port that only says "delivery failed"
            log.warning("round %s refused by %s: %s", row.id, row.channel_ref, exc.reason)
            self._retries.pop(row.id, None)
            return Posted("refused", reason=exc.reason)
        except Exception as exc:  # not mapped by the port: never taken as a refusal
            log.exception("posting round %s to %s failed unexpectedly", row.id, row.channel_ref)
            return self._later(row, type(exc).__name__)
        self._retries.pop(row.id, None)
        return Posted("posted", ref=ref)

    def _later(self, row: RoundRecord, reason: str) -> Posted:
        failures = self._retries.get(row.id, (0, self.clock.now()))[0] + 1
        wait = min(POST_RETRY * 2 ** (failures - 1), POST_RETRY_MAX)
        self._retries[row.id] = (failures, self.clock.now() + wait)
        log.warning(
            "round %s not posted to %s yet (%s); trying again in %s",
            row.id, row.channel_ref, reason, wait,
        )  # fmt: skip
        return Posted("later", reason=reason)

    def may_retry(self, round_id: int) -> bool:
        retry = self._retries.get(round_id)
        return retry is None or retry[1] <= self.clock.now()

    def next_retry(self) -> datetime | None:
        return min((at for _, at in self._retries.values()), default=None)

    def forget(self, round_id: int) -> None:
        self._retries.pop(round_id, None)
