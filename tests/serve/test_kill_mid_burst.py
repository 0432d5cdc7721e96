"""Acknowledged means recorded, across a SIGKILL of `zeroquiz serve` in the middle of a burst.

A real `zeroquiz serve` child (the working tree's code, run as `python -m adapters.cli`) takes 300
concurrent clicks from 300 different people and is SIGKILLed once the first acknowledgements are
back, while the rest are still in flight. A second `zeroquiz serve` on the same SQLite file then
closes the question. Every click the platform saw acknowledged must be in the reveal's total and
have its answer row in the database; nothing may be counted twice.

Slack: acknowledged = the click's HTTP request got 200. Discord: acknowledged = the fake Discord
received the interaction callback for that click.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import aiohttp
from fake_discord import MANAGE_GUILD, FakeDiscord, letter_ids, user
from fake_slack import FakeSlack
from serve_process import (
    BURST_TIMEOUT,
    Serve,
    answered_users,
    click_body,
    discord_env,
    discord_ready,
    embed_text,
    poll,
    reveal_total,
    slack_command,
    slack_env,
    slack_post,
    slack_question,
    slack_reveal,
    start_serve,
    wait_or_fail,
)

PEOPLE = 300  # clicks in the burst, one per person
KILL_AFTER = 60  # acknowledgements seen before the SIGKILL
WAVE = 10  # Discord clicks sent back to back before a short pause
REVEAL_TIMEOUT = 15.0


def check_counts(
    platform: str, acked: set[str], unfinished: int, total: int, recorded: set[str], rows: int
) -> None:
    """Every acknowledged click is counted, once; `unfinished`: clicks cut off by the kill."""
    lost = sorted(acked - recorded)
    report = (
        f"{platform}: {len(acked)} of {PEOPLE} clicks acknowledged before the SIGKILL "
        f"({unfinished} cut off by it); the reveal counts {total}; the database has {rows} "
        f"answer rows in the round; {len(lost)} acknowledged clicks are not recorded"
    )
    print(f"\n{report}")
    mid_burst = 0 < len(acked) < PEOPLE and unfinished > 0
    assert mid_burst, f"the kill did not land mid-burst: {report}"
    assert total <= PEOPLE and rows <= PEOPLE, f"an answer was counted twice: {report}"
    assert not lost, f"acknowledged but not recorded: {report}; e.g. {lost[:5]}"
    assert total >= len(acked), f"the reveal misses acknowledged clicks: {report}"
    assert total == rows, f"the reveal and the database disagree: {report}"


async def test_slack_clicks_acknowledged_before_a_sigkill_are_all_counted(
    fake: FakeSlack, tmp_path: Path, serves: list[Serve]
) -> None:
    db = tmp_path / "burst.sqlite3"
    people = [f"UP{i:03d}" for i in range(PEOPLE)]
    for i, person in enumerate(people):
        fake.add_user(person, f"Player {i}")
    first = await start_serve(serves, db, slack_env(fake))
    url = await first.http_url()
    connector = aiohttp.TCPConnector(limit=0)  # all 300 requests at once, not 100 at a time
    timeout = aiohttp.ClientTimeout(total=BURST_TIMEOUT)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
        posted = await slack_command(fake, http, url, "question", "UADMIN")
        assert "Question posted." in posted, posted
        ts, message, buttons = slack_question(fake)
        round_id = int(buttons[0]["value"].split(":")[0])
        bodies = {  # signed at send time; each person replies on a response_url of their own
            person: click_body(fake, ts, message, buttons[i % len(buttons)], person)
            for i, person in enumerate(people)
        }

        acked: set[str] = set()
        unfinished: set[str] = set()
        statuses: dict[str, int] = {}
        enough = asyncio.Event()

        async def click(person: str) -> None:
            try:
                statuses[person] = await slack_post(http, url, bodies[person])
            except (aiohttp.ClientError, TimeoutError):
                unfinished.add(person)  # cut by the kill, or never connected
                return
            if statuses[person] == 200:
                acked.add(person)
                if len(acked) >= KILL_AFTER:
                    enough.set()

        burst = [asyncio.create_task(click(person)) for person in people]
        await wait_or_fail(enough.wait(), "the first acknowledgements", first)
        assert await first.kill() == -signal.SIGKILL
        await asyncio.wait_for(asyncio.gather(*burst), BURST_TIMEOUT)
        refused = {p: s for p, s in statuses.items() if s != 200}
        assert not refused, f"clicks answered with an error status: {refused}"

        second = await start_serve(serves, db, slack_env(fake))
        url = await second.http_url()
        closed = await slack_command(fake, http, url, "close", "UADMIN")  # admin per users.info
        assert "Closed the open question." in closed, closed
        text = await poll(lambda: slack_reveal(fake, ts), "the reveal", REVEAL_TIMEOUT)
    code = await second.terminate()
    assert code == 0, second.text
    recorded, rows = answered_users(db, round_id, people)
    check_counts("Slack", acked, len(unfinished), reveal_total(text), recorded, rows)


async def test_discord_clicks_acknowledged_before_a_sigkill_are_all_counted(
    fake_discord: FakeDiscord, tmp_path: Path, serves: list[Serve]
) -> None:
    fake = fake_discord
    db = tmp_path / "burst.sqlite3"
    first = await start_serve(serves, db, discord_env(fake))
    await discord_ready(fake, first, identifies=1)
    posted = await fake.reply_to(await fake.slash("question"), timeout=10)
    assert "Question posted." in embed_text(posted), first.text
    mid = fake.posted[-1]
    ids = letter_ids(fake.messages[mid])
    round_id = int(ids[0].split(":")[2])  # zq:a:<round>:<option>
    people = [user(1000 + i) for i in range(PEOPLE)]
    clicks: dict[str, str] = {}  # interaction token -> who clicked

    async def send_all() -> None:
        # The gateway delivers events one after another; sent in waves (about 500 clicks/s) so
        # the bot, which records a wave in one commit, is still busy when the kill lands.
        for i, who in enumerate(people):
            try:
                token = await fake.click(mid, ids[i % len(ids)], who)
            except (AssertionError, ConnectionError):
                return  # the gateway is gone: the rest were never delivered
            clicks[token] = who["id"]
            if i % WAVE == WAVE - 1:
                await asyncio.sleep(0.02)

    def acknowledged() -> set[str]:
        return {who for token, who in list(clicks.items()) if fake.responses.get(token)}

    sender = asyncio.create_task(send_all())
    await poll(lambda: len(acknowledged()) >= KILL_AFTER, "the first callbacks", BURST_TIMEOUT)
    assert await first.kill() == -signal.SIGKILL
    await asyncio.wait_for(sender, BURST_TIMEOUT)
    await asyncio.sleep(0.2)  # callbacks the fake had read before the kill finish recording
    acked = acknowledged()

    second = await start_serve(serves, db, discord_env(fake))
    await discord_ready(fake, second, identifies=2)
    closed = await fake.reply_to(await fake.slash("close", permissions=MANAGE_GUILD), timeout=10)
    assert "Closed the open question." in embed_text(closed), second.text
    revealed = await poll(
        lambda: not fake.messages[mid]["components"] and fake.messages[mid],
        "the reveal",
        REVEAL_TIMEOUT,
    )
    text = embed_text(revealed)
    code = await second.terminate()
    assert code == 0, second.text
    recorded, rows = answered_users(db, round_id, [str(who["id"]) for who in people])
    check_counts("Discord", acked, PEOPLE - len(acked), reveal_total(text), recorded, rows)
