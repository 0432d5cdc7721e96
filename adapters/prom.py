"""The Prometheus side of adapters/metrics.py: a registry and its collectors, made on demand.

Importing prometheus_client costs a start tens of milliseconds (its package imports its HTTP
exposition and http.server), so `Metrics` counts into a list until this module is loaded: at the
first scrape, a while after `serve` is ready, or once the list is long; every count is replayed.
"""

from __future__ import annotations

from typing import Any, cast

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

from bot import limits

CONTENT_TYPE = CONTENT_TYPE_LATEST
FAST = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
LAG = (0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 15.0, 60.0, 300.0)
DB = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)


class Live:
    """Every metric ZeroQuiz exports (names under `zeroquiz_`, see the README), each count one
    call; `Metrics` says what to count."""

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
        self.timeouts = Counter(
            "zeroquiz_timeouts",
            "Outbound calls that got no answer within their timeout, by service and call",
            ["service", "call"],
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
        self._clicks_of: dict[str, Any] = {}
        self._seconds_of: dict[str, Any] = {}
        self._answers_of: dict[tuple[str, str], Any] = {}
        for name in limits.NAMES:  # every limit shows, at 0 until it refuses something
            self.limited.labels(name)
        self.db_seconds = Histogram(
            "zeroquiz_db_seconds",
            "Time spent in database transactions, snapshots and reads",
            ["kind"],
            buckets=DB,
            registry=r,
        )

    def render(self) -> bytes:
        """The Prometheus text exposition of this registry."""
        return generate_latest(self.registry)

    def add_collector(self, collector: object) -> None:
        self.registry.register(cast(Collector, collector))

    def remove_collector(self, collector: object) -> None:
        self.registry.unregister(cast(Collector, collector))

    def click(self, platform: str) -> None:
        child = self._clicks_of.get(platform)
        if child is None:
            child = self._clicks_of[platform] = self.clicks.labels(platform)
        child.inc()

    def verdict(self, platform: str, seconds: float) -> None:
        child = self._seconds_of.get(platform)
        if child is None:
            child = self._seconds_of[platform] = self.verdict_seconds.labels(platform)
        child.observe(seconds)

    def answered(self, platform: str, status: str) -> None:
        key = (platform, status)
        child = self._answers_of.get(key)
        if child is None:
            child = self._answers_of[key] = self.answers.labels(*key)
        child.inc()

    def review_click(self, platform: str, kind: str) -> None:
        self.review_clicks.labels(platform, kind).inc()

    def reviewed(self, platform: str, verdict: str) -> None:
        self.reviews.labels(platform, verdict).inc()

    def delivery(self, platform: str, action: str, result: str) -> None:
        self.deliveries.labels(platform, action, result).inc()

    def platform_error(self, platform: str, kind: str) -> None:
        self.platform_errors.labels(platform, kind).inc()

    def rate_limit(self, platform: str) -> None:
        self.rate_limits.labels(platform).inc()

    def timeout(self, service: str, call: str) -> None:
        self.timeouts.labels(service, call).inc()

    def observe_db(self, kind: str, seconds: float) -> None:
        self.db_seconds.labels(kind).observe(seconds)

    def count_limited(self, limit: str) -> None:
        self.limited.labels(limit).inc()

    def observe_lag(self, seconds: float) -> None:
        self.scheduler_lag.observe(seconds)
