"""Scheduled sends side by side (bot/fanout.py): a bounded number at once, one per workspace at
a time, workspaces taking turns; a workspace that hangs holds up only itself; a send that fails
is logged and the others go on; a pass waits for its sends at most SETTLE, the rest going on, and
a later pass never queues a send twice. Then the daily questions of three workspaces at one
minute, one workspace's posts hanging: the other two are posted in that same pass, and the pass
ends after SETTLE."""

from __future__ import annotations

import asyncio
import logging
import random
from datetime import UTC, datetime

import pytest
from helpers import RecordingPort

from bot.app import build_core
from bot.bank import Bank
from bot.clock import FakeClock
from bot.commands import Context, dispatch, parse_text
from bot.fanout import SETTLE, Fanout, outside_the_gate
from bot.model import ChannelRef, UserRef
from bot.storage import Store
from bot.views import NoticeView, QuestionView, RevealView


async def test_bounded_one_per_workspace_in_turns_and_a_failure_stays_its_own(
    caplog: pytest.LogCaptureFixture, clock: FakeClock
) -> None:
    running: dict[str, int] = {}
    most = {"all": 0}
    order: list[str] = []

    def job(workspace: str, n: int) -> tuple[str, object, object]:
        async def send() -> None:
            running[workspace] = running.get(workspace, 0) + 1
            assert running[workspace] == 1, "two sends of one workspace at once"
            most["all"] = max(most["all"], sum(running.values()))
            order.append(workspace)
            for _ in range(3):
                await asyncio.sleep(0)  # a send in flight: others get their turn meanwhile
            running[workspace] -= 1
            if (workspace, n) == ("w2", 1):
                raise RuntimeError("Slack said no")

        return workspace, (workspace, n), send

    jobs = [job(f"w{w}", n) for w in range(5) for n in range(8)]
    with caplog.at_level(logging.ERROR):
        await Fanout(clock, in_flight=3).run(jobs)  # type: ignore[arg-type]
    assert most["all"] == 3 and len(order) == 40
    assert sorted(set(order[:5])) == ["w0", "w1", "w2", "w3", "w4"]  # each had a turn early
    assert "a scheduled send failed" in caplog.text and order.count("w2") == 8


async def test_a_send_told_to_wait_gives_its_slot_away_and_keeps_its_turn(
    clock: FakeClock,
) -> None:
    """One slot: w0's first send is rate limited (waits out its Retry-After outside the gate);
    w1's sends go meanwhile, and w0's second send still comes after its first."""
    retry_after = asyncio.Event()
    order: list[str] = []

    def job(workspace: str, n: int) -> tuple[str, object, object]:
        async def send() -> None:
            if (workspace, n) == ("w0", 0):
                await outside_the_gate(retry_after.wait())
            order.append(f"{workspace}.{n}")

        return workspace, (workspace, n), send

    jobs = [job("w0", 0), job("w0", 1), job("w1", 0), job("w1", 1)]
    running = asyncio.create_task(Fanout(clock, in_flight=1).run(jobs))  # type: ignore[arg-type]
    for _ in range(100):
        if len(order) == 2:
            break
        await asyncio.sleep(0)
    assert order == ["w1.0", "w1.1"]  # w0 waits on its own, holding no slot
    retry_after.set()
    await running
    assert order == ["w1.0", "w1.1", "w0.0", "w0.1"]


async def test_outside_a_fan_out_a_wait_is_just_a_wait() -> None:
    done = asyncio.Event()

    async def wait() -> None:
        done.set()

    await outside_the_gate(wait())
    assert done.is_set()


