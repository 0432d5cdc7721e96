"""The Slack surface for `zeroquiz serve`: Socket Mode or HTTP mode, sharing the loop and core.

Socket Mode (SLACK_APP_TOKEN) opens an outbound websocket: no public URL needed. HTTP mode
(SLACK_SIGNING_SECRET) serves Bolt's aiohttp app on host:port at /slack/events behind a front
door (inbound.py) that checks each request's signature, then its shape, before Bolt reads it.
Neither blocks the loop, so Discord can run beside it in the same process.

Multi-workspace mode (SLACK_CLIENT_ID and SLACK_CLIENT_SECRET, HTTP only) adds Bolt's OAuth flow
at /slack/install and /slack/oauth_redirect; each workspace's bot token is then read from its
installation (installs.py), for Bolt's requests and the port's posts alike.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

import aiohttp
from slack_bolt.async_app import AsyncApp
from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings
from slack_sdk.http_retry.handler import default_interval_calculator
from slack_sdk.http_retry.interval_calculator import RetryIntervalCalculator
from slack_sdk.web.async_client import AsyncWebClient

from adapters.front import Front, FrontMetrics, Gate, HttpLimits, Listener, serve_app
from adapters.inflight import InFlight
from adapters.metrics import cause_chain
from adapters.runtime import ConfigError, Runtime, SurfaceUnavailable
from adapters.slack import inbound
from adapters.slack.config import (
    OAuthConfig,
    SlackConfig,
    cannot_listen,
    http_limits_of,
    load_config,
)
from adapters.slack.handlers import SlackHandlers
from adapters.slack.port import SlackPort
from adapters.slack.replies import Replies
from adapters.slack.users import SlackUsers
from adapters.slack.web import TimedClient, build_client, error_code

if TYPE_CHECKING:  # multi-workspace mode only: cryptography is loaded when it is on
    from adapters.slack.installs import StoreInstallations, TeamTokens
    from adapters.slack.socket import CheckedSocketMode  # Socket Mode only

log = logging.getLogger(__name__)
bolt_log = logging.getLogger("adapters.slack.bolt")


class _DropTokenNotice(logging.Filter):
    """Bolt reads SLACK_BOT_TOKEN itself and warns it is unused, as we pass a client built from
    that very token: a misleading warning on every start."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "`token` will be unused" not in record.getMessage()


bolt_log.addFilter(_DropTokenNotice())

EVENTS_PATH = "/slack/events"
INSTALL_PATH = "/slack/install"
REDIRECT_PATH = "/slack/oauth_redirect"
# What each workspace grants at install: the same bot scopes as deploy/slack-manifest.yaml.
BOT_SCOPES = (
    "commands", "chat:write", "chat:write.public", "users:read",
    "channels:history", "groups:history", "im:write", "im:history",
)  # fmt: skip
DRAIN_SECONDS = 10.0
CONNECT_SECONDS = 30.0
_BAD_TOKEN = frozenset({"invalid_auth", "not_authed", "token_revoked", "account_inactive"})


def surface_from_env(
    env: Mapping[str, str], runtime: Runtime, *, host: str, port: int
) -> SlackSurface | None:
    """The Slack surface if Slack is configured; ConfigError names any bad variable."""
    config = load_config(env)
    if config is None:
        return None
    return SlackSurface(config, runtime, host=host, port=port, limits=http_limits_of(config, env))


