"""A crash in the window between posting a question and saving its message reference.

The platform has shown the question; the database doesn't know it. A real `zeroquiz serve` is
SIGKILLed while the fake holds the answer to its post, and a second one on the same database
takes over. Discord: the re-post carries the round's nonce, so Discord returns the message
already shown, and the round goes on in that one message. Slack has no such key: the question's
message carries the round's key in its metadata, and the second process reads the channel's
recent history (conversations.history, `channels:history` / `groups:history`) for it before
posting, and goes on in the message it finds. Where the history can't be read (an installation
from before those scopes, a public channel the bot posts into without being a member), the
question is posted again: both copies' buttons count for the same round, once per person, and
the stray copy becomes the reveal at its first click after the close.
"""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp
from fake_discord import MANAGE_GUILD, FakeDiscord, custom_ids, user
from fake_slack import FakeSlack, is_reveal, shown, slash_payload, verdict_for
from serve_process import (
    Serve,
    click_body,
    discord_env,
    discord_ready,
    embed_text,
    poll,
    slack_command,
    slack_env,
    slack_post,
    start_serve,
)

WAIT = 15.0


def post_calls(fake: FakeDiscord) -> int:
    return sum(c.method == "POST" and c.path.endswith("/messages") for c in fake.calls)


async def test_discord_crash_after_posting_shows_the_question_once_and_reveals_it_there(
    fake_discord: FakeDiscord, tmp_path: Path, serves: list[Serve]
) -> None:
    fake = fake_discord
    db = tmp_path / "crash.sqlite3"
    first = await start_serve(serves, db, discord_env(fake))
    await discord_ready(fake, first, identifies=1)
    fake.faults["post"] = ["hold"]  # posted on screen; the answer never reaches the bot
    await fake.slash("question")
    await poll(lambda: len(fake.posted) == 1, "the question on screen", WAIT)
    assert await first.kill() == -signal.SIGKILL
    fake.released.set()

    second = await start_serve(serves, db, discord_env(fake))
    await discord_ready(fake, second, identifies=2)
    await poll(lambda: post_calls(fake) == 2, "the re-post of the unsaved question", WAIT)
    [mid] = fake.posted  # Discord returned the first message for the same nonce
    ids = custom_ids(fake.messages[mid])
    verdict = await fake.reply_to(await fake.click(mid, ids[0], user(1)), timeout=WAIT)
    assert "answer is" in embed_text(verdict), second.text
    closed = await fake.reply_to(await fake.slash("close", permissions=MANAGE_GUILD), timeout=WAIT)
    assert "Closed the open question." in embed_text(closed), second.text
    await poll(lambda: fake.messages[mid]["components"] == [], "the reveal in place", WAIT)
    assert "of 1 answered right" in embed_text(fake.messages[mid])
    assert fake.posted == [mid]  # one message: the question, then its reveal
    assert await second.terminate() == 0, second.text


def slack_questions(fake: FakeSlack) -> list[str]:
    """Every question message ever posted (by ts), in order."""
    return [ts for ts, m in fake.posted.items() if any(b["type"] == "actions" for b in m["blocks"])]


async def crash_in_the_post_window(
    fake: FakeSlack, http: aiohttp.ClientSession, db: Path, serves: list[Serve]
) -> tuple[Serve, str]:
    """`/zeroquiz question`; Slack shows it, and the serve is killed before hearing so. The
    second serve on the same database, and its address."""
    first = await start_serve(serves, db, slack_env(fake))
    url = await first.http_url()
    fake.holds["chat.postMessage"] = 1  # posted on screen; the answer never reaches the app
    body = urlencode(slash_payload("question", "U1", fake.response_url(fake.new_key())))
    assert await slack_post(http, url, body) == 200
    await poll(lambda: len(slack_questions(fake)) == 1, "the question on screen", WAIT)
    assert await first.kill() == -signal.SIGKILL
    fake.released.set()
    second = await start_serve(serves, db, slack_env(fake))
    return second, await second.http_url()


