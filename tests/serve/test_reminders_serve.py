"""Review reminders in `zeroquiz serve` over Slack (signed HTTP, the fake Slack): set with
`/zeroquiz remind`, sent as one direct message at the set minute to the person with review cards
due and to nobody else, once although the sending replica is SIGKILLed three times around the
send, and once by two replicas sharing PostgreSQL. Its "Review now" button starts the review
in that direct message.

The reminder's minute is the current one (UTC); the test moves the reminder's "set at" an hour
back, as if it had been set yesterday, so today's minute counts (one set now only counts from
now on) and nothing waits for a clock."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp
import asyncpg
from fake_slack import CHANNEL, TEAM, FakeSlack, click_payload, shown
from pg_server import PgServer
from serve_process import (
    Serve,
    poll,
    slack_command,
    slack_env,
    slack_post,
    start_serve,
)

from bot.app import build_quiz
from bot.bank import load_bank
from bot.clock import SystemClock
from bot.model import ChannelRef, UserRef
from bot.storage import Store
from bot.views import QuestionView

WAIT = 20.0
HOUR_MS = 3_600_000


async def miss_one(target: str) -> None:
    """U1 answers one question wrong in the channel, and its card is due now (an hour ago)."""
    store = await Store.open(target)
    try:
        quiz = build_quiz(store, load_bank(), SystemClock(), random.Random(1))
        view = await quiz.rounds.start_round(ChannelRef("slack", TEAM, CHANNEL))
        assert isinstance(view, QuestionView)
        question = quiz.bank.get(view.question_id)
        assert question is not None
        key = question.options[question.answer].en
        wrong = next(i for i, o in enumerate(view.options) if o.text != key)
        await quiz.rounds.answer(view.round_id, UserRef("slack", TEAM, "U1", "Ada"), wrong)
        await quiz.close_round(view.round_id, "admin")
    finally:
        await store.close()


def this_minute() -> str:
    return f"{datetime.now(UTC):%H:%M}"


async def wait_for_the_minute_to_stay() -> None:
    """Don't let the minute turn over between setting the reminder and the replicas starting."""
    now = datetime.now(UTC)
    if now.second > 45:
        await asyncio.sleep(61 - now.second)


def directs(fake: FakeSlack, person: str) -> list[dict[str, Any]]:
    """The messages the app posted in its direct message with `person` (the fake's D + id)."""
    return [
        call.args for call in fake.calls_to("chat.postMessage")
        if call.args.get("channel") == f"D{person}"
    ]  # fmt: skip


def sends(db: Path) -> dict[str, str]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            """SELECT r.platform_user, s.status FROM reminder_sends s
               JOIN reminders r ON r.id = s.reminder_id"""
        ).fetchall()
    return {str(user): str(status) for user, status in rows}


