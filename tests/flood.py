"""Hostile HTTP clients, with real sockets, against a `zeroquiz serve` child: idle connections,
slow bodies, an install flood, the malformed requests aiohttp refuses; and the click latency a
person sees meanwhile. Shared by tests/serve/test_hostile_clients.py and
tests/bench/flood_bench.py."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import resource
import socket
import time
from collections import Counter
from collections.abc import Iterator
from urllib.parse import urlsplit

import aiohttp
from fake_slack import FakeSlack, signed_headers
from serve_process import click_body, slack_question


def address(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    return parts.hostname, parts.port


def raise_file_limit(wanted: int) -> int:
    """This process's soft open-file limit raised towards `wanted` (children inherit it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        soft = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return soft


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


async def connect_many(url: str, n: int, *, at_once: int = 100) -> list[socket.socket]:
    """`n` TCP connections that send nothing (the server may close some: they are kept)."""
    loop = asyncio.get_running_loop()
    gate = asyncio.Semaphore(at_once)
    opened: list[socket.socket] = []

    async def one() -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        opened.append(sock)
        async with gate:
            await loop.sock_connect(sock, address(url))

    await asyncio.gather(*(one() for _ in range(n)))
    return opened


async def slow_bodies(url: str, n: int, *, at_once: int = 50) -> list[socket.socket]:
    """`n` POSTs to /slack/events whose head is complete and whose body never comes (a byte
    of the 10,000 announced)."""
    loop = asyncio.get_running_loop()
    host, port = address(url)
    head = (
        f"POST /slack/events HTTP/1.1\r\nHost: {host}:{port}\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 10000\r\n\r\nx"
    ).encode()
    gate = asyncio.Semaphore(at_once)
    opened: list[socket.socket] = []

    async def one() -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        opened.append(sock)
        async with gate:
            await loop.sock_connect(sock, (host, port))
            await loop.sock_sendall(sock, head)

    await asyncio.gather(*(one() for _ in range(n)))
    return opened


def close_all(socks: list[socket.socket]) -> None:
    for sock in socks:
        with contextlib.suppress(OSError):
            sock.close()


async def exchange(url: str, data: bytes, *, wait: float = 5.0, drop: bool = False) -> bytes:
    """Send raw bytes on a fresh connection; what comes back until the server closes it (or
    `wait` s). `drop`: close at once after sending (a client gone mid-request)."""
    reader, writer = await asyncio.open_connection(*address(url))
    try:
        writer.write(data)
        await writer.drain()
        if drop:
            return b""
        got = b""
        with contextlib.suppress(TimeoutError, ConnectionError):
            async with asyncio.timeout(wait):
                while chunk := await reader.read(65536):
                    got += chunk
        return got
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


def malformed_requests(url: str) -> Iterator[tuple[str, bytes]]:
    """(what, raw request) for each malformed request a stranger can send."""
    host, port = address(url)
    start = f"GET /slack/events HTTP/1.1\r\nHost: {host}:{port}\r\n".encode()
    yield "a 100 KB header", start + b"X-Big: " + b"a" * 100_000 + b"\r\n\r\n"
    yield "20,000 headers", start + b"".join(b"X-%d: 1\r\n" % i for i in range(20_000)) + b"\r\n"
    yield "a 100 KB request line", b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\n\r\n"
    yield "not HTTP", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + os.urandom(64)
    yield (
        "bad chunking",
        (b"POST /slack/events HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
    )


STATUS = re.compile(rb"HTTP/1\.1 (\d{3}) ")


async def install_flood(
    url: str, total: int, *, connections: int = 100, rate: float | None = None
) -> Counter[int]:
    """`total` GETs of /slack/install from `connections` clients, pipelined on kept-alive
    connections (the cheapest client there is, so the server's cost is what's measured), each
    client connecting again when the server closes on it, until every GET is answered; all at
    once or, with `rate`, that many a second (a bench's paced flood). The answers by status."""
    host, port = address(url)
    request = f"GET /slack/install?team=T0FLOOD HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n"
    each = total // connections
    tick = connections / rate if rate else 0.0  # paced: one request a tick on each client
    started = time.monotonic()

    async def one() -> Counter[int]:
        statuses: Counter[int] = Counter()
        sent = 0
        while sum(statuses.values()) < each:
            reader, writer = await asyncio.open_connection(host, port)
            try:
                answered = sum(statuses.values())
                if rate is None:
                    writer.write(request.encode() * (each - answered))
                    sent = each
                else:
                    if sent == answered:  # the next one is due (the lost ones go at once)
                        await asyncio.sleep(max(0.0, started + sent * tick - time.monotonic()))
                        sent += 1
                    writer.write(request.encode() * (sent - answered))
                await writer.drain()
                tail = b""
                while chunk := await reader.read(1 << 16):
                    text = tail + chunk
                    cut = text.rfind(b"HTTP/1.1 ")
                    if cut > len(text) - 12:  # a status line split across reads: next time
                        text, tail = text[:cut], text[cut:]
                    else:
                        tail = b""
                    statuses.update(int(code) for code in STATUS.findall(text))
                    if sum(statuses.values()) >= each:
                        break
                    if rate is not None and sum(statuses.values()) == sent:
                        await asyncio.sleep(max(0.0, started + sent * tick - time.monotonic()))
                        sent += 1
                        writer.write(request.encode())
            except ConnectionError:
                pass
            finally:
                writer.close()
        return statuses

    return sum(await asyncio.gather(*(one() for _ in range(connections))), Counter())


async def click_seconds(
    http: aiohttp.ClientSession, fake: FakeSlack, url: str, person: str
) -> float:
    """One signed click on the channel's question, on a new connection, by `person`: seconds
    until the HTTP answer (200 asserted)."""
    ts, message, buttons = slack_question(fake)
    body = click_body(fake, ts, message, buttons[0], person)
    started = time.perf_counter()
    async with http.post(
        url, data=body.encode(), headers=signed_headers(body) | {"Connection": "close"}
    ) as response:
        await response.read()
        assert response.status == 200, response.status
    return time.perf_counter() - started
