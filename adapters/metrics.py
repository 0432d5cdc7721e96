"""Prometheus metrics for one process: its own CollectorRegistry, filled at the adapters' edges.

The core stays free of prometheus_client: the scheduler and the store call plain callbacks
(`Scheduler.on_lag`, `Store.observe_time`), the ports are wrapped here (`MeteredPort`), and the
click handlers time `quiz.answer` through `Metrics.answer` (review clicks go through
`Metrics.review`). A registry per Runtime, not the library's global one, so several runtimes in
one test process never collide.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import TypeVar

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

from bot import limits, reviewing
from bot.model import ChannelRef
from bot.ports import ChatPort, Refused, Unavailable
from bot.views import Feedback, NoticeView, QuestionView, RevealView, ReviewResult, ReviewView

CONTENT_TYPE = CONTENT_TYPE_LATEST
FAST = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
LAG = (0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 15.0, 60.0, 300.0)
DB = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)

T = TypeVar("T")
ReviewStep = ReviewView | ReviewResult | NoticeView | None  # what Reviews.click returns
_REVIEW_KINDS = {"a": "answer", "n": "next", "s": "stop"}
RateLimited = Callable[[BaseException], bool]


class Metrics:
    """Every metric ZeroQuiz exports (names under `zeroquiz_`, see the README)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.clicks = Counter("zeroquiz_clicks", "Answer clicks received", ["platform"], registry=r)
        self.answers = Counter(
            "zeroquiz_answers_recorded",
            "Answers recorded (a first answer in an open round)",
            ["platform", "verdict"],
            registry=r,
        )
        self.verdict_seconds = Histogram(
            "zeroquiz_verdict_seconds",
            "From a click reaching the bot to its verdict",
            ["platform"],
            buckets=FAST,
            registry=r,
        )
        self.review_clicks = Counter(
            "zeroquiz_review_clicks",
            "Review button clicks received, by kind (answer, next, stop, invalid)",
            ["platform", "kind"],
            registry=r,
        )
        self.reviews = Counter(
            "zeroquiz_reviews_recorded",
            "Review answers that rescheduled a card (not a repeated click)",
            ["platform", "verdict"],
            registry=r,
        )
        self.deliveries = Counter(
            "zeroquiz_deliveries",
            "Posts and edits sent to a platform, by result (posted, refused, later, error)",
            ["platform", "action", "result"],
            registry=r,
        )
        self.platform_errors = Counter(
            "zeroquiz_platform_errors",
            "Posts and edits a platform did not take (refused, unavailable, unexpected)",
            ["platform", "kind"],
            registry=r,
        )
        self.rate_limits = Counter(
            "zeroquiz_rate_limits",
            "Rate limits left after the platform library's own waiting and retries",
            ["platform"],
            registry=r,
        )
        self.scheduler_lag = Histogram(
            "zeroquiz_scheduler_lag_seconds",
            "How late the scheduler ran due work after the moment it was due",
            buckets=LAG,
            registry=r,
        )
        self.limited = Counter(
            "zeroquiz_limited",
            "Commands refused by a limit (bot/limits.py), by the limit's name",
            ["limit"],
            registry=r,
        )
        # The labelled children a click touches, looked up once (labels() is a lock and a
        # dict lookup of the label tuple, several times per click otherwise).
        self._clicks_of: dict[str, tuple[Counter, Histogram]] = {}
        self._answers_of: dict[tuple[str, str], Counter] = {}
        for name in limits.NAMES:  # every limit shows, at 0 until it refuses something
            self.limited.labels(name)
        self.db_seconds = Histogram(
            "zeroquiz_db_seconds",
            "Time spent in database transactions, snapshots and reads",
            ["kind"],
            buckets=DB,
            registry=r,
        )

    def add_collector(self, collector: Collector) -> None:
        """Metrics read when scraped, from a part that counts for itself (adapters/front.py)."""
        self.registry.register(collector)

    def remove_collector(self, collector: Collector) -> None:
        self.registry.unregister(collector)

    def render(self) -> bytes:
        """The Prometheus text exposition of this registry."""
        return generate_latest(self.registry)

    def observe_db(self, kind: str, seconds: float) -> None:
        self.db_seconds.labels(kind).observe(seconds)

    def count_limited(self, limit: str) -> None:
        self.limited.labels(limit).inc()

    def observe_lag(self, seconds: float) -> None:
        self.scheduler_lag.observe(seconds)

    async def answer(self, platform: str, verdict: Callable[[], Awaitable[Feedback]]) -> Feedback:
        """Count a click and time its verdict (`quiz.answer`); errors are counted as clicks too."""
        children = self._clicks_of.get(platform)
        if children is None:
            children = self._clicks_of[platform] = (
                self.clicks.labels(platform),
                self.verdict_seconds.labels(platform),
            )
        clicks, seconds = children
        clicks.inc()
        started = time.perf_counter()
        feedback = await verdict()
        seconds.observe(time.perf_counter() - started)
        if feedback.recorded:
            key = (platform, feedback.status)
            answers = self._answers_of.get(key)
            if answers is None:
                answers = self._answers_of[key] = self.answers.labels(*key)
            answers.inc()
        return feedback

    async def review(
        self, platform: str, token: str, step: Callable[[], Awaitable[ReviewStep]]
    ) -> ReviewStep:
        """Count a review click by its kind (read from its token) and, when it rescheduled a
        card, the review by its verdict; errors are counted as clicks too."""
        click = reviewing.decode(token)
        kind = _REVIEW_KINDS[click.kind] if click is not None else "invalid"
        self.review_clicks.labels(platform, kind).inc()
        result = await step()
        if isinstance(result, ReviewResult) and result.rescheduled:
            self.reviews.labels(platform, "correct" if result.correct else "wrong").inc()
        return result

    def port(self, port: ChatPort, rate_limited: RateLimited) -> MeteredPort:
        return MeteredPort(port, self, rate_limited)


