"""The Web API client and what its errors mean to the person who typed the command.

Server errors (HTTP 5xx) and dropped connections are retried by slack_sdk's retry handlers, and
so are rate limits (HTTP 429) for the calls Bolt makes. The port's client leaves a 429 to
`waiting_out_rate_limits`, which waits out Retry-After outside the scheduled sends' gate
(bot/fanout.py), so a workspace held to its budget waits alone. Any error left after that becomes a
DeliveryError whose reason says how to fix it (passing ones are tried again later by the core).
A call that gets no answer within the timeout (ZEROQUIZ_SLACK_TIMEOUT, on the session surface.py
gives the client) is logged and counted by `TimedClient`, Bolt's own calls too.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.http_retry.handler import default_interval_calculator
from slack_sdk.http_retry.interval_calculator import RetryIntervalCalculator
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.web.async_slack_response import AsyncSlackResponse

from bot.fanout import outside_the_gate
from bot.i18n import t
from bot.model import Lang

TIMEOUT_SECONDS = 15
RATE_LIMIT_TRIES = 4  # as slack_sdk's handler: the call and 3 more after each Retry-After
RETRY_AFTER_DEFAULT = 1.0  # seconds, when a 429 does not say
# Multi-workspace mode: the bot token of a workspace (team id), None when it is not installed.
TokenSource = Callable[[str], Awaitable[str | None]]
# Slack no longer accepts this token: another may be in the database by now (installs.TeamTokens
# .rejected: (team, token) -> the newer token, or None).
REJECTED = frozenset({"invalid_auth", "token_revoked", "account_inactive"})
Rejected = Callable[[str, str], Awaitable[str | None]]
log = logging.getLogger(__name__)
# The workspace a call is for, where the caller knows it (with_token): named when it times out.
_workspace: ContextVar[str | None] = ContextVar("zeroquiz_slack_workspace", default=None)

# Slack error codes -> catalogue keys whose text tells an admin what to do.
_REASONS: dict[str, str] = {
    "not_in_channel": "slack_err_not_in_channel",
    "channel_not_found": "slack_err_channel_not_found",
    "is_archived": "slack_err_is_archived",
    "restricted_action": "slack_err_restricted",
    "restricted_action_read_only_channel": "slack_err_restricted",
    "restricted_action_thread_only_channel": "slack_err_restricted",
    "restricted_action_non_threadable_channel": "slack_err_restricted",
    "team_access_not_granted": "slack_err_restricted",
    "ekm_access_denied": "slack_err_restricted",
    "missing_scope": "slack_err_missing_scope",
    "not_allowed_token_type": "slack_err_missing_scope",
    "invalid_auth": "slack_err_auth",
    "not_authed": "slack_err_auth",
    "token_revoked": "slack_err_auth",
    "account_inactive": "slack_err_auth",
    "ratelimited": "slack_err_busy",
}


@contextmanager
def calls_for(team: str | None) -> Iterator[None]:
    """The Slack calls made inside (tasks started inside too) are for workspace `team`: a
    timeout's log line names it."""
    named = _workspace.set(team)
    try:
        yield
    finally:
        _workspace.reset(named)


def workspace_of_calls(default: str | None) -> str:
    """The workspace the calls now are for (`calls_for`), else `default` (the one workspace)."""
    return _workspace.get() or default or "unknown"


def _uncounted(method: str) -> None:
    """The default: nobody counts timeouts."""


