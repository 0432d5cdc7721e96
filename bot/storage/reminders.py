"""Review reminders (bot/reminders.py) and each local day's send of one.

A day's send is claimed (unique per reminder and local date) before the direct message leaves and
marked after, as daily postings are (daily.py): whoever inserts the claim sends; a claim a crashed
process left is taken over by compare-and-swap on its token once its lease runs out.
"""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Literal, NamedTuple

from bot.daily.spec import days_from_code
from bot.model import Lang, TeamRef, UserRef
from bot.periods import from_ms, to_ms
from bot.storage.engine import Engine, Record
from bot.storage.replicas import SILENT_HOLDER, last_beat_of_holders
from bot.storage.teams import team_id

SendStatus = Literal["claimed", "sent", "empty", "skipped", "failed"]


class ReminderRecord(NamedTuple):
    id: int
    user: UserRef
    lang: Lang
    at: time
    tz: str
    days: frozenset[int]  # Monday = 0
    updated_at: datetime


class ReminderClaim(NamedTuple):
    """A send claimed and not finished: who holds it (`token`) and since when."""

    reminder_id: int
    day: date
    token: str
    claimed_at: datetime
    cards: int


_SELECT = """
    SELECT r.id, t.platform, t.team, r.platform_user, r.lang, r.local_time, r.tz, r.days,
           r.updated_at
    FROM reminders r JOIN teams t ON t.id = r.team_id
"""


def _reminder(row: Record) -> ReminderRecord:
    hh, mm = str(row["local_time"]).split(":")
    return ReminderRecord(
        id=int(row["id"]),
        user=UserRef(str(row["platform"]), str(row["team"]), str(row["platform_user"])),
        lang="id" if row["lang"] == "id" else "en",
        at=time(int(hh), int(mm)),
        tz=str(row["tz"]),
        days=days_from_code(str(row["days"])),
        updated_at=from_ms(int(row["updated_at"])),
    )


