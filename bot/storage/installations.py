"""Slack installations (one bot per workspace) and the one-time states of the OAuth flow.

The bot token is stored as the adapter hands it over: already sealed (adapters/slack/installs.py).
A state is consumed at most once: the UPDATE that marks it consumed is the check. A workspace has
one installation whatever its enterprise: Slack team ids are unique, and a workspace that joins an
Enterprise Grid (or leaves one) keeps its id, so a new install replaces the row of the old
enterprise. Removal events are acted on once per event_id (`first_delivery`), across replicas.
Signed states
(issued with no write at all, adapters/slack/installs.py) are recorded only when a redirect uses
them: the INSERT that records one is the check, the table is swept of expired rows at each use
and holds at most a given number, so no stranger can grow it without bound.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, NamedTuple

from bot.periods import from_ms, to_ms
from bot.storage.engine import Engine


class InstallationRecord(NamedTuple):
    team: str
    enterprise: str  # '' outside an Enterprise Grid
    bot_token_sealed: str = ""
    bot_id: str = ""
    bot_user_id: str = ""
    scopes: str = ""
    installed_at: datetime | None = None


EVENTS_KEPT = timedelta(days=1)  # Slack retries an event for about an hour at most


class InstallationTable:
    def __init__(self, engine: Engine) -> None:
        self._e = engine

    async def save(self, record: InstallationRecord, now: datetime) -> None:
        """Install or re-install (a new token replaces the old one, in any enterprise)."""
        async with self._e.transaction() as tx:
            await tx.execute(
                "DELETE FROM installations WHERE team = $1 AND enterprise <> $2",
                record.team,
                record.enterprise,
            )
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
        return None if row is None else _record(row)

    async def every(self) -> list[InstallationRecord]:
        """Every installation (the start-up key check and re-sealing read them all)."""
        async with self._e.reader() as c:
            rows = await c.fetch(
                """SELECT enterprise, team, bot_token_sealed, bot_id, bot_user_id, scopes,
                          installed_at
                   FROM installations ORDER BY installed_at DESC"""
            )
        return [_record(row) for row in rows]

    async def reseal(self, record: InstallationRecord, sealed: str) -> bool:
        """Replace the sealed token of `record` if it is still the one read (compare and swap:
        a re-install or another replica's re-sealing in between wins)."""
        async with self._e.transaction() as tx:
            changed = await tx.execute(
                """UPDATE installations SET bot_token_sealed = $1
                   WHERE enterprise = $2 AND team = $3 AND bot_token_sealed = $4""",
                sealed,
                record.enterprise,
                record.team,
                record.bot_token_sealed,
            )
        return changed == 1

    async def first_delivery(self, event_id: str, now: datetime) -> bool:
        """True the first time an event id is seen here (by any replica), False ever after
        (within EVENTS_KEPT: older ids are swept by the same transaction)."""
        async with self._e.transaction() as tx:
            await tx.execute(
                "DELETE FROM slack_events_seen WHERE seen_at < $1", to_ms(now - EVENTS_KEPT)
            )
            added = await tx.execute(
                """INSERT INTO slack_events_seen (event_id, seen_at) VALUES ($1, $2)
                   ON CONFLICT (event_id) DO NOTHING""",
                event_id,
                to_ms(now),
            )
        return added == 1

    async def delete(self, enterprise: str | None, team: str) -> int:
        """Forget a workspace's installation; how many rows went."""
        where, args = _key(enterprise, team)
        async with self._e.transaction() as tx:
            return await tx.execute(f"DELETE FROM installations WHERE {where}", *args)

    async def delete_installed_before(self, team: str, when: datetime) -> int:
        """Forget the workspace's installation only if it is older than `when` (a removal event
        from before a re-installation must not delete the new one); how many rows went."""
        async with self._e.transaction() as tx:
            return await tx.execute(
                "DELETE FROM installations WHERE team = $1 AND installed_at < $2",
                team,
                to_ms(when),
            )

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


def _record(row: Any) -> InstallationRecord:
    return InstallationRecord(
        team=str(row["team"]),
        enterprise=str(row["enterprise"]),
        bot_token_sealed=str(row["bot_token_sealed"]),
        bot_id=str(row["bot_id"]),
        bot_user_id=str(row["bot_user_id"]),
        scopes=str(row["scopes"]),
        installed_at=from_ms(int(row["installed_at"])),
    )


def _key(enterprise: str | None, team: str) -> tuple[str, tuple[str, ...]]:
    if enterprise is None:
        return "team = $1", (team,)
    return "team = $1 AND enterprise = $2", (team, enterprise)
