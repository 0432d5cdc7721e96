"""Replicas that start together on a new PostgreSQL database migrate it once, in turns."""

from __future__ import annotations

import asyncio

from pg_server import PgServer, look

from bot.storage import SCHEMA_VERSION, Store


async def test_five_replicas_opening_a_new_database_at_once_all_start(pg_server: PgServer) -> None:
    for _ in range(3):
        url = pg_server.url(await pg_server.create_database())
        stores = await asyncio.gather(*(Store.open(url) for _ in range(5)))
        try:
            assert [await s.counts() for s in stores] == [await stores[0].counts()] * 5
        finally:
            for store in stores:
                await store.close()
        assert await look(url, "SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]
