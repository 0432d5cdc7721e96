"""adapters/front.py in process, on a real socket: the OAuth pages' rate gate on an injected
clock; a connection over the cap refused before aiohttp reads a byte, or displacing the oldest
one waiting; a head that never ends closed at the front's header timeout."""

from __future__ import annotations

import asyncio

import aiohttp
from aiohttp import web

from adapters.front import Gate, HttpLimits, serve_app


async def page(request: web.Request) -> web.Response:
    return web.Response(text="page")


async def test_the_gate_answers_429_beyond_its_rate_and_lets_others_through() -> None:
    now = [100.0]
    gate = Gate(("/slack/install",), rate=1.0, burst=2.0, now=lambda: now[0])
    app = web.Application()
    app.add_routes([web.get("/slack/install", page), web.get("/other", page)])
    runner = await serve_app(app, "127.0.0.1", 0, HttpLimits(), "test", gate=gate)
    try:
        base = "http://{}:{}".format(*runner.addresses[0][:2])
        async with aiohttp.ClientSession() as http:

            async def status(path: str) -> int:
                async with http.get(base + path) as response:
                    await response.read()
                    return response.status

            assert [await status("/slack/install") for _ in range(3)] == [200, 200, 429]
            assert await status("/other") == 200  # not gated
            now[0] += 1.0  # one more a second
            assert [await status("/slack/install") for _ in range(2)] == [200, 429]
        assert gate.refused == 2
    finally:
        await runner.cleanup()


async def test_over_the_cap_with_every_connection_in_a_request_is_a_503_at_once() -> None:
    entered = asyncio.Event()
    release = asyncio.Event()

    async def slow(request: web.Request) -> web.Response:
        entered.set()
        await release.wait()
        return web.Response(text="done")

    app = web.Application()
    app.add_routes([web.get("/slow", slow)])
    runner = await serve_app(app, "127.0.0.1", 0, HttpLimits(max_connections=1), "test")
    front = runner.front
    try:
        host, port = runner.addresses[0][:2]
        async with aiohttp.ClientSession() as http:
            busy = asyncio.create_task(http.get(f"http://{host}:{port}/slow"))
            await asyncio.wait_for(entered.wait(), 10)
            reader, writer = await asyncio.open_connection(host, port)
            answer = await asyncio.wait_for(reader.read(), 10)  # until the server closes
            writer.close()
            assert answer.startswith(b"HTTP/1.1 503 ") and front.refused == 1
            release.set()
            async with await busy as response:
                assert await response.text() == "done"
    finally:
        await runner.cleanup()


async def test_a_head_that_never_ends_is_closed_at_the_header_timeout_not_the_idle_one() -> None:
    app = web.Application()
    app.add_routes([web.get("/page", page)])
    limits = HttpLimits(header_timeout=0.2, idle_timeout=600)
    runner = await serve_app(app, "127.0.0.1", 0, limits, "test")
    try:
        reader, writer = await asyncio.open_connection(*runner.addresses[0][:2])
        writer.write(b"GET /page HTTP/1.1\r\nHost")  # and no more
        assert await asyncio.wait_for(reader.read(), 10) == b""  # closed by the server
        writer.close()
        assert runner.front.timed_out == 1 and runner.front.open == 0
    finally:
        await runner.cleanup()


async def test_at_the_cap_a_new_connection_displaces_the_oldest_waiting_one() -> None:
    app = web.Application()
    app.add_routes([web.get("/page", page)])
    runner = await serve_app(app, "127.0.0.1", 0, HttpLimits(max_connections=2), "test")
    try:
        address = runner.addresses[0][:2]
        oldest, _ = await asyncio.open_connection(*address)
        kept, kept_writer = await asyncio.open_connection(*address)
        kept_writer.write(b"GET /page HTTP/1.1\r\nHost: x\r\n\r\n")  # answered, then kept alive
        assert (await kept.readuntil(b"page")).startswith(b"HTTP/1.1 200 ")
        newest, newest_writer = await asyncio.open_connection(*address)
        assert await asyncio.wait_for(oldest.read(), 10) == b""  # displaced
        assert runner.front.displaced == 1
        newest_writer.write(b"GET /page HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert (await asyncio.wait_for(newest.read(), 10)).startswith(b"HTTP/1.1 200 ")
    finally:
        await runner.cleanup()
