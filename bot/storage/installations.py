"""Slack installations (one bot per workspace) and the one-time states of the OAuth flow.

The bot token is stored as the adapter hands it over: already sealed (adapters/slack/installs.py).
A state is consumed at most once: the UPDATE that marks it consumed is the check. Signed states
(issued with no write at all, adapters/slack/installs.py) are recorded only when a redirect uses
them: the INSERT that records one is the check, the table is swept of expired rows at each use
and holds at most a given number, so no stranger can grow it without bound.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.periods import from_ms, to_ms
from bot.storage.engine import Engine


@dataclass(frozen=True)
class InstallationRecord:
    team: str
    enterprise: str  # '' outside an Enterprise Grid
    bot_token_sealed: str = ""
    bot_id: str = ""
    bot_user_id: str = ""
    scopes: str = ""
    installed_at: datetime | None = None


class InstallationTable:
    def __init__(self, engine: Engine) -> None:
        self._e = engine

    async def save(self, record: InstallationRecord, now: datetime) -> None:
        """Install or re-install (a new token replaces the old one)."""
        async with self._e.transaction() as tx:
            await tx.execute(
                """INSERT INTO installations
                       (enterprise, team, bot_token_sealed, bot_id, bot_user_id, scopes,
                        installed_at)
                   VALUES ($1, $2, $3, $4, $5, $6, $7)
                   ON CONFLICT (enterprise, team) DO UPDATE SET
                       bot_token_sealed = excluded.bot_token_sealed, bot_id = excluded.bot_id,
                       bot_user_id = excluded.bot_user_id, scopes = excluded.scopes,
                       installed_at = excluded.installed_at""",
                record.enterprise,
                record.team,
                record.bot_token_sealed,
                record.bot_id,
                record.bot_user_id,
                record.scopes,
                to_ms(now),
            )

    async def find(self, enterprise: str | None, team: str) -> InstallationRecord | None:
        """The workspace's installation; `enterprise` None: whichever enterprise it is in."""
        where, args = _key(enterprise, team)
        async with self._e.reader() as c:
            row = await c.fetchrow(
                f"""SELECT enterprise, team, bot_token_sealed, bot_id, bot_user_id, scopes,
                           installed_at
                    FROM installations WHERE {where} ORDER BY installed_at DESC""",
                *args,
            )
        if row is None:
            return None
        return InstallationRecord(
            team=str(row["team"]),
            enterprise=str(row["enterprise"]),
            bot_token_sealed=str(row["bot_token_sealed"]),
            bot_id=str(row["bot_id"]),
            bot_user_id=str(row["bot_user_id"]),
            scopes=str(row["scopes"]),
            installed_at=from_ms(int(row["installed_at"])),
        )

    async def delete(self, enterprise: str | None, team: str) -> int:
        """Forget a workspace's installation; how many rows went."""
        where, args = _key(enterprise, team)
        async with self._e.transaction() as tx:
            return await tx.execute(f"DELETE FROM installations WHERE {where}", *args)

    async def issue_state(self, state: str, expires_at: datetime) -> None:
        async with self._e.transaction() as tx:
            await tx.execute(
                "INSERT INTO oauth_states (state, expires_at, consumed) VALUES ($1, $2, 0)",
                state,
                to_ms(expires_at),
            )

    async def consume_state(self, state: str, now: datetime) -> bool:
        """True once for a state issued here and not expired; False ever after."""
        async with self._e.transaction() as tx:
            changed = await tx.execute(
                """UPDATE oauth_states SET consumed = 1
                   WHERE state = $1 AND consumed = 0 AND expires_at > $2""",
                state,
                to_ms(now),
            )
            await tx.execute("DELETE FROM oauth_states WHERE expires_at <= $1", to_ms(now))
        return changed == 1

    async def use_signed_state(
        self, state: str, expires_at: datetime, now: datetime, *, most: int
    ) -> bool:
        """True once for a signed state (already checked by its signature) before it expires;
        False ever after, and False while `most` unexpired states are recorded already."""
        async with self._e.transaction() as tx:
            await tx.execute("DELETE FROM oauth_states WHERE expires_at <= $1", to_ms(now))
            if int(await tx.fetchval("SELECT COUNT(*) FROM oauth_states")) >= most:
                return False
            added = await tx.execute(
                """INSERT INTO oauth_states (state, expires_at, consumed) VALUES ($1, $2, 1)
                   ON CONFLICT (state) DO NOTHING""",
                state,
                to_ms(expires_at),
            )
        return added == 1


def _key(enterprise: str | None, team: str) -> tuple[str, tuple[str, ...]]:
    if enterprise is None:
        return "team = $1", (team,)
    return "team = $1 AND enterprise = $2", (team, enterprise)