async def test_slack_crash_after_posting_finds_the_question_and_shows_it_once(
    fake: FakeSlack, tmp_path: Path, serves: list[Serve]
) -> None:
    db = tmp_path / "crash.sqlite3"
    fake.add_user("UP1", "Pat One")
    async with aiohttp.ClientSession() as http:
        second, url = await crash_in_the_post_window(fake, http, db, serves)
        await poll(lambda: bool(fake.calls_to("conversations.history")), "the look back", WAIT)
        [ts] = slack_questions(fake)
        await poll(lambda: posted_at(db) is not None, "the round marked posted", WAIT)
        [looked] = fake.calls_to("conversations.history")
        assert looked.args["channel"] == "C0QUIZ"
        message = fake.posted[ts]
        actions = next(b for b in message["blocks"] if b["type"] == "actions")
        button = next(e for e in actions["elements"] if e["text"]["text"] == "A")
        assert await slack_post(http, url, click_body(fake, ts, message, button, "UP1")) == 200
        await poll(lambda: bool(fake.replies["UP1"]), "the reply to UP1", WAIT)
        assert verdict_for("A", fake.replies["UP1"][-1]["blocks"])
        closed = await slack_command(fake, http, url, "close", "UADMIN")
        assert "Closed the open question." in closed, second.text
        await poll(lambda: is_reveal(fake.messages[ts]["blocks"]), "the reveal in place", WAIT)
        assert "of 1 answered right" in shown(fake.messages[ts]["blocks"])
        assert slack_questions(fake) == [ts]  # one question message, never posted again
        assert len(fake.calls_to("chat.postMessage")) == 1
    assert await second.terminate() == 0, second.text


def posted_at(db: Path) -> int | None:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        row = conn.execute("SELECT posted_at FROM rounds").fetchone()
    finally:
        conn.close()
    return None if row is None else row[0]


async def test_slack_crash_without_history_leaves_a_copy_that_counts_and_is_revealed_on_click(
    fake: FakeSlack, tmp_path: Path, serves: list[Serve]
) -> None:
    """An installation without the history scopes: Slack refuses the look back."""
    fake.errors["conversations.history"] = ["missing_scope"]
    db = tmp_path / "crash.sqlite3"
    fake.add_user("UP1", "Pat One")
    fake.add_user("UP2", "Pat Two")
    async with aiohttp.ClientSession() as http:
        second, url = await crash_in_the_post_window(fake, http, db, serves)
        await poll(lambda: len(slack_questions(fake)) == 2, "the question posted again", WAIT)
        stray, own = slack_questions(fake)

        async def click(ts: str, letter: str, who: str) -> list[dict[str, Any]]:
            """Click `letter` on message `ts`; the blocks of the private reply."""
            message = fake.posted[ts]
            actions = next(b for b in message["blocks"] if b["type"] == "actions")
            button = next(e for e in actions["elements"] if e["text"]["text"] == letter)
            before = len(fake.replies[who])  # the fake's response_url for `who` is named after them
            assert await slack_post(http, url, click_body(fake, ts, message, button, who)) == 200
            await poll(lambda: len(fake.replies[who]) > before, f"the reply to {who}", WAIT)
            blocks: list[dict[str, Any]] = fake.replies[who][-1]["blocks"]
            return blocks

        on_stray = await click(stray, "A", "UP1")  # the stray copy's buttons count
        assert verdict_for("A", on_stray)
        await click(own, "B", "UP2")
        again = await click(own, "C", "UP1")  # the same round: UP1 has answered already
        assert "already answered A" in shown(again)
        closed = await slack_command(fake, http, url, "close", "UADMIN")
        assert "Closed the open question." in closed, second.text
        await poll(lambda: is_reveal(fake.messages[own]["blocks"]), "the reveal", WAIT)
        assert "of 2 answered right" in shown(fake.messages[own]["blocks"])
        assert not is_reveal(fake.messages[stray]["blocks"])  # nobody has clicked it since
        late = await click(stray, "A", "UP3")  # someone whose screen still showed the copy
        assert "This question is closed" in shown(late)
        await poll(lambda: is_reveal(fake.messages[stray]["blocks"]), "the copy revealed", WAIT)
        assert shown(fake.messages[stray]["blocks"]) == shown(fake.messages[own]["blocks"])
        assert len(slack_questions(fake)) == 2  # nothing posted a third time
        assert "history can't be read (missing_scope)" in second.text
    assert await second.terminate() == 0, second.text
