"""Twenty lives of `zeroquiz serve` on one database, each ended by a SIGKILL at a random moment.

Each cycle starts a real child process against the fake Discord, asks for a question, lets a
dozen people click, and kills the process somewhere in that (while the question is being posted,
while clicks are being recorded or answered, or after). A last process closes whatever is still
open. Then: every click the fake saw acknowledged is in the database and in its question's
reveal, no answer is counted twice, every question shown is shown in one message only, and
every one of those messages ends as its reveal.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import signal
from pathlib import Path

from fake_discord import MANAGE_GUILD, FakeDiscord, custom_ids, letter_ids, user
from serve_process import (
    Serve,
    answered_users,
    discord_env,
    discord_ready,
    embed_text,
    poll,
    reveal_total,
    start_serve,
)

CYCLES = 20
PEOPLE = 12  # per cycle, each a different person
WAIT = 15.0
ROUND_OF = re.compile(r"^zq:a:(\d+):")


def round_of(fake: FakeDiscord, mid: int) -> int | None:
    """The round a question message belongs to, from its buttons (None once it is a reveal)."""
    ids = custom_ids(fake.messages[mid])
    found = ROUND_OF.match(ids[0]) if ids else None
    return int(found.group(1)) if found else None


async def test_twenty_sigkills_lose_no_acknowledged_click_and_reveal_every_question_once(
    fake_discord: FakeDiscord, tmp_path: Path, serves: list[Serve]
) -> None:
    fake = fake_discord
    db = tmp_path / "loop.sqlite3"
    rng = random.Random(20261201)
    acked: dict[str, str] = {}  # interaction token -> who clicked
    clicked: dict[str, int] = {}  # interaction token -> message clicked
    rounds: dict[int, int | None] = {}  # question message -> its round, read off its buttons

    async def watch() -> None:  # every message as soon as it is on screen, before any reveal
        while True:
            for mid in fake.posted:
                rounds.setdefault(mid, round_of(fake, mid))
            await asyncio.sleep(0.002)

    watcher = asyncio.create_task(watch())
    # Every cycle asks in the one channel while earlier questions are still open, and the last
    # process closes them all, one command each: the limits this test is not about (one open
    # question per channel, a person's command rate) are off.
    env = discord_env(fake) | {
        "ZEROQUIZ_LIMIT_CHANNEL_OPEN_QUESTIONS": "0",
        "ZEROQUIZ_LIMIT_PERSON_BURST": "0",
        "ZEROQUIZ_LIMIT_PERSON_PER_MINUTE": "0",
    }

    for cycle in range(CYCLES):
        serve = await start_serve(serves, db, env)
        await discord_ready(fake, serve, identifies=cycle + 1)
        before = len(fake.posted)

        async def play(cycle: int = cycle, before: int = before) -> None:
            await fake.slash("question")
            await poll(lambda: len(fake.posted) > before, "the question", WAIT)
            mid = fake.posted[-1]
            ids = letter_ids(fake.messages[mid])  # the letters, not Type it
            for n in range(PEOPLE):
                who = user(100 * cycle + n)
                token = await fake.click(mid, ids[n % len(ids)], who)
                clicked[token] = mid
                acked[token] = str(who["id"])
                await asyncio.sleep(0.005)

        game = asyncio.create_task(play())
        await asyncio.sleep(rng.uniform(0.0, 0.4))  # the random moment
        assert await serve.kill() == -signal.SIGKILL
        with contextlib.suppress(Exception):  # cut short by the kill, or done already
            await asyncio.wait_for(game, WAIT)
        await asyncio.sleep(0.05)  # callbacks already on their way are read by the fake

    answered = {t: who for t, who in acked.items() if fake.responses.get(t)}
    last = await start_serve(serves, db, env)
    await discord_ready(fake, last, identifies=CYCLES + 1)
    while True:  # close every question still open, newest first
        reply = await fake.reply_to(await fake.slash("close", permissions=MANAGE_GUILD), WAIT)
        if "Closed the open question." not in embed_text(reply):
            assert "no open question" in embed_text(reply), last.text
            break
    await poll(
        lambda: all(not fake.messages[m]["components"] for m in fake.posted),
        "every question turned into its reveal",
        WAIT,
    )
    assert await last.terminate() == 0, last.text
    watcher.cancel()

    shown_rounds = [rounds.get(m) for m in fake.posted]
    assert len(shown_rounds) == len(set(shown_rounds)), "a question was shown twice"
    lost: list[str] = []
    for mid in fake.posted:
        round_id = rounds.get(mid)
        assert round_id, f"message {mid} was not a question seen by this test"
        people = {who for t, who in answered.items() if clicked[t] == mid}
        recorded, rows = answered_users(db, round_id, people)
        lost += sorted(people - recorded)
        total = reveal_total(embed_text(fake.messages[mid]))
        assert total == rows, f"round {round_id}: the reveal says {total}, the database {rows}"
    assert not lost, f"acknowledged but not recorded: {lost}"
    assert len(answered) > 0 and len(answered) < CYCLES * PEOPLE  # kills landed mid-way
    print(f"\n{CYCLES} kills: {len(fake.posted)} questions, {len(answered)} clicks acknowledged")
