"""Team controls' state: a channel's answer window, a team's seasons, the audit log of admin
actions, and forgetting one person of a team.

A season is a row per start; the latest is current and older ones stay (the leaderboard totals
they counted are kept too, see totals.py). Forgetting deletes the person's rows outright in one
transaction, and drops them from the answer writer's cache of player ids (`evict`), so the next
click of theirs makes a new player.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from bot.model import ChannelRef, TeamRef
from bot.periods import from_ms, span_from_ms, span_ms, to_ms
from bot.storage.engine import Engine
from bot.storage.records import AuditRecord, Forgotten
from bot.storage.teams import channel_id, team_id


class WindowTable:
    def __init__(self, engine: Engine) -> None:
        self._e = engine

    async def get(self, channel: ChannelRef) -> timedelta | None:
        """The window an admin set for the channel; None: the default applies."""
        async with self._e.reader() as c:
            ms = await c.fetchval(
                """SELECT w.window_ms FROM channel_windows w
                   JOIN channels c ON c.id = w.channel_id JOIN teams t ON t.id = c.team_id
                   WHERE t.platform = $1 AND t.team = $2 AND c.channel = $3""",
                channel.platform,
                channel.team,
                channel.channel,
            )
        return span_from_ms(int(ms)) if ms is not None else None

    async def set(self, channel: ChannelRef, window: timedelta | None, now: datetime) -> None:
        """Set the channel's window; None goes back to the default."""
        async with self._e.transaction() as tx:
            cid = await channel_id(tx, channel)
            if window is None:
                await tx.execute("DELETE FROM channel_windows WHERE channel_id = $1", cid)
                return
            await tx.execute(
                """INSERT INTO channel_windows (channel_id, window_ms, updated_at)
                   VALUES ($1, $2, $3)
                   ON CONFLICT (channel_id) DO UPDATE SET
                       window_ms = excluded.window_ms, updated_at = excluded.updated_at""",
                cid,
                span_ms(window),
                to_ms(now),
            )


class SeasonTable:
    def __init__(self, engine: Engine) -> None:
        self._e = engine

    async def current(self, team: TeamRef) -> datetime | None:
        """When the team's current season began; None: no season was ever started."""
        async with self._e.reader() as c:
            ms = await c.fetchval(
                """SELECT MAX(s.started_at) FROM seasons s JOIN teams t ON t.id = s.team_id
                   WHERE t.platform = $1 AND t.team = $2""",
                team.platform,
                team.team,
            )
        return from_ms(int(ms)) if ms is not None else None

    async def zone(self, team: TeamRef) -> str:
        """The team's time zone (its leaderboards' weeks and months), UTC if never set."""
        async with self._e.reader() as c:
            tz = await c.fetchval(
                "SELECT tz FROM teams WHERE platform = $1 AND team = $2", team.platform, team.team
            )
        return str(tz) if tz is not None else "UTC"

    async def start(self, team: TeamRef, at: datetime) -> None:
        """A new season from `at` on; the earlier ones stay as history."""
        async with self._e.transaction() as tx:
            tid = await team_id(tx, team)
            await tx.execute(
                """INSERT INTO seasons (team_id, started_at) VALUES ($1, $2)
                   ON CONFLICT (team_id, started_at) DO NOTHING""",
                tid,
                to_ms(at),
            )


class AuditTable:
    def __init__(self, engine: Engine) -> None:
        self._e = engine

    async def add(
        self,
        channel: ChannelRef,
        actor: str,
        actor_name: str,
        action: str,
        detail: str,
        at: datetime,
    ) -> None:
        async with self._e.transaction() as tx:
            tid = await team_id(tx, TeamRef(channel.platform, channel.team))
            await tx.execute(
                """INSERT INTO audit_log (team_id, channel, actor, actor_name, action, detail, at)
                   VALUES ($1, $2, $3, $4, $5, $6, $7)""",
                tid,
                channel.channel,
                actor,
                actor_name,
                action,
                detail,
                to_ms(at),
            )

    async def recent(
        self, team: TeamRef, *, limit: int, offset: int = 0
    ) -> tuple[list[AuditRecord], int]:
        """The team's entries, newest first (`limit` of them after skipping `offset`), and how
        many there are in all."""
        async with self._e.snapshot() as c:
            tid = await c.fetchval(
                "SELECT id FROM teams WHERE platform = $1 AND team = $2", team.platform, team.team
            )
            if tid is None:
                return [], 0
            total = int(await c.fetchval("SELECT COUNT(*) FROM audit_log WHERE team_id = $1", tid))
            rows = await c.fetch(
                """SELECT id, channel, actor, actor_name, action, detail, at FROM audit_log
                   WHERE team_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3""",
                tid,
                limit,
                offset,
            )
        entries = [
            AuditRecord(
                id=int(r["id"]),
                channel=str(r["channel"]),
                actor=str(r["actor"]),
                actor_name=str(r["actor_name"]),
                action=str(r["action"]),
                detail=str(r["detail"]),
                at=from_ms(int(r["at"])),
            )
            for r in rows
        ]
        return entries, total


