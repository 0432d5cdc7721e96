"""Scheduled sends side by side: at most IN_FLIGHT at once per process, one per workspace at a
time, the workspaces taking turns, so one slow or rate-limited workspace holds up only its own
sends while the others go on.

Turns are fair because the gate is first come, first served: a workspace's next send queues
behind every other workspace waiting already. A send told to wait (a 429's Retry-After) waits
through `outside_the_gate`: its slot goes to another workspace meanwhile, and its own workspace's
next sends stay queued behind it.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from contextvars import ContextVar

log = logging.getLogger(__name__)

IN_FLIGHT = 16  # sends at once per process; Slack answers a post in ~150 ms: ~100 a second

Job = Callable[[], Awaitable[None]]

# The gate of the side_by_side run the current task's send holds a slot of, if any.
_held: ContextVar[asyncio.Semaphore | None] = ContextVar("zeroquiz_fanout_gate", default=None)


async def side_by_side(jobs: Iterable[tuple[str, Job]], in_flight: int = IN_FLIGHT) -> None:
    """Run each (workspace, job); a job that raises is logged and the others go on."""
    queues: dict[str, deque[Job]] = {}
    for workspace, job in jobs:
        queues.setdefault(workspace, deque()).append(job)
    gate = asyncio.Semaphore(in_flight)

    async def turns(queue: deque[Job]) -> None:
        _held.set(gate)  # each turns() runs as its own task: the variable is its own
        while queue:
            job = queue.popleft()
            async with gate:
                try:
                    await job()
                except Exception:
                    log.exception("a scheduled send failed; the others go on")

    await asyncio.gather(*(turns(queue) for queue in queues.values()))


async def outside_the_gate(wait: Awaitable[object]) -> None:
    """Await `wait` (a platform's "try again in N s") without holding a slot of the send's
    side_by_side run, taking one again after; outside such a run, simply await it."""
    gate = _held.get()
    if gate is None:
        await wait
        return
    gate.release()
    try:
        await wait
    finally:
        await gate.acquire()
