"""Nothing waits on PostgreSQL without end (issue 34): a statement blocked behind another
connection's lock ends at the statement timeout, and a server that accepts connections but never
answers at the connect timeout, each as DatabaseTimeout (a StorageError, one line without the
password), logged, and reported to the store's observer (what `/metrics` counts). The pool's
connection is usable again once the lock is gone."""

from __future__ import annotations

import asyncio
import logging
import time

import asyncpg
import pytest
from pg_server import PgServer

from bot.model import ChannelRef
from bot.storage import DatabaseTimeout, DatabaseUnreachable, DbTimeouts, Store

SHORT = 0.5


async def test_a_statement_blocked_by_a_lock_ends_at_the_statement_timeout(
    pg_server: PgServer, pg_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = await Store.open(pg_url, timeouts=DbTimeouts(connect=10.0, statement=SHORT))
    counted: list[str] = []
    store.observe_timeouts(counted.append)
    channel = ChannelRef("slack", "T1", "C1")
    holder = await asyncpg.connect(pg_url)
    try:
        lock = holder.transaction()
        await lock.start()
        await holder.execute("LOCK TABLE rounds IN ACCESS EXCLUSIVE MODE")
        started = time.monotonic()
        with pytest.raises(DatabaseTimeout) as raised:
            await store.rounds.in_channel(channel)
        waited = time.monotonic() - started
        assert SHORT <= waited < SHORT + 5, waited
        assert raised.value.call == "statement" and counted == ["statement"]
        line = str(raised.value)
        assert "did not answer a statement within 0.5 s" in line and pg_server.password not in line
        [record] = [r for r in caplog.records if r.levelno == logging.WARNING]
        assert record.getMessage() == line
        await lock.rollback()
        assert await store.rounds.in_channel(channel) == []  # the pool goes on
        await store.ping()
    finally:
        await holder.close()
        await store.close()


async def test_a_server_that_never_answers_ends_at_the_connect_timeout() -> None:
    taken: list[asyncio.StreamWriter] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        taken.append(writer)
        await reader.read()  # takes the startup message and answers nothing

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    url = f"postgresql://zqapp:hidden-4713@127.0.0.1:{port}/zeroquiz"
    try:
        started = time.monotonic()
        with pytest.raises(DatabaseUnreachable) as raised:
            await Store.open(url, timeouts=DbTimeouts(connect=SHORT, statement=30.0))
        assert time.monotonic() - started < SHORT + 5
        assert "did not answer within 0.5 s" in str(raised.value)
        assert "hidden-4713" not in str(raised.value)
    finally:
        server.close()
        for writer in taken:  # since 3.12, wait_closed waits for every connection to end
            writer.close()
        await server.wait_closed()
