"""Two replicas on one PostgreSQL: two real `zeroquiz serve` processes over Slack HTTP (each on
its own port, as behind a load balancer), one database on the real server the suite starts.

A daily question already due when both start (its time passed a moment ago, inside the grace
period) is posted once although both replicas find it due at once. 400 people click at once,
their clicks spread over both replicas: 400 answers, each counted once, and the round is closed
and revealed once. Then a second question: one replica is
SIGKILLed in the middle of a burst, and the other closes and reveals it at once: every click
either replica acknowledged is in the database and in the reveal's count.
"""

from __future__ import annotations

import asyncio
import random
import signal
from datetime import UTC, datetime

import aiohttp
import asyncpg
from fake_slack import CHANNEL, TEAM, FakeSlack, shown
from pg_server import PgServer, look
from serve_process import (
    BURST_TIMEOUT,
    Serve,
    click_body,
    poll,
    reveal_total,
    slack_command,
    slack_env,
    slack_post,
    slack_question,
    start_serve,
    wait_or_fail,
)

from bot.app import build_quiz
from bot.bank import load_bank
from bot.clock import SystemClock
from bot.commands import Context, dispatch, parse_text
from bot.model import ChannelRef, UserRef
from bot.storage import Store

PEOPLE = 400
WAIT = 20.0


async def answered(url: str, round_id: int) -> tuple[set[str], int]:
    rows = await look(
        url,
        """SELECT p.platform_user FROM answers a JOIN players p ON p.id = a.player_id
           WHERE a.round_id = $1""",
        round_id,
    )
    return {str(r[0]) for r in rows}, len(rows)


async def schedule_daily_due_now(url: str) -> None:
    """A daily question for the channel at the current minute (UTC), as if scheduled an hour
    ago: by the time the replicas start it is a few seconds overdue, well inside the grace
    period, so both find it due. (A schedule set now would only count from now on.)"""
    store = await Store.open(url)
    try:
        quiz = build_quiz(store, load_bank(), SystemClock(), random.Random(1), daily=True)
        now = datetime.now(UTC)
        if now.second > 50:  # don't let the minute turn over before the replicas start
            await asyncio.sleep(61 - now.second)
            now = datetime.now(UTC)

        async def admin() -> bool:
            return True

        channel = ChannelRef("slack", TEAM, CHANNEL)
        who = UserRef("slack", TEAM, "UADMIN", "Grace")
        reply = await dispatch(
            quiz, parse_text(f"daily {now:%H:%M} UTC every day"), Context(channel, who, admin)
        )
        assert "scheduled" in str(getattr(reply, "text", "")), reply
    finally:
        await store.close()
    conn = await asyncpg.connect(url)
    try:
        await conn.execute("UPDATE schedules SET updated_at = updated_at - 3600000")
    finally:
        await conn.close()


def daily_posts(fake: FakeSlack) -> list[str]:
    return [ts for ts, m in fake.posted.items() if "Daily question" in shown(m["blocks"])]


def reveal_edits(fake: FakeSlack, ts: str) -> list[str]:
    """Every edit of the question that turned it into its reveal (buttons gone)."""
    return [
        shown(call.args.get("blocks") or [])
        for call in fake.calls_to("chat.update")
        if call.args.get("ts") == ts
        and all(b["type"] != "actions" for b in call.args.get("blocks") or [])
    ]


async def test_two_replicas_share_clicks_count_each_once_and_survive_one_being_killed(
    fake: FakeSlack, pg_server: PgServer, serves: list[Serve]
) -> None:
    url = pg_server.url(await pg_server.create_database())
    people = [f"UR{i:03d}" for i in range(PEOPLE)]
    for i, person in enumerate(people):
        fake.add_user(person, f"Replica fan {i}")
    await schedule_daily_due_now(url)
    # The daily question stays open in the channel the questions are asked in: the limit of one
    # open question per channel, which this test is not about, is off.
    env = slack_env(fake) | {"ZEROQUIZ_LIMIT_CHANNEL_OPEN_QUESTIONS": "0"}
    a = await start_serve(serves, url, env | {"ZEROQUIZ_REPLICA_ID": "a"})
    b = await start_serve(serves, url, env | {"ZEROQUIZ_REPLICA_ID": "b"})
    urls = [await a.http_url(), await b.http_url()]
    await poll(lambda: daily_posts(fake), "the daily question", WAIT)
    await asyncio.sleep(1.0)  # time for a second one, if the other replica were to post it
    assert len(daily_posts(fake)) == 1
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=BURST_TIMEOUT)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
        # -- 400 clicks over both replicas ----------------------------------------------------
        posted = await slack_command(fake, http, urls[0], "question", "UADMIN")
        assert "Question posted." in posted, posted
        ts, message, buttons = slack_question(fake)
        round_id = int(buttons[0]["value"].split(":")[0])
        statuses = await asyncio.gather(
            *(
                slack_post(http, urls[i % 2], click_body(fake, ts, message, buttons[i % 4], p))
                for i, p in enumerate(people)
            )
        )
        assert statuses == [200] * PEOPLE
        recorded, rows = await answered(url, round_id)
        assert recorded == set(people) and rows == PEOPLE
        closed = await slack_command(fake, http, urls[1], "close", "UADMIN")
        assert "Closed the open question." in closed, closed
        await poll(lambda: reveal_edits(fake, ts), "the reveal", WAIT)
        await asyncio.sleep(1.0)  # time for a second reveal, if a replica were to make one
        assert len(reveal_edits(fake, ts)) == 1
        assert "of 400 answered right" in reveal_edits(fake, ts)[0]

        # -- a replica dies mid-burst -----------------------------------------------------------
        posted = await slack_command(fake, http, urls[0], "question", "UADMIN")
        assert "Question posted." in posted, posted
        ts2, message2, buttons2 = slack_question(fake)
        assert ts2 != ts
        round2 = int(buttons2[0]["value"].split(":")[0])
        acked: set[str] = set()
        enough = asyncio.Event()

        async def click(i: int, person: str) -> None:
            body = click_body(fake, ts2, message2, buttons2[i % 4], person)
            try:
                status = await slack_post(http, urls[i % 2], body)
            except (aiohttp.ClientError, TimeoutError):
                return  # sent to the replica that was killed
            if status == 200:
                acked.add(person)
                if len(acked) >= 80:
                    enough.set()

        burst: list[asyncio.Task[None]] = []

        async def send() -> None:  # in waves, so the kill lands while clicks still arrive
            for i, person in enumerate(people):
                burst.append(asyncio.create_task(click(i, person)))
                if i % 10 == 9:
                    await asyncio.sleep(0.02)

        sender = asyncio.create_task(send())
        await wait_or_fail(enough.wait(), "the first acknowledgements", a)
        assert await a.kill() == -signal.SIGKILL
        await asyncio.wait_for(sender, BURST_TIMEOUT)
        await asyncio.wait_for(asyncio.gather(*burst), BURST_TIMEOUT)
        assert 0 < len(acked) < PEOPLE, len(acked)
        closed = await slack_command(fake, http, urls[1], "close", "UADMIN")
        assert "Closed the open question." in closed, closed
        text = await poll(lambda: reveal_edits(fake, ts2), "the reveal by b", WAIT)
    recorded, rows = await answered(url, round2)
    assert acked <= recorded, f"acknowledged but not recorded: {sorted(acked - recorded)[:5]}"
    assert reveal_total(text[0]) == rows and rows <= PEOPLE
    assert await b.terminate() == 0, b.text
    print(f"\ntwo replicas: {PEOPLE} answers over both; after a SIGKILL {len(acked)} acknowledged")
