"""Slack installations and OAuth states in the database, on both backends."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pg_server import on_both_backends

from bot.storage import Store
from bot.storage.installations import InstallationRecord

pytestmark = on_both_backends

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


async def test_installations_are_saved_replaced_found_and_deleted_per_workspace(db: Store) -> None:
    rows = db.installations
    await rows.save(InstallationRecord("TA", "", "sealed-a1", "BA", "UBA", "commands"), NOW)
    await rows.save(InstallationRecord("TB", "E1", "sealed-b", "BB", "UBB", "commands"), NOW)
    later = NOW + timedelta(days=1)
    await rows.save(InstallationRecord("TA", "", "sealed-a2", "BA", "UBA", "commands"), later)
    a = await rows.find(None, "TA")
    assert a is not None and a.bot_token_sealed == "sealed-a2" and a.installed_at == later
    assert (await rows.find("E1", "TB")) is not None
    assert await rows.find("E2", "TB") is None  # another enterprise's workspace of that id
    assert await rows.delete(None, "TA") == 1
    assert await rows.find(None, "TA") is None
    b = await rows.find(None, "TB")
    assert b is not None and b.bot_user_id == "UBB"


async def test_a_state_is_good_once_and_only_before_it_expires(db: Store) -> None:
    rows = db.installations
    await rows.issue_state("s1", NOW + timedelta(minutes=10))
    await rows.issue_state("s2", NOW + timedelta(minutes=10))
    assert await rows.consume_state("s1", NOW)
    assert not await rows.consume_state("s1", NOW)  # reused
    assert not await rows.consume_state("never-issued", NOW)
    assert not await rows.consume_state("s2", NOW + timedelta(minutes=11))  # expired


async def test_a_workspace_has_one_installation_whatever_enterprise_it_is_in_now(db: Store) -> None:
    """A workspace installed before it joined an Enterprise Grid: its row names no enterprise;
    found by team alone, and a re-install from inside the Grid replaces that row."""
    rows = db.installations
    await rows.save(InstallationRecord("TA", "", "sealed-a1", "BA", "UBA", "commands"), NOW)
    found = await rows.find(None, "TA")
    assert found is not None and found.enterprise == ""
    later = NOW + timedelta(hours=1)
    await rows.save(InstallationRecord("TA", "E1", "sealed-a2", "BA", "UBA", "commands"), later)
    assert [(r.team, r.enterprise, r.bot_token_sealed) for r in await rows.every()] == [
        ("TA", "E1", "sealed-a2")
    ]


async def test_a_token_is_sealed_again_only_if_nobody_changed_it_meanwhile(db: Store) -> None:
    rows = db.installations
    await rows.save(InstallationRecord("TA", "", "old-seal", "BA", "UBA", "commands"), NOW)
    read = await rows.find(None, "TA")
    assert read is not None
    assert await rows.reseal(read, "new-seal")
    assert not await rows.reseal(read, "newer-seal")  # what was read is no longer there
    again = await rows.find(None, "TA")
    assert again is not None and again.bot_token_sealed == "new-seal"


async def test_a_removal_deletes_only_an_installation_older_than_it(db: Store) -> None:
    rows = db.installations
    await rows.save(InstallationRecord("TA", "", "sealed-a", "BA", "UBA", "commands"), NOW)
    assert await rows.delete_installed_before("TA", NOW - timedelta(seconds=5)) == 0
    assert await rows.find(None, "TA") is not None
    assert await rows.delete_installed_before("TA", NOW + timedelta(seconds=5)) == 1
    assert await rows.find(None, "TA") is None


async def test_an_event_id_is_a_first_delivery_once_and_is_forgotten_after_a_day(
    db: Store,
) -> None:
    rows = db.installations
    assert await rows.first_delivery("Ev1", NOW)
    assert not await rows.first_delivery("Ev1", NOW + timedelta(minutes=30))  # Slack's retry
    assert await rows.first_delivery("Ev2", NOW)
    # A day on, the ids are swept: the table doesn't grow for ever.
    assert await rows.first_delivery("Ev1", NOW + timedelta(days=1, minutes=1))


async def test_a_signed_state_is_recorded_once_swept_when_expired_and_bounded(db: Store) -> None:
    """Signed states reach the database only when a redirect uses them: once each, expired rows
    swept at each use, and no more than `most` recorded at a time."""
    rows = db.installations
    soon, later = NOW + timedelta(minutes=5), NOW + timedelta(minutes=10)
    assert await rows.use_signed_state("a", soon, NOW, most=2)
    assert not await rows.use_signed_state("a", soon, NOW, most=2)  # used already
    assert await rows.use_signed_state("b", later, NOW, most=2)
    assert not await rows.use_signed_state("c", later, NOW, most=2)  # two recorded: the bound
    # Past "a"'s expiry it is swept, which leaves room for one more.
    assert await rows.use_signed_state("c", later, NOW + timedelta(minutes=6), most=2)
    assert not await rows.use_signed_state("b", later, NOW + timedelta(minutes=6), most=3)
