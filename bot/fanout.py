"""Scheduled sends side by side: one `Fanout` per process, at most IN_FLIGHT sends at once, one
per workspace at a time, the workspaces taking turns, so one slow or rate-limited workspace holds
up only its own sends while the others go on.

Turns are fair because the gate is first come, first served: a workspace's next send queues
behind every other workspace waiting already. A send told to wait (a 429's Retry-After) waits
through `outside_the_gate`: its slot goes to another workspace meanwhile, and its own workspace's
next sends stay queued behind it.

A scheduler pass hands its sends over and waits for them at most SETTLE: a send that takes longer
(a workspace held to its budget, a call hanging until its timeout) goes on in the background while
the next passes run, so taking over a dead replica's claims, say, never waits behind it. A send is
known by its key (a schedule's day, a reminder's day): a later pass never queues it twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Hashable, Iterable
from contextvars import ContextVar
from datetime import timedelta

from bot.clock import Clock

log = logging.getLogger(__name__)

IN_FLIGHT = 16  # sends at once per process; Slack answers a post in ~150 ms: ~100 a second
SETTLE = timedelta(seconds=5)  # what a pass waits for its sends at most

Job = Callable[[], Awaitable[object]]  # what it returns is dropped
Send = tuple[str, Hashable, Job]  # (workspace, key, job)

# The gate whose slot the current task's send holds, if any (see outside_the_gate).
_held: ContextVar[asyncio.Semaphore | None] = ContextVar("zeroquiz_fanout_gate", default=None)


class Fanout:
    def __init__(self, clock: Clock, *, in_flight: int = IN_FLIGHT, settle: timedelta = SETTLE):
        self._clock = clock
        self._settle = settle
        self._gate = asyncio.Semaphore(in_flight)
        self._queues: dict[str, deque[tuple[Hashable, Job]]] = {}
        self._pending: dict[Hashable, asyncio.Future[None]] = {}
        self._turns: dict[str, asyncio.Task[None]] = {}

    async def run(self, sends: Iterable[Send]) -> None:
        """Queue each send whose key is not queued or in flight already; return once all of
        these keys are done, or after SETTLE (the rest go on). A send that raises is logged."""
        loop = asyncio.get_running_loop()
        waits: list[asyncio.Future[None]] = []
        for workspace, key, job in sends:
            done = self._pending.get(key)
            if done is None:
                done = self._pending[key] = loop.create_future()
                self._queues.setdefault(workspace, deque()).append((key, job))
                if workspace not in self._turns:
                    self._turns[workspace] = asyncio.create_task(
                        self._take_turns(workspace), name=f"zeroquiz-sends-{workspace}"
                    )
            waits.append(done)
        if not waits:
            return
        everything = asyncio.ensure_future(asyncio.wait(waits))
        timer = asyncio.ensure_future(self._clock.sleep_until(self._clock.now() + self._settle))
        try:
            await asyncio.wait([everything, timer], return_when=asyncio.FIRST_COMPLETED)
        finally:
            everything.cancel()  # the sends themselves go on
            timer.cancel()

    async def _take_turns(self, workspace: str) -> None:
        _held.set(self._gate)  # this task's own context: outside_the_gate finds the gate
        queue = self._queues[workspace]
        try:
            while queue:
                key, job = queue.popleft()
                try:
                    async with self._gate:
                        await job()
                except Exception:
                    log.exception("a scheduled send failed; the others go on")
                finally:
                    done = self._pending.pop(key)
                    if not done.done():
                        done.set_result(None)
        finally:
            del self._turns[workspace]  # no await since `while queue`: nothing slipped in
            if not queue:
                del self._queues[workspace]

    async def close(self) -> None:
        """Stop every send in flight or queued (the process is stopping; claims stay)."""
        turns = list(self._turns.values())
        for task in turns:
            task.cancel()
        for task in turns:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for done in self._pending.values():
            done.cancel()
        self._pending.clear()
        self._queues.clear()


async def outside_the_gate(wait: Awaitable[object]) -> None:
    """Await `wait` (a platform's "try again in N s") without holding the slot of the send it
    belongs to, taking one again after; outside a scheduled send, simply await it."""
    gate = _held.get()
    if gate is None:
        await wait
        return
    gate.release()
    try:
        await wait
    finally:
        await gate.acquire()
