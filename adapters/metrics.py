"""Prometheus metrics for one process: its own CollectorRegistry, filled at the adapters' edges.

The core stays free of prometheus_client: the scheduler and the store call plain callbacks
(`Scheduler.on_lag`, `Store.observe_time`), the ports are wrapped here (`MeteredPort`), and the
click handlers time `quiz.answer` through `Metrics.answer` (review clicks go through
`Metrics.review`). A registry per Runtime, not the library's global one, so several runtimes in
one test process never collide. The registry is made on demand (adapters/prom.py), so importing
prometheus_client is off the path to a port accepting or a first command answered.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from bot import reviewing
from bot.model import ChannelRef, UserRef
from bot.ports import ChatPort, Refused, Unavailable
from bot.views import (
    Feedback,
    NoticeView,
    QuestionView,
    ReminderView,
    RevealView,
    ReviewResult,
    ReviewView,
)

if TYPE_CHECKING:
    from adapters.prom import Live

PENDING_MAX = 4096  # counts kept before the registry exists; one more makes it

T = TypeVar("T")
ReviewStep = ReviewView | ReviewResult | NoticeView | None  # what Reviews.click returns
_REVIEW_KINDS = {"a": "answer", "n": "next", "s": "stop", "b": "drill_answer", "m": "drill_next"}
RateLimited = Callable[[BaseException], bool]


class Collects(Protocol):
    """A part that counts for itself and is read when scraped (adapters/front.py)."""

    def collect(self) -> Iterable[Any]: ...


class Metrics:
    """Every metric ZeroQuiz exports (names under `zeroquiz_`, see the README).

    The registry (adapters/prom.py) is made by `load()`: at the first scrape, when `serve` asks a
    while after it is ready, or when PENDING_MAX counts wait. Until then each count is kept as a
    call and replayed into it in order, so nothing counted before is lost."""

    def __init__(self) -> None:
        self._live: Live | None = None
        self._pending: list[tuple[str, tuple[Any, ...]]] = []
        self._collectors: list[Collects] = []

    @property
    def loaded(self) -> bool:
        return self._live is not None

    def load(self) -> Live:
        """Make the registry (importing prometheus_client) and replay what was counted."""
        live = self._live
        if live is None:
            from adapters.prom import Live

            live = Live()
            for collector in self._collectors:
                live.add_collector(collector)
            for name, args in self._pending:
                getattr(live, name)(*args)
            self._pending.clear()
            self._collectors.clear()
            self._live = live
        return live

    def _count(self, name: str, *args: Any) -> None:
        live = self._live
        if live is not None:
            getattr(live, name)(*args)
            return
        self._pending.append((name, args))
        if len(self._pending) >= PENDING_MAX:
            self.load()

    def add_collector(self, collector: Collects) -> None:
        """Metrics read when scraped, from a part that counts for itself (adapters/front.py)."""
        if self._live is None:
            self._collectors.append(collector)
        else:
            self._live.add_collector(collector)

    def remove_collector(self, collector: Collects) -> None:
        if self._live is None:
            self._collectors.remove(collector)
        else:
            self._live.remove_collector(collector)

    def render(self) -> tuple[bytes, str]:
        """The Prometheus text exposition of this registry, and its content type."""
        from adapters.prom import CONTENT_TYPE

        return self.load().render(), CONTENT_TYPE

    def observe_db(self, kind: str, seconds: float) -> None:
        live = self._live
        if live is None:
            self._count("observe_db", kind, seconds)
        else:
            live.observe_db(kind, seconds)

    def count_limited(self, limit: str) -> None:
        self._count("count_limited", limit)

    def observe_lag(self, seconds: float) -> None:
        self._count("observe_lag", seconds)

    def count_delivery(self, platform: str, action: str, result: str) -> None:
        self._count("delivery", platform, action, result)

    def count_platform_error(self, platform: str, kind: str) -> None:
        self._count("platform_error", platform, kind)

    def count_rate_limit(self, platform: str) -> None:
        self._count("rate_limit", platform)

    def count_timeout(self, service: str, call: str) -> None:
        """An outbound call that ran out its timeout (adapters/timeouts.py): `call` is a
        bounded name (a Slack method, a Discord port action, `statement`), never an id."""
        self._count("timeout", service, call)

    def db_timed_out(self, call: str) -> None:
        self.count_timeout("postgresql", call)

    async def answer(self, platform: str, verdict: Callable[[], Awaitable[Feedback]]) -> Feedback:
        """Count a click and time its verdict (`quiz.answer`); errors are counted as clicks too."""
        live = self._live
        if live is not None:
            live.click(platform)
        else:
            self._count("click", platform)
        started = time.perf_counter()
        feedback = await verdict()
        seconds = time.perf_counter() - started
        live = self._live
        if live is not None:
            live.verdict(platform, seconds)
            if feedback.recorded:
                live.answered(platform, feedback.status)
        else:
            self._count("verdict", platform, seconds)
            if feedback.recorded:
                self._count("answered", platform, feedback.status)
        return feedback

    async def review(
        self, platform: str, token: str, step: Callable[[], Awaitable[ReviewStep]]
    ) -> ReviewStep:
        """Count a review click by its kind (read from its token) and, when it rescheduled a
        card, the review by its verdict; errors are counted as clicks too."""
        click = reviewing.decode(token)
        kind = _REVIEW_KINDS[click.kind] if click is not None else "invalid"
        self._count("review_click", platform, kind)
        result = await step()
        if isinstance(result, ReviewResult) and result.rescheduled:
            self._count("reviewed", platform, "correct" if result.correct else "wrong")
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
                m.count_rate_limit(self.platform)
            raise
        except Exception:
            self._failed(action, "error", "unexpected")
            raise
        m.count_delivery(self.platform, action, "posted")
        return result

    def _failed(self, action: str, result: str, kind: str) -> None:
        self._metrics.count_delivery(self.platform, action, result)
        self._metrics.count_platform_error(self.platform, kind)

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

    async def send_direct(
        self, user: UserRef, view: ReminderView, *, dedupe_key: str, tried_since: datetime | None
    ) -> str | None:
        return await self._count(
            "direct",
            self.inner.send_direct(user, view, dedupe_key=dedupe_key, tried_since=tried_since),
        )


def cause_chain(exc: BaseException) -> list[BaseException]:
    """The exception and those it was raised from (ports wrap the library's error)."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain
