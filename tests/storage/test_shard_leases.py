"""Shard leases in the database: a shard is held by one live process at a time, across shard
counts too; a lease that is not renewed expires and can then be claimed by another."""

from __future__ import annotations

import itertools
import math
from datetime import UTC, datetime, timedelta

from pg_server import on_both_backends

from bot.storage import Store
from bot.storage.shards import overlaps

pytestmark = on_both_backends

BOT = 111000000000000002  # a snowflake: beyond 32 bits
TTL = timedelta(seconds=30)
T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def test_shards_overlap_exactly_when_some_guild_is_in_both() -> None:
    for m, n in itertools.product(range(1, 7), repeat=2):
        guilds = range(math.lcm(m, n))  # (guild_id >> 22) takes every residue
        for a, b in itertools.product(range(m), range(n)):
            shared = any(g % m == a and g % n == b for g in guilds)
            assert overlaps(a, m, b, n) is shared, (a, m, b, n)


async def test_a_live_lease_keeps_others_out_until_it_expires(db: Store) -> None:
    assert await db.shards.claim(BOT, 2, [0, 1], "first", T0, TTL) == []
    [zero, one] = await db.shards.claim(BOT, 1, [0], "second", T0 + timedelta(seconds=5), TTL)
    assert (zero.holder, zero.shard_id, zero.shard_count) == ("first", 0, 2)
    assert one.shard_id == 1 and one.expires_at == T0 + TTL
    # another bot's shards are its own
    assert await db.shards.claim(BOT + 1, 1, [0], "second", T0, TTL) == []

    # renewed, the lease lives on past its first expiry
    assert await db.shards.renew(BOT, "first", T0 + timedelta(seconds=20), TTL) == 2
    assert await db.shards.claim(BOT, 1, [0], "second", T0 + timedelta(seconds=40), TTL)
    # not renewed any more: once expired, a new holder takes it
    assert await db.shards.claim(BOT, 1, [0], "second", T0 + timedelta(seconds=50), TTL) == []
    # the old holder renews nothing: expired leases are not revived (shard 1 is the new
    # holder's too now, as part of all shards); claiming again is refused
    assert await db.shards.renew(BOT, "first", T0 + timedelta(seconds=51), TTL) == 0
    assert await db.shards.claim(BOT, 2, [0, 1], "first", T0 + timedelta(seconds=51), TTL)
    [live] = await db.shards.live(BOT, T0 + timedelta(seconds=51))
    assert (live.holder, live.shard_count) == ("second", 1)


async def test_a_claim_is_all_or_nothing_and_counts_may_differ(db: Store) -> None:
    assert await db.shards.claim(BOT, 4, [1], "a", T0, TTL) == []
    # shard 1 of 2 holds the guilds of shards 1 and 3 of 4: taken
    assert [t.holder for t in await db.shards.claim(BOT, 2, [0, 1], "b", T0, TTL)] == ["a"]
    assert [t.holder for t in await db.shards.live(BOT, T0)] == ["a"]  # b wrote nothing
    # shards 0, 2 and 3 of 4 share nothing with shard 1 of 4
    assert await db.shards.claim(BOT, 4, [0, 2, 3], "b", T0, TTL) == []
    # but every shard of 1 overlaps every other
    taken = await db.shards.claim(BOT, 1, [0], "c", T0, TTL)
    assert sorted((t.holder, t.shard_id) for t in taken) == [("a", 1), ("b", 0), ("b", 2), ("b", 3)]


async def test_a_released_lease_is_free_at_once_and_a_holder_may_claim_again(db: Store) -> None:
    assert await db.shards.claim(BOT, 2, [0], "a", T0, TTL) == []
    assert await db.shards.claim(BOT, 2, [0], "a", T0 + timedelta(seconds=1), TTL) == []
    await db.shards.release(BOT, "b")  # someone else's release changes nothing
    assert await db.shards.claim(BOT, 2, [0], "b", T0, TTL) != []
    await db.shards.release(BOT, "a")
    assert await db.shards.live(BOT, T0) == []
    assert await db.shards.claim(BOT, 2, [0], "b", T0, TTL) == []