class TimedClient(AsyncWebClient):
    """The Web API client whose calls that time out are logged, naming the method, the
    workspace and the timeout (never the token), and counted. slack_sdk sends every method
    through `api_call`, Bolt's calls included."""

    def __init__(self, *, seconds: float, on_timeout: Callable[[str], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seconds = seconds
        self.on_timeout = on_timeout
        self.workspace: str | None = None  # one workspace: its id, once auth.test said it

    async def api_call(self, api_method: str, **kwargs: Any) -> AsyncSlackResponse:
        try:
            return await super().api_call(api_method, **kwargs)
        except TimeoutError:
            log.warning(
                "Slack %s for workspace %s: no answer within %g s",
                api_method, workspace_of_calls(self.workspace), self.seconds,
            )  # fmt: skip
            self.on_timeout(api_method)
            raise


def build_client(
    token: str | None,
    base_url: str,
    session: aiohttp.ClientSession | None = None,
    *,
    backoff: RetryIntervalCalculator = default_interval_calculator,
    rate_limits: bool = True,
    seconds: float = TIMEOUT_SECONDS,
    on_timeout: Callable[[str], None] = _uncounted,
) -> TimedClient:
    """A client on the app's connection pool: retries on 5xx and connection errors, and on 429
    unless `rate_limits` is False (the port's: see `waiting_out_rate_limits`). `seconds` is the
    timeout `session` carries (slack_sdk applies its own only to a session it makes itself),
    said when a call runs it out."""
    handlers = [
        AsyncConnectionErrorRetryHandler(max_retry_count=2, interval_calculator=backoff),
        AsyncServerErrorRetryHandler(max_retry_count=2, interval_calculator=backoff),
    ]
    if rate_limits:
        handlers.append(
            AsyncRateLimitErrorRetryHandler(max_retry_count=3, interval_calculator=backoff)
        )
    return TimedClient(
        seconds=seconds,
        on_timeout=on_timeout,
        token=token,
        base_url=base_url,
        session=session,
        timeout=math.ceil(seconds),  # for a session slack_sdk would make: ours carries it
        retry_handlers=list(handlers),
    )


def retry_after(exc: BaseException) -> float | None:
    """Seconds a 429 asks us to wait; None when `exc` is no rate limit."""
    if not isinstance(exc, SlackApiError) or exc.response.status_code != 429:
        return None
    headers = exc.response.headers or {}
    value = next((v for k, v in headers.items() if str(k).lower() == "retry-after"), None)
    if isinstance(value, list):
        value = value[0] if value else None
    try:
        return max(0.0, float(value)) if value is not None else RETRY_AFTER_DEFAULT
    except (TypeError, ValueError):
        return RETRY_AFTER_DEFAULT


async def waiting_out_rate_limits(
    team: str, call: Callable[..., Awaitable[Any]], /, *args: Any, **kwargs: Any
) -> Any:
    """`call(*args, **kwargs)`; after each 429 once more when its Retry-After has passed, the
    wait spent outside the scheduled sends' gate; the last 429 is raised."""
    for attempt in range(1, RATE_LIMIT_TRIES + 1):
        try:
            return await call(*args, **kwargs)
        except SlackApiError as exc:
            wait = retry_after(exc)
            if wait is None or attempt == RATE_LIMIT_TRIES:
                raise
            log.info("workspace %s is rate limited: waiting %.0f s (Retry-After)", team, wait)
            await outside_the_gate(asyncio.sleep(wait))
    raise AssertionError("unreachable")  # pragma: no cover


def error_code(exc: BaseException) -> str:
    """Slack's error code (`not_in_channel`...), or a short name for a transport failure."""
    if isinstance(exc, SlackApiError):
        data = exc.response.data  # not a dict when something other than Slack answered
        if isinstance(data, dict) and data.get("error"):
            return str(data["error"])
        return f"http_{exc.response.status_code}"
    if isinstance(exc, aiohttp.ClientError | TimeoutError):
        return "unreachable"
    return type(exc).__name__


def reason_for(code: str, lang: Lang) -> str:
    """A sentence for the person who asked: what went wrong and how to fix it."""
    if code == "unreachable":
        return t(lang, "slack_err_unreachable")
    key = _REASONS.get(code)
    return t(lang, key) if key else t(lang, "slack_err_other", error=code)


async def with_token(
    team: str,
    token: str | None,
    call: Callable[..., Awaitable[Any]],
    rejected: Rejected | None,
    /,
    **args: Any,
) -> Any:
    """`call(token=token, **args)`; if Slack rejects that workspace token, once more with the
    one the database holds now (a re-installation another replica stored), if there is one."""
    with calls_for(team):
        try:
            return await call(token=token, **args)
        except SlackApiError as exc:
            if token is None or rejected is None or error_code(exc) not in REJECTED:
                raise
            try:
                fresh = await rejected(team, token)
            except Exception:  # the database did not answer: the rejection stands
                raise exc from None
            if fresh is None:
                raise
            log.info("workspace %s: its token was rejected; using the one stored now", team)
            return await call(token=fresh, **args)
