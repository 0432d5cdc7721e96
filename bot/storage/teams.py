"""Teams, channels and players: ids created on first sight, a channel's language, a team's zone."""

from __future__ import annotations

from datetime import datetime

from bot.model import ChannelRef, Lang, TeamRef, UserRef
from bot.periods import from_ms, period_start, to_ms
from bot.storage import insights, totals
from bot.storage.engine import Conn, Engine, Record


async def team_id(conn: Conn, team: TeamRef) -> int:
    found = await conn.fetchval(
        """INSERT INTO teams (platform, team) VALUES ($1, $2)
           ON CONFLICT (platform, team) DO UPDATE SET team = excluded.team RETURNING id""",
        team.platform,
        team.team,
    )
    return int(found)


async def channel_id(conn: Conn, channel: ChannelRef) -> int:
    tid = await team_id(conn, TeamRef(channel.platform, channel.team))
    found = await conn.fetchval(
        """INSERT INTO channels (team_id, channel) VALUES ($1, $2)
           ON CONFLICT (team_id, channel) DO UPDATE SET channel = excluded.channel RETURNING id""",
        tid,
        channel.channel,
    )
    return int(found)


class TeamTable:
    def __init__(self, engine: Engine) -> None:
        self._e = engine

    async def channel_id(self, channel: ChannelRef) -> int:
        """The channel's id, created (with its team) on first use."""
        async with self._e.transaction() as tx:
            return await channel_id(tx, channel)

    async def _channel(self, channel: ChannelRef) -> Record | None:
        async with self._e.snapshot() as c:
            return await c.fetchrow(
                """SELECT c.id, c.lang FROM channels c JOIN teams t ON t.id = c.team_id
                   WHERE t.platform = $1 AND t.team = $2 AND c.channel = $3""",
                channel.platform,
                channel.team,
                channel.channel,
            )

    async def find_channel(self, channel: ChannelRef) -> int | None:
        """The channel's id if it has been seen, without creating it."""
        row = await self._channel(channel)
        return int(row["id"]) if row is not None else None

    async def channel_lang(self, channel: ChannelRef) -> Lang:
        row = await self._channel(channel)
        return "id" if row is not None and row["lang"] == "id" else "en"

    async def last_played_lang(self, user: UserRef) -> Lang | None:
        """The language of the channel the person last answered in; None if they never did."""
        async with self._e.snapshot() as c:
            lang = await c.fetchval(
                """SELECT c.lang FROM answers a
                   JOIN players p ON p.id = a.player_id JOIN teams t ON t.id = p.team_id
                   JOIN rounds r ON r.id = a.round_id JOIN channels c ON c.id = r.channel_id
                   WHERE t.platform = $1 AND t.team = $2 AND p.platform_user = $3
                   ORDER BY a.answered_at DESC, a.round_id DESC LIMIT 1""",
                user.platform,
                user.team,
                user.user,
            )
        if lang is None:
            return None
        return "id" if lang == "id" else "en"

    async def set_channel_lang(self, channel: ChannelRef, lang: Lang) -> None:
        async with self._e.transaction() as tx:
            cid = await channel_id(tx, channel)
            await tx.execute("UPDATE channels SET lang = $1 WHERE id = $2", lang, cid)

    async def set_team_tz(self, team: TeamRef, tz: str, now: datetime) -> None:
        """Weeks and months follow the new zone at once: their totals are recounted from the
        answers of the current periods, in the same transaction."""
        async with self._e.transaction() as tx:
            tid = await team_id(tx, team)
            old = await tx.fetchval("SELECT tz FROM teams WHERE id = $1", tid)
            if old == tz:
                return
            await tx.execute("UPDATE teams SET tz = $1 WHERE id = $2", tz, tid)
            starts = [period_start(p, now, tz) for p in totals.BUCKETED]
            since = min(to_ms(s) for s in starts if s is not None)
            season = await tx.fetchval("SELECT " + totals.SEASON_OF.format(team="$1"), tid)
            await totals.rebuild_periods(tx, tid, tz, since_ms=since, season_ms=int(season or 0))
            # Insights compare a period with the one before: recount from the month before.
            before = period_start("month", from_ms(since - 1), tz)
            assert before is not None
            await insights.rebuild_periods(tx, tid, tz, since_ms=to_ms(before))

    async def rename_players(self, names: list[tuple[TeamRef, str, str]]) -> None:
        """Store the names leaderboards show (fetched after the answers, off the click path),
        many in one transaction."""
        rows = [(t.platform, user, name, t.team) for t, user, name in names if name]
        if not rows:
            return
        async with self._e.transaction() as tx:
            await tx.executemany(
                """UPDATE players SET display_name = $3
                   WHERE platform_user = $2 AND display_name != $3
                     AND team_id = (SELECT id FROM teams WHERE platform = $1 AND team = $4)""",
                rows,
            )

    async def forget_names(self, team: TeamRef) -> int:
        """Clear the display names stored for a team's players (the app was removed from it);
        players and their answers stay, so counts and totals keep adding up. Returns how many."""
        async with self._e.transaction() as tx:
            return await tx.execute(
                """UPDATE players SET display_name = ''
                   WHERE display_name != ''
                     AND team_id IN (SELECT id FROM teams WHERE platform = $1 AND team = $2)""",
                team.platform,
                team.team,
            )
