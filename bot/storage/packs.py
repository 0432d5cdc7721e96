"""A team's question packs and what each channel draws from.

A pack is one name per team; each `add` stores a new version of its YAML text, and every version
is kept, so a round or a review card that showed a question of an older version, or of a removed
pack, still finds exactly what it showed. Removing only stops the pack being drawn and listed.
Validation is the core's business (bot/bank): this table stores text it was given as valid.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal, NamedTuple

from bot.model import ChannelRef, TeamRef
from bot.periods import from_ms, to_ms
from bot.storage.engine import Engine, Record
from bot.storage.teams import channel_id, team_id

Source = Literal["bundled", "team", "both"]
SOURCES: tuple[Source, ...] = ("bundled", "team", "both")


class PackRecord(NamedTuple):
    """A pack's current version: its name, how many questions and templates, who added it."""

    id: int
    name: str
    version: int
    questions: int
    added_by: str
    added_at: datetime
    body: str


class PackLimitReached(NamedTuple):
    """The team already holds `limit` packs: a new name is refused (a known one is replaced)."""

    limit: int


class ChannelPacks(NamedTuple):
    """What a channel draws from: its source and its team's live packs as (pack id, version)."""

    source: Source
    packs: tuple[tuple[int, int], ...]


def _source(value: object) -> Source:
    for source in SOURCES:
        if value == source:
            return source
    return "both"


_CURRENT = """SELECT p.id, p.name, p.version, v.questions, v.added_by, v.added_at, v.body
    FROM packs p JOIN teams t ON t.id = p.team_id
    JOIN pack_versions v ON v.pack_id = p.id AND v.version = p.version
    WHERE t.platform = $1 AND t.team = $2 AND p.removed_at IS NULL"""


# A channel's source by its platform reference (no row, or no channel yet: both).
_SOURCE_OF_REF = """SELECT s.source FROM channel_sources s JOIN channels c ON c.id = s.channel_id
    JOIN teams t ON t.id = c.team_id WHERE t.platform = $1 AND t.team = $2 AND c.channel = $3"""


class PackTable:
    def __init__(self, engine: Engine) -> None:
        self._e = engine

    async def put(
        self,
        team: TeamRef,
        name: str,
        body: str,
        *,
        questions: int,
        added_by: str,
        at: datetime,
        max_packs: int,
    ) -> PackRecord | PackLimitReached:
        """Store `body` as the pack's next version (a new pack: version 1), in one transaction
        with the count of the team's packs, so two admins at once cannot pass the limit."""
        async with self._e.transaction() as tx:
            tid = await team_id(tx, team)
            row = await tx.fetchrow(
                "SELECT id, version, removed_at FROM packs WHERE team_id = $1 AND name = $2",
                tid,
                name,
            )
            if row is None or row["removed_at"] is not None:
                live = await tx.fetchval(
                    "SELECT COUNT(*) FROM packs WHERE team_id = $1 AND removed_at IS NULL", tid
                )
                if int(live) >= max_packs:
                    return PackLimitReached(max_packs)
            if row is None:
                pid = int(
                    await tx.fetchval(
                        """INSERT INTO packs (team_id, name, version) VALUES ($1, $2, 1)
                           RETURNING id""",
                        tid,
                        name,
                    )
                )
                version = 1
            else:
                pid, version = int(row["id"]), int(row["version"]) + 1
                await tx.execute(
                    "UPDATE packs SET version = $1, removed_at = NULL WHERE id = $2", version, pid
                )
            await tx.execute(
                """INSERT INTO pack_versions (pack_id, version, body, questions, added_by, added_at)
                   VALUES ($1, $2, $3, $4, $5, $6)""",
                pid,
                version,
                body,
                questions,
                added_by,
                to_ms(at),
            )
        return PackRecord(pid, name, version, questions, added_by, at, body)

    async def list(self, team: TeamRef) -> list[PackRecord]:
        """The team's live packs, by name."""
        async with self._e.snapshot() as c:
            rows = await c.fetch(_CURRENT + " ORDER BY p.name", team.platform, team.team)
        return [_record(r) for r in rows]

    async def get(self, team: TeamRef, name: str) -> PackRecord | None:
        async with self._e.snapshot() as c:
            row = await c.fetchrow(_CURRENT + " AND p.name = $3", team.platform, team.team, name)
        return _record(row) if row is not None else None

    async def remove(self, team: TeamRef, name: str, at: datetime) -> bool:
        """Stop drawing and listing the pack; its versions stay for what already showed them."""
        async with self._e.transaction() as tx:
            changed = await tx.execute(
                """UPDATE packs SET removed_at = $1
                   WHERE name = $2 AND removed_at IS NULL AND team_id =
                       (SELECT id FROM teams WHERE platform = $3 AND team = $4)""",
                to_ms(at),
                name,
                team.platform,
                team.team,
            )
        return changed > 0

    async def body(self, pack_id: int, version: int) -> str | None:
        """One version's text, removed or not: what a round or a card of it showed."""
        async with self._e.snapshot() as c:
            found = await c.fetchval(
                "SELECT body FROM pack_versions WHERE pack_id = $1 AND version = $2",
                pack_id,
                version,
            )
        return str(found) if found is not None else None

    async def for_channel(self, channel_id: int) -> ChannelPacks:
        """The channel's source and its team's live packs, in one snapshot."""
        async with self._e.snapshot() as c:
            source = await c.fetchval(
                "SELECT source FROM channel_sources WHERE channel_id = $1", channel_id
            )
            rows = await c.fetch(
                """SELECT p.id, p.version FROM packs p JOIN channels c ON c.team_id = p.team_id
                   WHERE c.id = $1 AND p.removed_at IS NULL ORDER BY p.id""",
                channel_id,
            )
        packs = tuple((int(r["id"]), int(r["version"])) for r in rows)
        return ChannelPacks(_source(source), packs)

    async def for_channel_ref(self, channel: ChannelRef) -> ChannelPacks:
        """The same for a channel that may not have been seen yet (nothing is created)."""
        async with self._e.snapshot() as c:
            source = await c.fetchval(
                _SOURCE_OF_REF,
                channel.platform,
                channel.team,
                channel.channel,
            )
            rows = await c.fetch(
                """SELECT p.id, p.version FROM packs p JOIN teams t ON t.id = p.team_id
                   WHERE t.platform = $1 AND t.team = $2 AND p.removed_at IS NULL
                   ORDER BY p.id""",
                channel.platform,
                channel.team,
            )
        packs = tuple((int(r["id"]), int(r["version"])) for r in rows)
        return ChannelPacks(_source(source), packs)

    async def source(self, channel: ChannelRef) -> Source:
        async with self._e.snapshot() as c:
            found = await c.fetchval(
                _SOURCE_OF_REF,
                channel.platform,
                channel.team,
                channel.channel,
            )
        return _source(found)

    async def set_source(self, channel: ChannelRef, source: Source) -> None:
        async with self._e.transaction() as tx:
            cid = await channel_id(tx, channel)
            await tx.execute(
                """INSERT INTO channel_sources (channel_id, source) VALUES ($1, $2)
                   ON CONFLICT (channel_id) DO UPDATE SET source = excluded.source""",
                cid,
                source,
            )


def _record(r: Record) -> PackRecord:
    return PackRecord(
        id=int(r["id"]),
        name=str(r["name"]),
        version=int(r["version"]),
        questions=int(r["questions"]),
        added_by=str(r["added_by"]),
        added_at=from_ms(int(r["added_at"])),
        body=str(r["body"]),
    )