class MeteredPort:
    """A ChatPort that counts every post and edit by result; it changes nothing it passes on."""

    def __init__(self, inner: ChatPort, metrics: Metrics, rate_limited: RateLimited) -> None:
        self.inner = inner
        self.platform = inner.platform
        self.live_update_max_age: timedelta | None = inner.live_update_max_age
        self._metrics = metrics
        self._rate_limited = rate_limited

    async def _count(self, action: str, call: Awaitable[T]) -> T:
        m = self._metrics
        try:
            result = await call
        except Refused:
            self._failed(action, "refused", "refused")
            raise
        except Unavailable as exc:
            self._failed(action, "later", "unavailable")
            if self._rate_limited(exc):
                m.rate_limits.labels(self.platform).inc()
            raise
        except Exception:
            self._failed(action, "error", "unexpected")
            raise
        m.deliveries.labels(self.platform, action, "posted").inc()
        return result

    def _failed(self, action: str, result: str, kind: str) -> None:
        self._metrics.deliveries.labels(self.platform, action, result).inc()
        self._metrics.platform_errors.labels(self.platform, kind).inc()

    async def post_question(
        self,
        channel: ChannelRef,
        view: QuestionView,
        *,
        dedupe_key: str | None = None,
        tried_since: datetime | None = None,
    ) -> str | None:
        return await self._count(
            "post",
            self.inner.post_question(channel, view, dedupe_key=dedupe_key, tried_since=tried_since),
        )

    async def update_question(self, channel: ChannelRef, ref: str, view: QuestionView) -> None:
        await self._count("edit", self.inner.update_question(channel, ref, view))

    async def post_reveal(self, channel: ChannelRef, ref: str | None, view: RevealView) -> None:
        action = "edit" if ref is not None else "post"
        await self._count(action, self.inner.post_reveal(channel, ref, view))

    async def reveal_stray(self, channel: ChannelRef, ref: str, view: RevealView) -> None:
        await self._count("edit", self.inner.reveal_stray(channel, ref, view))

    async def post_notice(self, channel: ChannelRef, view: NoticeView) -> None:
        await self._count("post", self.inner.post_notice(channel, view))


def cause_chain(exc: BaseException) -> list[BaseException]:
    """The exception and those it was raised from (ports wrap the library's error)."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain
