"""slack_sdk's async installation and OAuth-state stores, on ZeroQuiz's own database.

Bot tokens are sealed with Fernet (AES-128-CBC + HMAC-SHA256) under ZEROQUIZ_TOKEN_KEY before
they reach the database, so a copy of the database (a backup, a stolen disk) does not hand them
out; the running process, which holds the key, can of course still use them. Only bot-scope
installations are kept (Bolt runs with `installation_store_bot_only`).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta

from cryptography.fernet import Fernet, InvalidToken
from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore
from slack_sdk.oauth.installation_store.models.bot import Bot
from slack_sdk.oauth.installation_store.models.installation import Installation
from slack_sdk.oauth.state_store.async_state_store import AsyncOAuthStateStore

from adapters.runtime import ConfigError
from bot.storage.installations import InstallationRecord, InstallationTable

log = logging.getLogger(__name__)

STATE_TTL = timedelta(minutes=10)


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
    """One-time OAuth states in the `oauth_states` table, valid for STATE_TTL."""

    def __init__(self, installations: InstallationTable, now: Callable[[], datetime]) -> None:
        self._rows = installations
        self._now = now
        self._log = log

    @property
    def logger(self) -> logging.Logger:
        return self._log

    async def async_issue(self, *args: object, **kwargs: object) -> str:
        state = secrets.token_urlsafe(32)
        await self._rows.issue_state(state, self._now() + STATE_TTL)
        return state

    async def async_consume(self, state: str) -> bool:
        return await self._rows.consume_state(state, self._now())


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