async def test_a_pass_waits_at_most_settle_and_a_later_one_queues_nothing_twice(
    clock: FakeClock,
) -> None:
    """w0's send hangs (a call waiting for its timeout): the pass that queued it returns after
    SETTLE while it goes on; the next pass, queuing it again with w1's, does not send it twice,
    and w1's send goes at once."""
    hang = asyncio.Event()
    sent: list[str] = []

    async def slow() -> None:
        await hang.wait()
        sent.append("w0")

    async def quick() -> None:
        sent.append("w1")

    fanout = Fanout(clock)
    first = asyncio.create_task(fanout.run([("w0", "k0", slow)]))
    for _ in range(5):
        await asyncio.sleep(0)
    assert not first.done()
    await clock.advance(SETTLE.total_seconds())
    await first  # returned: the pass is over, the send is not
    second = asyncio.create_task(fanout.run([("w0", "k0", slow), ("w1", "k1", quick)]))
    for _ in range(20):
        if sent:
            break
        await asyncio.sleep(0)
    assert sent == ["w1"]
    hang.set()
    await second
    assert sent == ["w1", "w0"]  # once
    await fanout.close()


class OneHangs(RecordingPort):
    """Team T1's posts never answer (a workspace Slack holds to its budget); others do."""

    async def post_question(
        self,
        channel: ChannelRef,
        view: QuestionView,
        *,
        dedupe_key: str | None = None,
        tried_since: datetime | None = None,
    ) -> str | None:
        if channel.team == "T1":
            await asyncio.Event().wait()
        return await super().post_question(
            channel, view, dedupe_key=dedupe_key, tried_since=tried_since
        )


async def test_one_hanging_workspace_does_not_hold_the_others_daily_questions(
    db: Store, bank: Bank, clock: FakeClock
) -> None:
    core = build_core(db, bank, clock, random.Random(1), daily=True)
    port = OneHangs()
    core.quiz.add_port(port)

    async def admin() -> bool:
        return True

    for team in ("T1", "T2", "T3"):
        for channel in ("C1", "C2"):
            where = ChannelRef("test", team, channel)
            said = await dispatch(
                core.quiz, parse_text("daily 10:00 UTC every day"),
                Context(where, UserRef("test", team, "UADMIN"), admin),
            )  # fmt: skip
            assert isinstance(said, NoticeView) and said.ok, said
    await clock.advance(to=datetime(2026, 1, 5, 10, 0, tzinfo=UTC))
    assert core.daily is not None
    passing = asyncio.create_task(core.daily.process_due())
    for _ in range(500):
        if len(port.posted) == 4:
            break
        await asyncio.sleep(0.01)  # bounded wait for the database's threads (real I/O, not time)
    assert sorted((c.team, c.channel) for c, _ in port.posted) == [
        ("T2", "C1"), ("T2", "C2"), ("T3", "C1"), ("T3", "C2"),
    ]  # fmt: skip
    assert not passing.done()  # T1's first post still hangs; its second waits behind it
    await clock.advance(SETTLE.total_seconds())
    await passing  # the pass is over after SETTLE; T1's posts go on without it
    assert len(port.posted) == 4
    await core.fanout.close()


class OneRevealHangs(RecordingPort):
    """Team T1's reveals never answer; the others' do."""

    async def post_reveal(self, channel: ChannelRef, ref: str | None, view: RevealView) -> None:
        if channel.team == "T1":
            await asyncio.Event().wait()
        await super().post_reveal(channel, ref, view)


async def test_rounds_closing_at_one_deadline_are_revealed_side_by_side(
    db: Store, bank: Bank, clock: FakeClock
) -> None:
    """Questions of three workspaces close at the same moment (daily questions opened at 09:00
    with one window): T1's reveals hang, the other workspaces' are revealed in that pass, and
    the pass ends after SETTLE."""
    core = build_core(db, bank, clock, random.Random(1))
    port = OneRevealHangs()
    core.quiz.add_port(port)
    for team in ("T1", "T2", "T3"):
        for channel in ("C1", "C2"):
            view = await core.quiz.rounds.start_round(ChannelRef("test", team, channel))
            assert isinstance(view, QuestionView)
    await clock.advance(24 * 3600)
    passing = asyncio.create_task(core.quiz.process_due())
    for _ in range(500):
        if len(port.reveals) == 4:
            break
        await asyncio.sleep(0.01)  # bounded wait for the database's threads (real I/O, not time)
    assert len(port.reveals) == 4 and not passing.done()
    await clock.advance(SETTLE.total_seconds())
    await passing
    await core.fanout.close()
