"""slack_sdk's async installation and OAuth-state stores, on ZeroQuiz's own database.

Bot tokens are sealed with Fernet (AES-128-CBC + HMAC-SHA256) under ZEROQUIZ_TOKEN_KEY before
they reach the database, so a copy of the database (a backup, a stolen disk) does not hand them
out; the running process, which holds the key, can of course still use them. Only bot-scope
installations are kept (Bolt runs with `installation_store_bot_only`).

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
import logging
import secrets
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from urllib.parse import quote, urlencode

from cryptography.fernet import Fernet, InvalidToken
from slack_sdk.oauth.authorize_url_generator import AuthorizeUrlGenerator
from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore
from slack_sdk.oauth.installation_store.models.bot import Bot
from slack_sdk.oauth.installation_store.models.installation import Installation
from slack_sdk.oauth.state_store.async_state_store import AsyncOAuthStateStore

from adapters.runtime import ConfigError
from bot.storage.installations import InstallationRecord, InstallationTable

log = logging.getLogger(__name__)

STATE_TTL = timedelta(minutes=10)
# Used states kept to refuse a second use: each lives STATE_TTL, so this many installs can be
# under way at once (a few hundred bytes a row: the table stays under a few MiB).
MOST_USED_STATES = 10_000
_NONCE, _EXPIRY, _MAC = 16, 8, 16  # bytes in a signed state


def sealer(key: str) -> Fernet:
    """The Fernet of ZEROQUIZ_TOKEN_KEY; ConfigError (never the value) when it isn't one."""
    try:
        return Fernet(key.encode())
    except (ValueError, TypeError):
        raise ConfigError(
            "ZEROQUIZ_TOKEN_KEY is malformed (expected a Fernet key: 32 url-safe base64 bytes, "
            "made with `python -c 'from cryptography.fernet import Fernet; "
            "print(Fernet.generate_key().decode())'`)"
        ) from None


class StoreInstallations(AsyncInstallationStore):
    """Installations in the `installations` table, tokens sealed."""

    def __init__(
        self, installations: InstallationTable, fernet: Fernet, now: Callable[[], datetime]
    ) -> None:
        self._rows = installations
        self._fernet = fernet
        self._now = now
        self._log = log
        self.changed: list[Callable[[str], None]] = []  # told of each workspace (re)installed

    @property
    def logger(self) -> logging.Logger:
        return self._log

    def _changed(self, team: str) -> None:
        for listener in self.changed:
            listener(team)

    async def async_save(self, installation: Installation) -> None:
        if not installation.bot_token or not installation.team_id:
            raise ValueError("only workspace installations with a bot token are kept")
        await self._rows.save(
            InstallationRecord(
                team=installation.team_id,
                enterprise=installation.enterprise_id or "",
                bot_token_sealed=self._fernet.encrypt(installation.bot_token.encode()).decode(),
                bot_id=installation.bot_id or "",
                bot_user_id=installation.bot_user_id or "",
                scopes=",".join(installation.bot_scopes or []),
            ),
            self._now(),
        )
        self._changed(installation.team_id)
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
        if not team_id:
            return None
        row = await self._rows.find(enterprise_id, team_id)
        if row is None:
            return None
        try:
            token = self._fernet.decrypt(row.bot_token_sealed.encode()).decode()
        except InvalidToken:
            log.error("slack: the token of workspace %s does not open with this key", team_id)
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

    async def async_delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        if team_id:
            await self._rows.delete(enterprise_id, team_id)
            self._changed(team_id)

    async def async_delete_installation(
        self, *, enterprise_id: str | None, team_id: str | None, user_id: str | None = None
    ) -> None:
        if user_id is None:  # user tokens are never kept: only the whole workspace goes
            await self.async_delete_bot(enterprise_id=enterprise_id, team_id=team_id)

    async def async_delete_all(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        await self.async_delete_bot(enterprise_id=enterprise_id, team_id=team_id)


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

    async def uninstall(self, team: str) -> None:
        """app_uninstalled / tokens_revoked: the installation goes, and its cached token."""
        await self._store.async_delete_bot(enterprise_id=None, team_id=team)
