"""A task cancelled while its transaction begins (a background job stopped at shutdown) leaves
the database usable: the next transaction starts, and nothing of the cancelled one is kept. On
both backends; on SQLite the BEGIN runs on the writer's thread even once its caller is gone."""

from __future__ import annotations

import asyncio
import contextlib

from pg_server import look, on_both_backends

from bot.storage import Store

pytestmark = on_both_backends

ADD = "INSERT INTO teams (platform, team) VALUES ($1, $2)"
COUNT = "SELECT COUNT(*) FROM teams WHERE platform = 'cancel'"


async def test_a_transaction_cancelled_as_it_begins_leaves_the_writer_usable(
    db: Store, db_target: str
) -> None:
    async def write(team: str) -> None:
        async with db._engine.transaction() as tx:
            await tx.execute(ADD, "cancel", team)

    for _ in range(3):  # cancelled at its first wait: the BEGIN
        task = asyncio.create_task(write("lost"))
        await asyncio.sleep(0)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    await write("kept")
    assert await look(db_target, COUNT) == [(1,)]