class SlackSurface:
    name = "slack"

    def __init__(
        self,
        config: SlackConfig,
        runtime: Runtime,
        *,
        host: str,
        port: int,
        backoff: RetryIntervalCalculator = default_interval_calculator,
        limits: HttpLimits | None = None,
        api_timeout: float | None = None,
    ) -> None:
        self.config = config
        # slack_sdk puts its timeout only on a session it makes itself; ours carries it, so a
        # Slack call that never answers ends (and is retried later) instead of waiting 300 s.
        self.api_timeout = runtime.timeouts.slack if api_timeout is None else api_timeout
        self.limits = limits or HttpLimits()  # HTTP mode's timeouts and connection cap
        self.backoff = backoff  # between slack_sdk's retries (tests shorten the real waits)
        self.runtime = runtime
        self.host = host
        self.port = port
        self.inflight = InFlight("Slack")
        self.app: AsyncApp | None = None
        self.slack_port: SlackPort | None = None
        self._session: aiohttp.ClientSession | None = None
        self._socket: CheckedSocketMode | None = None
        self._listener: Listener | None = None
        self.front: Front | None = None  # HTTP mode: its connections (counts for tests, benches)
        self._front_metrics: FrontMetrics | None = None
        self._users: SlackUsers | None = None
        self._replies: Replies | None = None

    async def start(self) -> None:
        try:
            await self._start()
        except BaseException:
            await self.stop()  # nothing half-open is left behind (sessions, sockets, ports)
            raise

    async def _start(self) -> None:
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=self.api_timeout))
        metrics = self.runtime.metrics
        client = build_client(
            self.config.bot_token or None,
            self.config.api_url,
            self._session,
            backoff=self.backoff,
            seconds=self.api_timeout,
            on_timeout=lambda method: metrics.count_timeout("slack", method),
        )
        oauth = self.config.oauth
        tokens: TeamTokens | None = None
        installs: StoreInstallations | None = None
        if oauth is None:
            await self._check_token(client)
        else:
            clock = self.runtime.clock
            from adapters.slack.installs import StoreInstallations, TeamTokens, sealer

            installs = StoreInstallations(
                self.runtime.store.installations, sealer(oauth.token_key), clock.now
            )
            await installs.check_keys()  # a wrong key stops start-up, naming the variable
            tokens = TeamTokens(installs)
        quiz = self.runtime.quiz
        # The port's own client leaves a 429 to the port, which waits it out outside the
        # scheduled sends' gate (bot/fanout.py); Bolt's keeps slack_sdk's handler.
        port_client = build_client(
            self.config.bot_token or None,
            self.config.api_url,
            self._session,
            backoff=self.backoff,
            rate_limits=False,
            seconds=self.api_timeout,
            on_timeout=client.on_timeout,
        )
        port_client.workspace = client.workspace
        self.slack_port = SlackPort(
            port_client,
            quiz.channel_lang,
            tokens,
            rejected=None if tokens is None else tokens.rejected,
        )
        self.runtime.add_port(self.slack_port, _rate_limited)
        # The scheduler skips rounds of platforms without a port: now that Slack has one, let it
        # re-plan, so rounds that went overdue while the app was down are revealed at once.
        self.runtime.scheduler.wake()
        self.app = AsyncApp(
            client=client,
            signing_secret=self.config.signing_secret or "",
            name="zeroquiz",
            logger=bolt_log,
            # The HTTP response leaves at ack(); the handlers run what follows as tracked tasks.
            process_before_response=True,
            # Over HTTP, inbound.py's front door has checked the signature of every request
            # before Bolt gets it, and hands Bolt the body as JSON, not the text Slack signed.
            request_verification_enabled=False,
            oauth_settings=self._oauth_settings(oauth, installs, client),
            installation_store_bot_only=True if installs is not None else None,
        )
        self.app.middleware(inbound.ShapeCheck())
        self._users = SlackUsers(
            client,
            self.config.admins,
            tokens=tokens,
            rejected=None if tokens is None else tokens.rejected,
            now=lambda: self.runtime.clock.now().timestamp(),  # names expire by the runtime's time
        )
        assert self._session is not None
        self._replies = Replies(
            self._session,
            self.runtime.clock,
            seconds=self.api_timeout,
            on_timeout=lambda: metrics.count_timeout("slack", "response_url"),
            workspace=client.workspace,
        )
        handlers = SlackHandlers(
            quiz,
            self._users,
            self.inflight,
            self._replies,
            metrics=self.runtime.metrics,
            uninstalled=None if tokens is None else tokens.uninstall,
        )
        handlers.register(self.app)
        if self.config.app_token is not None:
            await self._connect_socket(client, self.app, self.config.app_token)
            log.info("Slack: connected in Socket Mode")
        else:
            secret = self.config.signing_secret or ""
            # One workspace: answer clicks skip Bolt's dispatch (inbound.py). Several: Bolt's
            # authorisation finds the clicking workspace's installation first.
            direct = handlers.answer_click if self.config.oauth is None else None
            web_app = inbound.web_app(self.app, secret, EVENTS_PATH, direct)
            # /healthz, /readyz and /metrics are not here: they have their own listener,
            # loopback by default (adapters/health.py), not the internet's.
            # Anyone may open the OAuth pages: beyond 20 a second they get 429 (front.Gate).
            gate = Gate((INSTALL_PATH, REDIRECT_PATH)) if self.config.oauth else None
            try:
                self._listener = await serve_app(
                    web_app, self.host, self.port, self.limits, "slack", gate=gate
                )
            except OSError as exc:  # the port is taken, the address is not this machine's
                raise ConfigError(cannot_listen(self.host, self.port, exc)) from None
            self.front = self._listener.front
            self._front_metrics = FrontMetrics(self.front)
            self.runtime.metrics.add_collector(self._front_metrics)
            log.info("Slack: HTTP mode on %s", self.url)

    def _oauth_settings(
        self,
        oauth: OAuthConfig | None,
        installs: StoreInstallations | None,
        client: AsyncWebClient,
    ) -> AsyncOAuthSettings | None:
        """Multi-workspace mode: Bolt's OAuth flow, its installations and states in our database
        (async stores: nothing blocks the loop)."""
        if oauth is None or installs is None:
            return None
        from adapters.slack.authorize import CachedAuthorize
        from adapters.slack.installs import EncodedAuthorizeUrl, StoreStates, install_callbacks

        # Signed states: opening /slack/install writes nothing (installs.py).
        states = StoreStates(
            self.runtime.store.installations, oauth.client_secret, self.runtime.clock.now
        )
        settings = AsyncOAuthSettings(
            client_id=oauth.client_id,
            client_secret=oauth.client_secret,
            scopes=list(BOT_SCOPES),
            installation_store=installs,
            installation_store_bot_only=True,
            state_store=states,
            install_path=INSTALL_PATH,
            redirect_uri_path=REDIRECT_PATH,
            callback_options=install_callbacks(client, oauth.client_id, oauth.client_secret),
        )
        # Bolt's authorisation with its cache on: auth.test once per token, not per request
        # (authorize.py says what keeps it from outliving a token).
        settings.authorize = CachedAuthorize(installs, client, self.runtime.clock.now, bolt_log)
        made = settings.authorize_url_generator  # Bolt's own, pasting `team=` unencoded
        settings.authorize_url_generator = EncodedAuthorizeUrl(
            client_id=made.client_id,
            redirect_uri=made.redirect_uri,
            scopes=made.scopes,
            user_scopes=made.user_scopes,
            authorization_url=made.authorization_url,
        )
        return settings

    async def ready(self) -> bool:
        """HTTP mode: serving. Socket Mode: the websocket is open and answering pings."""
        if self.app is None:
            return False
        if self.config.app_token is not None:
            return self._socket is not None and bool(await self._socket.client.is_connected())
        return self._listener is not None

    @property
    def url(self) -> str | None:
        """Where Slack should send requests in HTTP mode (the real port when 0 was asked)."""
        if self._listener is None or not self._listener.addresses:
            return None
        host, port = self._listener.addresses[0][:2]
        return f"http://{host}:{port}{EVENTS_PATH}"

    @property
    def base_url(self) -> str | None:
        """The HTTP server's root (OAuth mode serves INSTALL_PATH and REDIRECT_PATH there too)."""
        url = self.url
        return None if url is None else url.removesuffix(EVENTS_PATH)

    async def stop(self) -> None:
        if self._socket is not None:
            await self._socket.close_async()  # type: ignore[no-untyped-call]
            self._socket = None
        if self._listener is not None:
            await self._listener.cleanup()
            self._listener = None
        if self._front_metrics is not None:
            self.runtime.metrics.remove_collector(self._front_metrics)
            self._front_metrics = None
        await self.inflight.close(DRAIN_SECONDS)
        if self._users is not None:
            await self._users.close()
            self._users = None
        if self._replies is not None:
            await self._replies.close()
            self._replies = None
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def _check_token(self, client: TimedClient) -> None:
        """Fail at start-up, by variable name, rather than on the first click; learn the
        workspace's id (a timeout's log line names it)."""
        try:
            found = await client.auth_test()
        except Exception as exc:
            raise _startup_error(exc, "SLACK_BOT_TOKEN") from None
        client.workspace = found.get("team_id")

    async def _connect_socket(self, client: AsyncWebClient, app: AsyncApp, token: str) -> None:
        """Open the websocket, failing fast: slack_sdk would retry a rejected token forever."""
        try:
            opened = await client.apps_connections_open(app_token=token)
        except Exception as exc:
            raise _startup_error(exc, "SLACK_APP_TOKEN") from None
        from adapters.slack.socket import CheckedSocketMode  # Socket Mode's imports: only here

        self._socket = CheckedSocketMode(app, app_token=token, web_client=client)
        self._socket.client.wss_uri = str(opened["url"])  # the URL just issued, used at once
        try:
            await asyncio.wait_for(
                self._socket.connect_async(),  # type: ignore[no-untyped-call]
                CONNECT_SECONDS,
            )
        except TimeoutError:
            raise SurfaceUnavailable(
                f"could not open the Socket Mode websocket within {CONNECT_SECONDS:.0f} s"
            ) from None


def _rate_limited(exc: BaseException) -> bool:
    return any(error_code(e) in ("ratelimited", "http_429") for e in cause_chain(exc))


def _startup_error(exc: Exception, variable: str) -> ConfigError:
    code = error_code(exc)
    if code in _BAD_TOKEN:
        return ConfigError(f"{variable} was rejected by Slack ({code})")
    return SurfaceUnavailable(f"could not reach the Slack Web API at SLACK_API_URL ({code})")
