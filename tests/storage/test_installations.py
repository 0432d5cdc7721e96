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
