"""slack_sdk's async installation and OAuth-state stores, on ZeroQuiz's own database.

Bot tokens are sealed (sealing.py: Fernet, bound to their workspace) under ZEROQUIZ_TOKEN_KEY
before they reach the database, so a copy of the database (a backup, a stolen disk) does not hand
them out, and a sealed token moved to another workspace's row is refused; the running process,
which holds the key, can of course still use them. Only bot-scope installations of one workspace
are kept (Bolt runs with `installation_store_bot_only`): an org-wide Enterprise Grid install is
refused (OrgInstall), and a workspace is found by its team id whatever enterprise a request
names, so one installed before it joined a Grid keeps working.

OAuth states are signed, not stored: `/slack/install`, which anyone may open, writes nothing.
A state is 16 random bytes, its expiry and an HMAC-SHA256 of both under a key derived from the
client secret (so every replica checks every other's states); a redirect with a state whose MAC,
or expiry, doesn't hold is refused before any database is asked, and one that holds is recorded
as used (oauth_states, swept and bounded) so it can't be used twice.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import logging
import secrets
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from urllib.parse import quote, urlencode

from slack_bolt.error import BoltError
from slack_bolt.oauth.async_callback_options import (
    AsyncCallbackOptions,
    AsyncFailureArgs,
    AsyncSuccessArgs,
)
from slack_bolt.response import BoltResponse
from slack_sdk.oauth.authorize_url_generator import AuthorizeUrlGenerator
from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore
from slack_sdk.oauth.installation_store.models.bot import Bot
from slack_sdk.oauth.installation_store.models.installation import Installation
from slack_sdk.oauth.state_store.async_state_store import AsyncOAuthStateStore
from slack_sdk.web.async_client import AsyncWebClient

from adapters.runtime import ConfigError
from adapters.slack.sealing import VARIABLE, Moved, Sealer, Unopenable
from adapters.slack.web import error_code
from bot.i18n import t
from bot.storage.installations import InstallationRecord, InstallationTable

log = logging.getLogger(__name__)

STATE_TTL = timedelta(minutes=10)
# Slack's event_time is whole seconds, and its clock and ours differ a little (NTP): a removal
# event counts as older than the installation only when it is older by more than this.
REMOVAL_SKEW = timedelta(seconds=2)
# Used states kept to refuse a second use: each lives STATE_TTL, so this many installs can be
# under way at once (a few hundred bytes a row: the table stays under a few MiB).
MOST_USED_STATES = 10_000
_NONCE, _EXPIRY, _MAC = 16, 8, 16  # bytes in a signed state


def sealer(key: str) -> Sealer:
    """The keys of ZEROQUIZ_TOKEN_KEY; ConfigError (never a value) when one isn't a key."""
    return Sealer.from_setting(key)


class OrgInstall(BoltError):
    """An org-wide install of an Enterprise Grid org: ZeroQuiz serves one workspace per
    installation (its rounds, scores and admins are a workspace's), so it is refused."""

    def __init__(self, enterprise: str, token: str | None) -> None:
        super().__init__(f"org-wide install of enterprise {enterprise} refused")
        self.enterprise = enterprise
        self.token = token  # so the refusing page can uninstall it again; never in the message


