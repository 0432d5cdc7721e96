"""Where discord.py connects: Discord's own addresses, or one address given for all of them.

discord.py has its URLs built in (https://discord.com/api/v10, wss://gateway.discord.gg) and no
public setting for them; what it does take is an aiohttp connector (`Client(connector=...)`). So
DISCORD_CONNECT_TO=host:port is a connector whose resolver answers that address for every host
name: requests keep Discord's URLs, host names and TLS, and reach whatever listens there (a proxy
that terminates TLS for Discord's names, or the test server tests/fake_discord.py). Its
certificate is checked as Discord's would be, against DISCORD_CA_FILE (a PEM file of certificate
authorities) when given, else against the system's. No ZeroQuiz import: the bench's bare client
uses it too.
"""

from __future__ import annotations

import socket
import ssl

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult


class Redirect(AbstractResolver):
    """Every host name resolves to `host`:`port` (itself resolved as usual)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.inner = aiohttp.DefaultResolver()

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        found = await self.inner.resolve(self.host, self.port, family)
        return [ResolveResult(**{**one, "hostname": host}) for one in found]

    async def close(self) -> None:
        await self.inner.close()


def connector(address: tuple[str, int] | None, ca_file: str | None) -> aiohttp.TCPConnector:
    """discord.py's own connector (no limit on connections), sent to `address` if given; its
    certificates checked against `ca_file`, else as aiohttp checks them by default (its one
    context of the system's authorities, loaded once: a context of our own costs ~20 ms)."""
    context = ssl.create_default_context(cafile=ca_file) if ca_file is not None else True
    resolver = Redirect(*address) if address is not None else None
    return aiohttp.TCPConnector(limit=0, ssl=context, resolver=resolver)
