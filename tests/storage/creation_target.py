"""Run as a separate process by test_new_database.py: opens a database with this release's schema
and one step more, whose backfill says so on stdout and then waits (reading stdin, which the test
never writes) to be SIGKILLed, inside the migration's transaction."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Sequence

from bot.storage import Store
from bot.storage.engine import Conn
from bot.storage.schema import SCHEMA, Spelling, Step


def _later(s: Spelling) -> Sequence[str]:
    return ("CREATE TABLE later (x BIGINT NOT NULL)",)


async def _wait_to_be_killed(conn: Conn) -> None:
    # Awaits nothing (SQLite runs a new database's creation in one call on its thread): blocks.
    print("in the last step", flush=True)
    sys.stdin.readline()


WITH_A_STEP_MORE = SCHEMA.plus(
    Step(SCHEMA.version + 1, "a step killed half-way", _later, _wait_to_be_killed)
)


async def main(target: str) -> None:
    await Store.open(target, schema=WITH_A_STEP_MORE)
    print("opened: the kill came too late", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
