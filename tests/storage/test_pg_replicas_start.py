"""Replicas that start together on a new PostgreSQL database migrate it once, in turns."""

from __future__ import annotations

from pg_server import PgServer, open_at_once


async def test_five_replicas_opening_a_new_database_at_once_all_start(pg_server: PgServer) -> None:
    for _ in range(3):
        await open_at_once(pg_server.url(await pg_server.create_database()), 5)
