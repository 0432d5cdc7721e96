"""What copy, backup and restore carry comes from the schema: a table a new step adds is copied,
backed up and restored without anyone listing it, on both backends; what the steps leave out
(state of running processes, or of a platform) stays behind."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from pg_server import PgServer, look

from bot.clock import FakeClock
from bot.model import ChannelRef
from bot.quiz import Quiz
from bot.storage import Store
from bot.storage.backups import restore_backup, take_backup
from bot.storage.copy import Copied
from bot.storage.schema import SCHEMA, Spelling, Step

# Today's tables, in the order copies went before the list was derived (a table after those it
# references).
CARRIED = (
    "teams", "channels", "players", "runs", "rounds", "answers", "schedules", "daily_posts",
    "score_totals", "installations", "cards", "channel_windows", "seasons", "audit_log",
    "item_totals", "item_choices", "packs", "pack_versions", "channel_sources", "reports",
    "reminders", "reminder_sends",
)  # fmt: skip


def _packs(s: Spelling) -> tuple[str, ...]:
    return (
        f"""CREATE TABLE team_packs (
            id {s.id},
            team_id BIGINT NOT NULL REFERENCES teams(id),
            name TEXT NOT NULL
        )""",
    )


WITH_PACKS = SCHEMA.plus(
    Step(SCHEMA.version + 1, "a pack table, as a later release may add", _packs)
)
PACKS = [(1, "offload"), (2, "zeropp")]


async def test_this_releases_copy_carries_every_table_but_what_the_steps_leave_out(
    tmp_path: Path,
) -> None:
    path = tmp_path / "quiz.sqlite3"
    store = await Store.open(path)
    try:
        assert tuple(await store.counts()) == CARRIED
    finally:
        await store.close()
    left_out = {
        "shard_leases",
        "oauth_states",
        "command_syncs",
        "slack_events_seen",
        "command_receipts",
        "replicas",
    }
    assert left_out <= SCHEMA.not_copied
    # Every table the database has is carried, or left out by the step that made it (a table
    # made any other way, in a backfill say, would be dropped from backups unseen).
    every = {
        r[0] for r in await look(str(path), "SELECT name FROM sqlite_master WHERE type='table'")
    }
    assert every == {*CARRIED, *left_out, "schema_version"}


async def test_a_copied_round_is_not_claimed_by_a_replica_of_the_old_database(
    tmp_path: Path, make_quiz: Callable[..., Quiz], clock: FakeClock
) -> None:
    source = await Store.open(tmp_path / "source.sqlite3")
    target = await Store.open(tmp_path / "target.sqlite3")
    try:
        view = await make_quiz(source).rounds.start_round(ChannelRef("test", "T1", "C1"))
        assert view is not None
        lease = timedelta(minutes=5)
        assert await source.rounds.claim(view.round_id, "old-replica", clock.now(), lease)
        await source.copy_into(target)
        assert not await source.rounds.claim(view.round_id, "new-replica", clock.now(), lease)
        assert await target.rounds.claim(view.round_id, "new-replica", clock.now(), lease)
    finally:
        await source.close()
        await target.close()


async def packs_in(target: str) -> list[tuple[object, ...]]:
    return await look(target, "SELECT id, name FROM team_packs ORDER BY id")


async def test_a_table_a_new_step_adds_is_copied_backed_up_and_restored(
    tmp_path: Path, pg_server: PgServer
) -> None:
    source = tmp_path / "source.sqlite3"
    store = await Store.open(source, schema=WITH_PACKS)
    try:
        await store.teams.channel_id(ChannelRef("slack", "T1", "C1"))  # team 1
    finally:
        await store.close()
    with sqlite3.connect(source) as db:
        db.executemany("INSERT INTO team_packs (id, team_id, name) VALUES (?, 1, ?)", PACKS)
    assert await packs_in(str(source)) == PACKS

    url = pg_server.url(await pg_server.create_database())
    src, dst = await Store.open(source, schema=WITH_PACKS), await Store.open(url, schema=WITH_PACKS)
    try:
        copied = await src.copy_into(dst)
        assert copied[-1] == Copied("team_packs", 2)  # after the teams it references
        assert await dst.counts() == await src.counts()
        assert (await dst.counts())["team_packs"] == 2
    finally:
        await src.close()
        await dst.close()
    assert await packs_in(url) == PACKS
    # PostgreSQL's numbering of the new table goes on after the copied ids.
    [(fresh,)] = await look(
        url, "INSERT INTO team_packs (team_id, name) VALUES (1, 'x') RETURNING id"
    )
    assert fresh == 3

    for origin in (str(source), url):  # the SQLite backup API; rows out of PostgreSQL
        backup = tmp_path / f"backup-{len(list(tmp_path.glob('backup-*')))}.sqlite3"
        counts = await take_backup(origin, backup, schema=WITH_PACKS)
        assert counts["team_packs"] == (2 if origin == str(source) else 3)
        into_file = str(tmp_path / f"restored-{backup.stem}.sqlite3")
        into_pg = pg_server.url(await pg_server.create_database())
        for target in (into_file, into_pg):
            restored = await restore_backup(backup, target, replace=False, schema=WITH_PACKS)
            assert restored == counts
            assert (await packs_in(target))[:2] == PACKS
        # Replacing data deletes the new table's rows before the teams they reference.
        again = await restore_backup(backup, into_pg, replace=True, schema=WITH_PACKS)
        assert again == counts
        assert (await packs_in(into_pg))[:2] == PACKS