class PeopleTable:
    """Forgetting one person of one team (`/zeroquiz forget`)."""

    def __init__(self, engine: Engine, evict: Callable[[int, str], None]) -> None:
        """`evict(team id, platform user)` drops the answer writer's cached player id."""
        self._e = engine
        self._evict = evict

    async def held(self, team: TeamRef, user: str) -> Forgotten:
        """What `forget` would delete of the person now (all zero: nothing is stored)."""
        async with self._e.snapshot() as c:
            row = await c.fetchrow(
                """SELECT p.id,
                          (SELECT COUNT(*) FROM answers a WHERE a.player_id = p.id) AS answers,
                          (SELECT COUNT(*) FROM cards k WHERE k.player_id = p.id) AS cards,
                          (SELECT COUNT(*) FROM score_totals s WHERE s.player_id = p.id) AS totals
                   FROM players p JOIN teams t ON t.id = p.team_id
                   WHERE t.platform = $1 AND t.team = $2 AND p.platform_user = $3""",
                team.platform,
                team.team,
                user,
            )
        if row is None:
            return Forgotten()
        return Forgotten(
            answers=int(row["answers"]), cards=int(row["cards"]), totals=int(row["totals"]),
            players=1,
        )  # fmt: skip

    async def forget(self, team: TeamRef, user: str) -> Forgotten:
        """Delete the person's answers, review cards, leaderboard totals and player row (their
        name) in the team, in one transaction; the audit log keeps an admin's own actions but
        not their name. Rounds, reveals already posted and everyone else's totals stay."""
        async with self._e.transaction() as tx:
            found = await tx.fetchrow(
                """SELECT p.id, p.team_id FROM players p JOIN teams t ON t.id = p.team_id
                   WHERE t.platform = $1 AND t.team = $2 AND p.platform_user = $3""",
                team.platform,
                team.team,
                user,
            )
            await tx.execute(
                """UPDATE audit_log SET actor_name = '' WHERE actor = $1 AND team_id =
                       (SELECT id FROM teams WHERE platform = $2 AND team = $3)""",
                user,
                team.platform,
                team.team,
            )
            await tx.execute(  # their review reminder (bot/reminders.py), with its sends
                """DELETE FROM reminder_sends WHERE reminder_id IN (
                       SELECT r.id FROM reminders r JOIN teams t ON t.id = r.team_id
                       WHERE r.platform_user = $1 AND t.platform = $2 AND t.team = $3)""",
                user, team.platform, team.team,
            )  # fmt: skip
            await tx.execute(
                """DELETE FROM reminders WHERE platform_user = $1 AND team_id =
                       (SELECT id FROM teams WHERE platform = $2 AND team = $3)""",
                user, team.platform, team.team,
            )  # fmt: skip
            if found is None:
                return Forgotten()
            pid, tid = int(found["id"]), int(found["team_id"])
            totals = await tx.execute("DELETE FROM score_totals WHERE player_id = $1", pid)
            cards = await tx.execute("DELETE FROM cards WHERE player_id = $1", pid)
            await tx.execute("DELETE FROM reports WHERE player_id = $1", pid)
            answers = await tx.execute("DELETE FROM answers WHERE player_id = $1", pid)
            await tx.execute(
                """UPDATE runs SET started_by = NULL WHERE started_by = $1
                   AND channel_id IN (SELECT id FROM channels WHERE team_id = $2)""",
                user,
                tid,
            )
            players = await tx.execute("DELETE FROM players WHERE id = $1", pid)
        self._evict(tid, user)
        return Forgotten(answers=answers, cards=cards, totals=totals, players=players)
