"""A crash in the window between posting a question and saving its message reference.

The platform has shown the question; the database doesn't know it. A real `zeroquiz serve` is
SIGKILLed while the fake holds the answer to its post, and a second one on the same database
takes over. Discord: the re-post carries the round's nonce, so Discord returns the message
already shown, and the round goes on in that one message.
"""

from __future__ import annotations

import signal
from pathlib import Path

from fake_discord import MANAGE_GUILD, FakeDiscord, custom_ids, user
from serve_process import (
    Serve,
    discord_env,
    discord_ready,
    embed_text,
    poll,
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
