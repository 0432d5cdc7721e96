"""A busy question: 100 people clicking at once, twice each, over real HTTP."""

from __future__ import annotations

import asyncio

from fake_slack import (
    TEAM,
    FakeSlack,
    SlackHarness,
    shown,
)

from bot.clock import FakeClock
from bot.model import TeamRef

PEOPLE = 100
TEAM_REF = TeamRef("slack", TEAM)


async def test_hundred_people_double_clicking_count_once_and_edit_rarely(
    slack: SlackHarness, fake: FakeSlack, clock: FakeClock
) -> None:
    users = [f"UP{n:03d}" for n in range(PEOPLE)]
    for n, user in enumerate(users):
        fake.add_user(user, f"Person {n}")
    await slack.ask("question")
    _, message = slack.question()
    round_id = int(message["blocks"][3]["elements"][0]["value"].split(":")[0])

    clicks = [slack.click("ABCD"[(n + k) % 4], user=u) for k in (0, 1) for n, u in enumerate(users)]
    results = await asyncio.gather(*clicks)
    assert [status for status, _ in results] == [200] * 2 * PEOPLE  # every click acknowledged

    keys = [key for _, key in results]
    await fake.wait_until(lambda: all(fake.replies[k] for k in keys), "200 private replies")
    replies = [shown(fake.replies[k][0]["blocks"]) for k in keys]
    firsts = sum("Correct!" in r or "Not quite" in r for r in replies)
    seconds = sum("You already answered" in r for r in replies)
    assert (firsts, seconds) == (PEOPLE, PEOPLE)
    assert all(len(fake.replies[k]) == 1 for k in keys)

    view = await slack.runtime.quiz.rounds.question_view(round_id)
    assert view is not None and view.answer_count == PEOPLE  # exactly one answer per person

    await fake.wait_until(lambda: bool(fake.calls_to("chat.update")), "the first live count")
    burst_updates = len(fake.calls_to("chat.update"))
    await clock.advance(5)  # the coalescing interval: at most one more edit
    await fake.wait_until(
        lambda: (
            f"{PEOPLE} answered so far" in shown(fake.calls_to("chat.update")[-1].args["blocks"])
        ),
        "the final live count",
    )
    total_updates = len(fake.calls_to("chat.update"))
    assert burst_updates <= total_updates <= 2  # one edit per 5 s, not one per click
    # Names are fetched after the answers, in the background: one per person (the asker
    # included), never one per click.
    wanted = {f"Person {n}" for n in range(PEOPLE)}

    async def names() -> set[str]:
        board = await slack.runtime.quiz.leaderboard(TEAM_REF, "all", lang="en", limit=PEOPLE)
        return {r.name for r in board.rows}

    deadline = asyncio.get_running_loop().time() + 10
    while await names() != wanted:  # every name stored: the last lookup has come back
        assert asyncio.get_running_loop().time() < deadline, "the display names were not stored"
        await asyncio.sleep(0.01)  # real I/O: the background lookups go over HTTP
    lookups = len(fake.calls_to("users.info"))
    assert lookups == PEOPLE + 1
    assert await names() == wanted
    print(
        f"\n{PEOPLE} people x 2 clicks: {firsts} answers recorded, chat.update during burst="
        f"{burst_updates}, after +5 s={total_updates}, users.info={lookups}"
    )
