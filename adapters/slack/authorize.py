"""Bolt's authorisation of multi-workspace requests, with Bolt's own cache on.

With its cache off, Bolt authorises every command and click by reading the workspace's
installation and calling auth.test with the token found: a Slack call per request, spent on
nothing that changes. With `cache_enabled` it calls auth.test once per token. The installation
is still read for each request, so an uninstalled workspace is refused at once, and a token a
re-installation stored (by any replica) is new to the cache and checked. What the cache could keep
too long is a token Slack revoked while its installation is still stored (the removal event not
yet handled): a workspace's entries therefore go as soon as Slack rejects its token on any of our
calls (TeamTokens.rejected), when it is (re)installed or removed here, and the whole cache is
emptied every AUTH_TTL (which also bounds it: only tokens used since are kept).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from slack_bolt.authorization import AuthorizeResult
from slack_bolt.authorization.async_authorize import AsyncInstallationStoreAuthorize
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.installs import StoreInstallations

AUTH_TTL = timedelta(minutes=10)


class CachedAuthorize(AsyncInstallationStoreAuthorize):
    """AsyncInstallationStoreAuthorize (bot tokens only) with its cache on, bounded in time."""

    def __init__(
        self,
        store: StoreInstallations,
        client: AsyncWebClient,
        now: Callable[[], datetime],
        logger: logging.Logger,
    ) -> None:
        super().__init__(
            logger=logger,
            installation_store=store,
            bot_only=True,
            cache_enabled=True,
            client=client,
        )
        self._now = now
        self._emptied = now()
        store.changed.append(self.forget)

    async def __call__(self, **request: Any) -> AuthorizeResult | None:
        now = self._now()
        if not self._emptied <= now < self._emptied + AUTH_TTL:  # (or the clock went back)
            self.authorize_result_cache.clear()
            self._emptied = now
        return await super().__call__(**request)

    def forget(self, team: str) -> None:
        """The workspace's token changed or was rejected: check the one stored next time."""
        cache = self.authorize_result_cache
        for token in [token for token, result in cache.items() if result.team_id == team]:
            del cache[token]
