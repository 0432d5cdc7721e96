"""The command set last registered with a platform is in the database, on both backends: another
Store on the same database (a replica, or the next start) reads what one recorded."""

from __future__ import annotations

from pg_server import on_both_backends

from bot.storage import Store

pytestmark = on_both_backends

GLOBAL = ("discord", "1234", "global")
GUILD = ("discord", "1234", "987654321")


async def test_a_recorded_hash_is_read_back_by_another_store_and_replaced(
    db: Store, db_target: str
) -> None:
    assert await db.command_syncs.last_digest(*GLOBAL) is None
    await db.command_syncs.record(*GLOBAL, "aaa")
    replica = await Store.open(db_target)
    try:
        assert await replica.command_syncs.last_digest(*GLOBAL) == "aaa"
        assert await replica.command_syncs.last_digest(*GUILD) is None  # each scope its own
        await replica.command_syncs.record(*GLOBAL, "bbb")  # the commands changed
        await replica.command_syncs.record(*GUILD, "ccc")
    finally:
        await replica.close()
    assert await db.command_syncs.last_digest(*GLOBAL) == "bbb"
    assert await db.command_syncs.last_digest(*GUILD) == "ccc"
    assert await db.command_syncs.last_digest("discord", "5678", "global") is None