class StoreInstallations(AsyncInstallationStore):
    """Installations in the `installations` table, tokens sealed."""

    def __init__(
        self, installations: InstallationTable, sealer: Sealer, now: Callable[[], datetime]
    ) -> None:
        self._rows = installations
        self._sealer = sealer
        self._now = now
        self._log = log
        # Told of each workspace (re)installed or removed, or whose token Slack rejected.
        self.changed: list[Callable[[str], None]] = []

    @property
    def logger(self) -> logging.Logger:
        return self._log

    def tell(self, team: str) -> None:
        """The workspace's token changed, went, or was rejected: every cache of it forgets it."""
        for listener in self.changed:
            listener(team)

    async def async_save(self, installation: Installation) -> None:
        if installation.is_enterprise_install or not installation.team_id:
            log.warning(
                "slack: refused an org-wide install of enterprise %s", installation.enterprise_id
            )
            raise OrgInstall(installation.enterprise_id or "?", installation.bot_token)
        if not installation.bot_token:
            raise BoltError("only installations with a bot token are kept")
        team = installation.team_id
        await self._rows.save(
            InstallationRecord(
                team=team,
                enterprise=installation.enterprise_id or "",
                bot_token_sealed=self._sealer.seal(team, installation.bot_token),
                bot_id=installation.bot_id or "",
                bot_user_id=installation.bot_user_id or "",
                scopes=",".join(installation.bot_scopes or []),
            ),
            self._now(),
        )
        self.tell(installation.team_id)
        log.info("slack: workspace %s installed ZeroQuiz", installation.team_id)

    async def async_save_bot(self, bot: Bot) -> None:
        raise NotImplementedError("installations are saved whole (async_save)")

    async def async_find_bot(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        is_enterprise_install: bool | None = False,
    ) -> Bot | None:
        if not team_id:  # an org-wide install's request: never installed here (OrgInstall)
            return None
        # By team id alone: a workspace installed before it joined a Grid has no enterprise in
        # its row, yet its requests now name one (team ids are unique across Slack).
        row = await self._rows.find(None, team_id)
        if row is None:
            return None
        token = await self._open(row)
        if token is None:
            return None
        return Bot(
            enterprise_id=row.enterprise or None,
            team_id=row.team,
            bot_token=token,
            bot_id=row.bot_id,
            bot_user_id=row.bot_user_id,
            bot_scopes=row.scopes,
            installed_at=(row.installed_at or self._now()).timestamp(),
        )

    async def _open(self, row: InstallationRecord) -> str | None:
        """The row's token, sealed again with the first key if it was stale; None (and an
        error line) when it must not be used."""
        try:
            opened = self._sealer.open(row.team, row.bot_token_sealed)
        except Unopenable:
            log.error("slack: the token of workspace %s does not open with this key", row.team)
            return None
        except Moved:
            log.error(
                "slack: the token in the row of workspace %s was sealed for another workspace: "
                "refused",
                row.team,
            )
            return None
        if opened.stale:
            await self._reseal(row, opened.token)
        return opened.token

    async def _reseal(self, row: InstallationRecord, token: str) -> bool:
        try:
            return await self._rows.reseal(row, self._sealer.seal(row.team, token))
        except Exception as exc:  # the token opened: using it needs no re-sealing
            log.warning("slack: re-sealing the token of %s failed: %s", row.team, exc)
            return False

    async def check_keys(self) -> int:
        """At start-up: ZEROQUIZ_TOKEN_KEY opens the stored tokens (ConfigError naming the
        variable when it opens none of them), and every stale one is sealed again with the first
        key (so the older keys can be dropped). How many were re-sealed."""
        rows = await self._rows.every()
        opened = resealed = 0
        for row in rows:
            try:
                found = self._sealer.open(row.team, row.bot_token_sealed)
            except Unopenable:
                continue
            except Moved:
                opened += 1  # the key is right; the row is refused when it is used
                continue
            opened += 1
            if found.stale and await self._reseal(row, found.token):
                resealed += 1
        if rows and not opened:
            raise ConfigError(
                f"{VARIABLE} opens none of the {len(rows)} stored Slack bot tokens (a wrong key? "
                f"when rotating, list the new key first and keep the old one after it)"
            )
        if opened < len(rows):
            log.error(
                "slack: %d of %d stored bot tokens do not open with %s: those workspaces must "
                "install again",
                len(rows) - opened, len(rows), VARIABLE,
            )  # fmt: skip
        if resealed:
            log.info("slack: sealed %d stored bot tokens again with the first key", resealed)
        return resealed

    async def remove(self, team: str, *, event_id: str | None, sent_at: datetime | None) -> bool:
        """app_uninstalled / tokens_revoked: delete the workspace's installation, unless this
        event was acted on before (the same event_id, by any replica) or was sent before the
        installation now stored (a late retry from before a re-install). Whether it was acted on.
        """
        if event_id is not None and not await self._rows.first_delivery(event_id, self._now()):
            log.info("slack: removal event %s of %s was handled before: ignored", event_id, team)
            return False
        if sent_at is None:
            await self._rows.delete(None, team)
        elif not await self._rows.delete_installed_before(team, sent_at + REMOVAL_SKEW):
            row = await self._rows.find(None, team)
            if row is not None:  # installed (again) after the event was sent
                log.info("slack: a removal event of %s older than its installation: ignored", team)
                return False
        self.tell(team)
        return True

    async def async_delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        if team_id:
            await self._rows.delete(enterprise_id, team_id)
            self.tell(team_id)

    async def async_delete_installation(
        self, *, enterprise_id: str | None, team_id: str | None, user_id: str | None = None
    ) -> None:
        if user_id is None:  # user tokens are never kept: only the whole workspace goes
            await self.async_delete_bot(enterprise_id=enterprise_id, team_id=team_id)

    async def async_delete_all(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        await self.async_delete_bot(enterprise_id=enterprise_id, team_id=team_id)


def install_callbacks(
    client: AsyncWebClient, client_id: str, client_secret: str
) -> AsyncCallbackOptions:
    """Bolt's pages after the OAuth redirect, with one more: an org-wide install is refused on a
    page that says why (not HTTP 500), and uninstalled again so Slack doesn't list it."""

    async def success(args: AsyncSuccessArgs) -> BoltResponse:
        return await args.default.success(args)

    async def failure(args: AsyncFailureArgs) -> BoltResponse:
        if not isinstance(args.error, OrgInstall):
            return await args.default.failure(args)
        if args.error.token:
            try:
                await client.apps_uninstall(
                    client_id=client_id, client_secret=client_secret, token=args.error.token
                )
            except Exception as exc:
                log.warning("slack: uninstalling the refused org-wide install: %s", error_code(exc))
        title, text = t("en", "slack_org_install_title"), t("en", "slack_org_install_refused")
        page = (
            f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            f"</title></head><body><h2>{html.escape(title)}</h2><p>{html.escape(text)}</p>"
            "</body></html>"
        )
        return BoltResponse(
            status=400, body=page, headers={"Content-Type": "text/html; charset=utf-8"}
        )

    return AsyncCallbackOptions(success=success, failure=failure)


class StoreStates(AsyncOAuthStateStore):
    """Signed, expiring OAuth states: issuing one costs no write; using one records it once."""

    def __init__(
        self,
        installations: InstallationTable,
        secret: str,
        now: Callable[[], datetime],
        *,
        most: int = MOST_USED_STATES,
    ) -> None:
        self._rows = installations
        self._key = hmac.new(secret.encode(), b"zeroquiz oauth state v1", hashlib.sha256).digest()
        self._now = now
        self._most = most
        self._log = log

    @property
    def logger(self) -> logging.Logger:
        return self._log

    def _mac(self, body: bytes) -> bytes:
        return hmac.new(self._key, body, hashlib.sha256).digest()[:_MAC]

    async def async_issue(self, *args: object, **kwargs: object) -> str:
        expires = int((self._now() + STATE_TTL).timestamp())
        body = secrets.token_bytes(_NONCE) + expires.to_bytes(_EXPIRY, "big")
        return base64.urlsafe_b64encode(body + self._mac(body)).decode().rstrip("=")

    def expiry(self, state: str) -> datetime | None:
        """When a state issued here expires; None for one not issued here (or malformed)."""
        try:
            raw = base64.urlsafe_b64decode(state + "=" * (-len(state) % 4))
        except (ValueError, TypeError):
            return None
        if len(raw) != _NONCE + _EXPIRY + _MAC:
            return None
        body, mac = raw[: _NONCE + _EXPIRY], raw[_NONCE + _EXPIRY :]
        if not hmac.compare_digest(mac, self._mac(body)):
            return None
        return datetime.fromtimestamp(int.from_bytes(body[_NONCE:], "big"), UTC)

    async def async_consume(self, state: str) -> bool:
        expires = self.expiry(state)
        now = self._now()
        if expires is None or expires <= now:
            return False
        used = await self._rows.use_signed_state(state, expires, now, most=self._most)
        if not used:
            log.info("slack: refused an OAuth redirect whose state was used already")
        return used


class EncodedAuthorizeUrl(AuthorizeUrlGenerator):
    """slack_sdk's authorize URL with every value URL-encoded: `/slack/install?team=` is the
    visitor's text, pasted as it is by slack_sdk (an `&` in it would add parameters)."""

    def generate(self, state: str, team: str | None = None) -> str:
        params = {
            "state": state,
            "client_id": self.client_id,
            "scope": ",".join(self.scopes or []),
            "user_scope": ",".join(self.user_scopes or []),
        }
        if self.redirect_uri is not None:
            params["redirect_uri"] = self.redirect_uri
        if team is not None:
            params["team"] = team
        return f"{self.authorization_url}?{urlencode(params, quote_via=quote, safe=',')}"


class TeamTokens:
    """Each workspace's bot token, read from the store once and kept in memory until the
    workspace uninstalls (or installs anew), so posting never waits for the database twice."""

    def __init__(self, store: StoreInstallations) -> None:
        self._store = store
        self._tokens: dict[str, str] = {}
        store.changed.append(self.forget)

    async def __call__(self, team: str) -> str | None:
        token = self._tokens.get(team)
        if token is None:
            bot = await self._store.async_find_bot(enterprise_id=None, team_id=team)
            if bot is None or not bot.bot_token:
                return None
            token = self._tokens[team] = bot.bot_token
        return token

    def forget(self, team: str) -> None:
        self._tokens.pop(team, None)

    async def rejected(self, team: str, token: str) -> str | None:
        """Slack refused `token` (invalid_auth, token_revoked, account_inactive): forget it and
        read the workspace's token from the database again, where another replica may have
        stored a re-installation's. The new token, or None if there is no other. Bolt's cached
        authorisation of the workspace goes too (authorize.py): its next request is checked."""
        self._store.tell(team)
        fresh = await self(team)
        return fresh if fresh is not None and fresh != token else None

    async def uninstall(
        self, team: str, event_id: str | None = None, sent_at: datetime | None = None
    ) -> bool:
        """app_uninstalled / tokens_revoked: the installation goes, and its cached token,
        unless the event is a repeat or older than the installation (StoreInstallations.remove).
        """
        return await self._store.remove(team, event_id=event_id, sent_at=sent_at)