class ReminderTable:
    def __init__(self, engine: Engine) -> None:
        self._e = engine

    async def count(self, user: UserRef) -> tuple[int, bool]:
        """(active reminders in the person's team, whether one of them is the person's), read in
        the caller's transaction so a cap on them holds against commands at once (on PostgreSQL
        the team row is locked: reminders set at once in one team count in turn)."""
        async with self._e.transaction() as tx:
            tid = await team_id(tx, TeamRef(user.platform, user.team))
            if tx.dialect == "postgres":
                await tx.fetchval("SELECT id FROM teams WHERE id = $1 FOR UPDATE", tid)
            row = await tx.fetchrow(
                """SELECT COUNT(*) AS n,
                          COALESCE(SUM(CASE WHEN platform_user = $2 THEN 1 ELSE 0 END), 0) AS mine
                   FROM reminders WHERE team_id = $1 AND active = 1""",
                tid,
                user.user,
            )
        assert row is not None
        return int(row["n"]), int(row["mine"]) > 0

    async def put(
        self, user: UserRef, lang: Lang, at: time, tz: str, days: str, now: datetime
    ) -> None:
        """Set (or change) the person's reminder in their team."""
        async with self._e.transaction() as tx:
            tid = await team_id(tx, TeamRef(user.platform, user.team))
            await tx.execute(
                """INSERT INTO reminders (team_id, platform_user, lang, local_time, tz, days,
                                          active, updated_at)
                   VALUES ($1, $2, $3, $4, $5, $6, 1, $7)
                   ON CONFLICT (team_id, platform_user) DO UPDATE SET lang = excluded.lang,
                       local_time = excluded.local_time, tz = excluded.tz, days = excluded.days,
                       active = 1, updated_at = excluded.updated_at""",
                tid, user.user, lang, at.strftime("%H:%M"), tz, days, to_ms(now),
            )  # fmt: skip

    async def of(self, user: UserRef) -> ReminderRecord | None:
        """The person's active reminder in their team."""
        async with self._e.snapshot() as c:
            row = await c.fetchrow(
                _SELECT
                + """ WHERE r.active = 1 AND t.platform = $1 AND t.team = $2
                              AND r.platform_user = $3""",
                user.platform,
                user.team,
                user.user,
            )
        return _reminder(row) if row is not None else None

    async def off(self, user: UserRef, now: datetime) -> bool:
        async with self._e.transaction() as tx:
            changed = await tx.execute(
                """UPDATE reminders SET active = 0, updated_at = $1
                   WHERE active = 1 AND platform_user = $2 AND team_id =
                       (SELECT id FROM teams WHERE platform = $3 AND team = $4)""",
                to_ms(now), user.user, user.platform, user.team,
            )  # fmt: skip
        return changed == 1

    async def off_team(self, team: TeamRef, now: datetime) -> int:
        """Stop every reminder in a team (the app was removed from it)."""
        async with self._e.transaction() as tx:
            return await tx.execute(
                """UPDATE reminders SET active = 0, updated_at = $1 WHERE active = 1 AND team_id =
                       (SELECT id FROM teams WHERE platform = $2 AND team = $3)""",
                to_ms(now), team.platform, team.team,
            )  # fmt: skip

    async def active(self, platforms: frozenset[str]) -> list[ReminderRecord]:
        """Every active reminder on the platforms this process serves."""
        if not platforms:
            return []
        names = sorted(platforms)
        marks = ", ".join(f"${n + 1}" for n in range(len(names)))
        async with self._e.snapshot() as c:
            rows = await c.fetch(
                _SELECT + f" WHERE r.active = 1 AND t.platform IN ({marks}) ORDER BY r.id", *names
            )
        return [_reminder(r) for r in rows]

    async def days_done(self, reminder_ids: list[int], since: date) -> set[tuple[int, date]]:
        """(reminder, local date) of every send claimed or finished on or after `since`."""
        if not reminder_ids:
            return set()
        async with self._e.snapshot() as c:
            rows = await c.fetch(
                "SELECT reminder_id, local_date FROM reminder_sends WHERE local_date >= $1",
                since.isoformat(),
            )
        wanted = set(reminder_ids)
        return {
            (int(r["reminder_id"]), date.fromisoformat(str(r["local_date"])))
            for r in rows
            if int(r["reminder_id"]) in wanted
        }

    async def claim(
        self,
        reminder_id: int,
        day: date,
        token: str,
        now: datetime,
        status: SendStatus,
        cards: int = 0,
        detail: str | None = None,
    ) -> bool:
        """Claim (or record as done without a message) one reminder's day; False if anyone
        did so before."""
        async with self._e.transaction() as tx:
            changed = await tx.execute(
                """INSERT INTO reminder_sends
                       (reminder_id, local_date, status, claim_token, claimed_at, cards, detail)
                   VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING""",
                reminder_id, day.isoformat(), status, token, to_ms(now), cards, detail,
            )  # fmt: skip
        return changed == 1

    async def take_over(
        self, reminder_id: int, day: date, old: str, new: str, now: datetime
    ) -> bool:
        """Take over a claim a crashed process left; only one taker can win."""
        async with self._e.transaction() as tx:
            changed = await tx.execute(
                """UPDATE reminder_sends SET claim_token = $1, claimed_at = $2
                   WHERE reminder_id = $3 AND local_date = $4 AND claim_token = $5
                     AND status = 'claimed'""",
                new, to_ms(now), reminder_id, day.isoformat(), old,
            )  # fmt: skip
        return changed == 1

    async def finish(
        self, reminder_id: int, day: date, token: str, status: SendStatus, detail: str | None
    ) -> None:
        async with self._e.transaction() as tx:
            await tx.execute(
                """UPDATE reminder_sends SET status = $1, detail = $2
                   WHERE reminder_id = $3 AND local_date = $4 AND claim_token = $5""",
                status, detail, reminder_id, day.isoformat(), token,
            )  # fmt: skip

    async def stale_claims(
        self,
        before: datetime,
        own: str = "",
        started: datetime | None = None,
        silent_since: datetime | None = None,
    ) -> list[ReminderClaim]:
        """Claims left unfinished since before `before` (their holder died), those whose token
        starts with `own` made before `started` (this replica's before it restarted), and those
        whose holder has not been seen since `silent_since` (bot/liveness.py)."""
        async with self._e.snapshot() as c:
            rows = await c.fetch(
                f"""SELECT reminder_id, local_date, claim_token, claimed_at, cards
                   FROM reminder_sends p WHERE status = 'claimed' AND (claimed_at <= $1
                       OR ($2 != '' AND substr(claim_token, 1, length($2)) = $2
                           AND claimed_at < $3)
                       OR {SILENT_HOLDER.format(bound="$4")})""",
                to_ms(before),
                own,
                to_ms(started or before),
                to_ms(silent_since) if silent_since is not None else -1,
            )
        return [
            ReminderClaim(
                int(r["reminder_id"]),
                date.fromisoformat(str(r["local_date"])),
                str(r["claim_token"]),
                from_ms(int(r["claimed_at"])),
                int(r["cards"]),
            )
            for r in rows
        ]

    async def oldest_claim(self) -> datetime | None:
        async with self._e.snapshot() as c:
            found = await c.fetchval(
                "SELECT MIN(claimed_at) FROM reminder_sends WHERE status = 'claimed'"
            )
        return from_ms(int(found)) if found is not None else None

    async def holders_last_beat(self, own: str) -> datetime | None:
        """The earliest last beat of another replica holding a claim (bot/liveness.py)."""
        async with self._e.snapshot() as c:
            return await last_beat_of_holders(c, "reminder_sends", own)