async def test_a_reminder_comes_once_to_the_person_with_cards_due_across_three_sigkills(
    fake: FakeSlack, tmp_path: Path, serves: list[Serve]
) -> None:
    db = tmp_path / "quiz.sqlite3"
    await miss_one(str(db))
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE cards SET due_at = due_at - ?", (HOUR_MS,))
    env = slack_env(fake)
    await wait_for_the_minute_to_stay()
    first = await start_serve(serves, db, env)
    async with aiohttp.ClientSession() as http:
        url = await first.http_url()
        for person in ("U1", "U2"):
            said = await slack_command(
                fake, http, url, f"remind {this_minute()} UTC every day", person
            )
            assert "Review reminder set" in said and "every day" in said, said
        bad = await slack_command(fake, http, url, "remind 9am UTC", "U1")
        assert "'9am' is not a time" in bad, bad
        assert await first.terminate() == 0
    with sqlite3.connect(db) as conn:  # set an hour ago: today's minute, just passed, counts
        conn.execute("UPDATE reminders SET updated_at = updated_at - ?", (HOUR_MS,))

    # 1. Killed while opening the direct message: the claim is taken, nothing sent yet.
    fake.holds["conversations.open"] = 1
    second = await start_serve(serves, db, env)
    await poll(lambda: fake.calls_to("conversations.open"), "the direct message opened", WAIT)
    await second.kill()
    assert sends(db)["U1"] == "claimed" and directs(fake, "U1") == []

    # 2. The same replica restarted takes its claim back at once; killed while Slack holds the
    #    message it already took (Slack has it; the database doesn't know).
    fake.holds["chat.postMessage"] = 1
    third = await start_serve(serves, db, env)
    await poll(lambda: directs(fake, "U1"), "the reminder sent", WAIT)
    await third.kill()
    assert sends(db)["U1"] == "claimed"

    # 3. Restarted again: it reads the conversation back, finds the message, sends nothing more.
    fourth = await start_serve(serves, db, env)
    await poll(lambda: sends(db)["U1"] == "sent", "the reminder marked sent", WAIT)
    await fourth.wait_for_log(rb"was already sent")
    await fourth.kill()
    fifth = await start_serve(serves, db, env)
    await fifth.http_url()
    await asyncio.sleep(1.0)  # time for a second message, if a pass were to send one
    assert len(directs(fake, "U1")) == 1 and directs(fake, "U2") == []
    assert sends(db) == {"U1": "sent", "U2": "empty"}  # nothing due for U2: no message
    [message] = directs(fake, "U1")
    assert "1 review card(s) due" in shown(message["blocks"])
    history = [c for c in fake.calls_to("conversations.history") if c.args["channel"] == "DU1"]
    assert len(history) == 2  # the two tries after the kills looked before sending

    # The button starts the review in that direct message, privately.
    [ts] = [ts for ts, m in fake.posted.items() if m.get("channel") == "DU1"]
    [button] = [
        b for block in message["blocks"] if block["type"] == "actions" for b in block["elements"]
    ]
    async with aiohttp.ClientSession() as http:
        payload = click_payload(ts, fake.posted[ts], button, "U1", fake.response_url("U1"))
        payload["channel"] = {"id": "DU1", "name": "directmessage"}
        assert (
            await slack_post(http, await fifth.http_url(), "payload=" + quote(json.dumps(payload)))
            == 200
        )
        card = await fake.reply("U1")
    assert card.get("replace_original") is True
    text = shown(card["blocks"])
    assert "Review" in text and "due" in text, text
    letters = [
        b for block in card["blocks"] if block["type"] == "actions" for b in block["elements"]
    ]
    assert len(letters) >= 2


async def test_two_replicas_on_postgresql_send_each_reminder_once(
    fake: FakeSlack, pg_server: PgServer, serves: list[Serve]
) -> None:
    url = pg_server.url(await pg_server.create_database())
    await miss_one(url)
    await wait_for_the_minute_to_stay()
    store = await Store.open(url)
    try:
        quiz = build_quiz(store, load_bank(), SystemClock(), random.Random(2))
        for person in ("U1", "U2"):
            said = await quiz.remind_command(
                UserRef("slack", TEAM, person), (this_minute(), "UTC", "every", "day"), "en"
            )
            assert said.ok, said
    finally:
        await store.close()
    conn = await asyncpg.connect(url)
    try:
        await conn.execute("UPDATE cards SET due_at = due_at - $1", HOUR_MS)
        await conn.execute("UPDATE reminders SET updated_at = updated_at - $1", HOUR_MS)
    finally:
        await conn.close()
    env = slack_env(fake)
    for replica in ("a", "b"):
        await start_serve(serves, url, env | {"ZEROQUIZ_REPLICA_ID": replica})
    await poll(lambda: directs(fake, "U1"), "the reminder sent", WAIT)
    await asyncio.sleep(1.0)  # time for a second message, if the other replica were to send one
    assert len(directs(fake, "U1")) == 1 and directs(fake, "U2") == []
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            """SELECT r.platform_user, s.status FROM reminder_sends s
               JOIN reminders r ON r.id = s.reminder_id ORDER BY r.platform_user"""
        )
    finally:
        await conn.close()
    assert [(r[0], r[1]) for r in rows] == [("U1", "sent"), ("U2", "empty")]
