"""The one guard around handling an event: a failure is logged with its traceback, and the person
who clicked or typed is told privately that it failed, never shown the traceback."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

log = logging.getLogger(__name__)


@asynccontextmanager
async def apologise_on_error(
    what: str, apologise: Callable[[], Awaitable[None]]
) -> AsyncIterator[None]:
    try:
        yield
    except Exception:
        log.exception("%s failed", what)
        try:
            await apologise()
        except Exception:
            log.exception("could not tell the person that %s failed", what)
