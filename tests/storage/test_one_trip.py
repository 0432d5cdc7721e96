"""`Engine.run_transaction`, the group commit's transaction: on SQLite all of it (BEGIN, its
statements, COMMIT) runs in one call on the writer's thread, so it must keep what a transaction
promises: committed together on success, nothing of it on failure, the writer usable afterwards.
On both backends (PostgreSQL runs it as an ordinary transaction). And the ordinary transaction's
own promise when its task is cancelled as it begins (a background job stopped at shutdown)."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from pg_server import look, on_both_backends

from bot.storage import Store
from bot.storage.engine import Conn

pytestmark = on_both_backends

ADD = "INSERT INTO teams (platform, team) VALUES ($1, $2)"
COUNT = "SELECT COUNT(*) FROM teams WHERE platform = 'trip'"


async def test_its_statements_commit_together_and_return_what_the_work_returns(
    db: Store, db_target: str
) -> None:
    async def work(tx: Conn) -> int:
        await tx.execute(ADD, "trip", "T1")
        await tx.executemany(ADD, [("trip", "T2"), ("trip", "T3")])
        return int(await tx.fetchval(COUNT))  # sees its own writes

    assert await db._engine.run_transaction(work) == 3
    assert await look(db_target, COUNT) == [(3,)]


async def test_a_failing_statement_leaves_nothing_and_the_next_one_commits(
    db: Store, db_target: str
) -> None:
    async def failing(tx: Conn) -> None:
        await tx.execute(ADD, "trip", "T1")
        await tx.execute(ADD, "trip", "T1")  # the same team twice: UNIQUE refuses it

    with pytest.raises(Exception, match=r"(?i)unique"):
        await db._engine.run_transaction(failing)
    assert await look(db_target, COUNT) == [(0,)]

    async def works(tx: Conn) -> None:
        await tx.execute(ADD, "trip", "T1")

    await db._engine.run_transaction(works)
    assert await look(db_target, COUNT) == [(1,)]


async def test_work_that_waits_for_anything_but_its_statements_is_refused_on_sqlite(
    db: Store, db_target: str
) -> None:
    """On SQLite the work runs on the writer's thread, where nothing else can be awaited: it is
    refused and rolled back rather than run half-way (PostgreSQL can wait, so it just runs)."""

    async def waits(tx: Conn) -> None:
        await tx.execute(ADD, "trip", "T1")
        await asyncio.sleep(0)
        await tx.execute(ADD, "trip", "T2")

    if db._engine.dialect == "sqlite":
        with pytest.raises(RuntimeError, match="awaited something"):
            await db._engine.run_transaction(waits)
        assert await look(db_target, COUNT) == [(0,)]
    else:
        await db._engine.run_transaction(waits)
        assert await look(db_target, COUNT) == [(2,)]


async def test_it_is_refused_inside_an_open_transaction(db: Store, db_target: str) -> None:
    async def work(tx: Conn) -> None:
        await tx.execute(ADD, "trip", "T1")

    with pytest.raises(RuntimeError, match="of its own"):
        async with db.transaction():
            await db._engine.run_transaction(work)
    assert await look(db_target, COUNT) == [(0,)]


async def test_a_transaction_cancelled_as_it_begins_leaves_the_writer_usable(
    db: Store, db_target: str
) -> None:
    """On SQLite the BEGIN runs on the writer's thread even once its caller is gone: the next
    transaction still starts, and nothing of the cancelled one is kept."""

    async def write(team: str) -> None:
        async with db._engine.transaction() as tx:
            await tx.execute(ADD, "trip", team)

    for _ in range(3):  # cancelled at its first wait: the BEGIN
        task = asyncio.create_task(write("lost"))
        await asyncio.sleep(0)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    await write("kept")
    assert await look(db_target, COUNT) == [(1,)]


async def test_a_script_whose_statement_ends_in_a_comment_runs_every_statement(
    db: Store, db_target: str
) -> None:
    """A schema step's statements go to PostgreSQL in one round trip: a `--` comment closing one
    statement must not swallow the separator before the next."""
    async with db._engine.transaction() as tx:
        await tx.script(
            [
                "CREATE TABLE trip_a (x INTEGER)\n-- a note on the last line",
                "CREATE TABLE trip_b (x INTEGER)",
            ]
        )
    assert await look(db_target, "SELECT COUNT(*) FROM trip_a") == [(0,)]
    assert await look(db_target, "SELECT COUNT(*) FROM trip_b") == [(0,)]


# Python 3.12 warns when a sequence is bound to numbered `?N` placeholders (3.14 refuses it).
@pytest.mark.filterwarnings("error:Binding .* is a named parameter:DeprecationWarning")
async def test_placeholders_out_of_order_or_used_twice_bind_by_their_number(
    db: Store, db_target: str
) -> None:
    """`($2, $1)` gets the second parameter then the first, and `$1` used twice the first at
    both places: in one trip and in statements one at a time (executemany's rows too)."""
    swapped = "INSERT INTO teams (team, platform) VALUES ($2, $1)"
    twice = "SELECT COUNT(*) FROM teams WHERE platform = $1 OR team = $1"

    async def work(tx: Conn) -> int:
        await tx.execute(swapped, "trip", "A")
        await tx.executemany(swapped, [("trip", "B"), ("trip", "C")])
        return int(await tx.fetchval(twice, "trip"))

    assert await db._engine.run_transaction(work) == 3
    async with db._engine.transaction() as tx:
        await tx.execute(swapped, "trip", "D")
        await tx.executemany(swapped, [("trip", "E")])
        assert await tx.fetchval(twice, "trip") == 5
    teams = "SELECT team FROM teams WHERE platform = $1 ORDER BY team"
    assert await look(db_target, teams, "trip") == [(c,) for c in "ABCDE"]
