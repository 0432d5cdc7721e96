"""Scheduled sends side by side: at most IN_FLIGHT at once per process, one per workspace at a
time, the workspaces taking turns, so one slow or rate-limited workspace (slack_sdk sleeps out a
429's Retry-After inside the call) holds up only its own sends while the others go on.

Turns are fair because the gate is first come, first served: a workspace's next send queues
behind every other workspace waiting already.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Iterable

log = logging.getLogger(__name__)

IN_FLIGHT = 16  # sends at once per process; Slack answers a post in ~150 ms: ~100 a second

Job = Callable[[], Awaitable[None]]


async def side_by_side(jobs: Iterable[tuple[str, Job]], in_flight: int = IN_FLIGHT) -> None:
    """Run each (workspace, job); a job that raises is logged and the others go on."""
    queues: dict[str, deque[Job]] = {}
    for workspace, job in jobs:
        queues.setdefault(workspace, deque()).append(job)
    gate = asyncio.Semaphore(in_flight)

    async def turns(queue: deque[Job]) -> None:
        while queue:
            job = queue.popleft()
            async with gate:
                try:
                    await job()
                except Exception:
                    log.exception("a scheduled send failed; the others go on")

    await asyncio.gather(*(turns(queue) for queue in queues.values()))
