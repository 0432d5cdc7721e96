"""The App Home tab: a person's own page, drawn when they open it, inside the Home surface's limits.

Render tests build the core's HomeView through the presenter (a new person, a regular player, an
admin; both languages); the end-to-end tests send Slack's signed `app_home_opened` to the real
Bolt app and read what the fake Slack received through views.publish.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fake_slack import (
    CHANNEL,
    HOME_BLOCKS,
    TEAM,
    FakeSlack,
    SlackHarness,
    block_problems,
    open_harness,
    shown,
    signed_headers,
)

from adapters.slack import render
from bot import presenter
from bot.bank import Bank
from bot.clock import FakeClock
from bot.i18n import t
from bot.model import LANGS, Lang
from bot.views import HomeView, LeaderRow, ScheduleLine

HOSTILE = "<!channel> & <@U1> *bold*"


def home(
    lang: Lang,
    history: list[tuple[bool, int]],
    top: list[LeaderRow],
    me: LeaderRow | None,
    schedules: tuple[ScheduleLine, ...] | None,
) -> HomeView:
    stats = presenter.stats_view(lang, "Ada", history)
    week = presenter.leaderboard_view(lang, "week", top, me, asked=True)
    return presenter.home_view(stats, week, schedules)


def assert_home_fits(view: dict[str, Any]) -> str:
    """The view Slack's Home surface takes; returns the text a reader sees."""
    assert view["type"] == "home"
    assert 0 < len(view["blocks"]) <= HOME_BLOCKS
    assert block_problems(view["blocks"], most_blocks=HOME_BLOCKS) == []
    text = shown(view["blocks"])
    assert "<!" not in text and "<@" not in text  # nobody is pinged from a Home tab
    return text


@pytest.mark.parametrize("lang", LANGS)
def test_a_new_person_is_told_how_to_begin(lang: Lang) -> None:
    view = render.home_view(home(lang, [], [], None, None))
    text = assert_home_fits(view)
    assert t(lang, "home_new") in text
    assert t(lang, "leaderboard_you_none", period=t(lang, "period_week")) in text
    assert t(lang, "leaderboard_empty", period=t(lang, "period_week")) in text
    assert t(lang, "stats_title") not in text  # no table of zeros
    assert t(lang, "home_daily_title") not in text  # not an admin


@pytest.mark.parametrize("lang", LANGS)
def test_a_regular_player_sees_stats_streak_rank_and_the_top_ten(lang: Lang) -> None:
    history = [(True, 10), (False, 0), (True, 12), (True, 9), (True, 11)]
    top = [
        LeaderRow(n, f"U{n}", f"{HOSTILE} {n}" + "x" * 3000, 500 - n, 9, 10) for n in range(1, 11)
    ]
    me = LeaderRow(14, "U14", "Ada", 42, 4, 5)
    view = render.home_view(home(lang, history, top, me, None))
    text = assert_home_fits(view)
    assert t(lang, "home_new") not in text
    assert f"*{t(lang, 'stats_streak')}*\n3" in text  # right three times running
    assert f"*{t(lang, 'stats_best_streak')}*\n3" in text
    assert f"*{t(lang, 'stats_points')}*\n42" in text
    assert t(lang, "leaderboard_you", rank=14, points=42, correct=4) in text
    assert t(lang, "home_top_title") in text
    # Ten rows, each cut to fit and escaped, not one running into the next.
    assert all(f"{n}. &lt;!channel&gt; &amp; &lt;@U1&gt; *bold* {n}" in text for n in range(1, 11))
    assert t(lang, "home_daily_title") not in text


@pytest.mark.parametrize("lang", LANGS)
def test_an_admin_also_sees_the_daily_schedules(lang: Lang) -> None:
    when = t(lang, "home_daily_next", when="2026-01-06 09:00", tz="Asia/Jakarta")
    line = t(lang, "home_daily_line", time="09:00", tz="Asia/Jakarta", days=t(lang, "days_every"))
    many = tuple(
        ScheduleLine(f"C{n:04d}", datetime(2026, 1, 6, 2, tzinfo=UTC), f"{line} · {when}")
        for n in range(400)  # more than one section holds: whole lines, then an ellipsis
    )
    text = assert_home_fits(render.home_view(home(lang, [(True, 10)], [], None, many)))
    assert t(lang, "home_daily_title") in text
    assert f"<#C0000> · {line} · {when}" in text
    assert text.count("<#C") < 400 and "\n…" in text
    for part in text.split("<#")[1:]:
        assert part.startswith("C") and ">" in part  # no channel link cut in half
    empty = assert_home_fits(render.home_view(home(lang, [(True, 10)], [], None, ())))
    assert t(lang, "home_daily_none") in empty


# -- end to end: the real Bolt app over signed HTTP, against the fake Slack -----------------------
@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2026, 1, 5, 8, 0, tzinfo=UTC))  # a Monday, before 09:00


def home_opened(user: str | None, tab: str = "home") -> dict[str, Any]:
    event: dict[str, Any] = {"type": "app_home_opened", "channel": "D0HOME", "tab": tab}
    event |= {"user": user} if user is not None else {}
    return {
        "token": "unused",
        "team_id": TEAM,
        "api_app_id": "A0ZEROQUIZ",
        "event": {**event, "event_ts": "1767600000.000100"},
        "type": "event_callback",
        "event_id": f"Ev{user}{tab}",
        "event_time": 1767600000,
    }


async def open_home(slack: SlackHarness, user: str | None, tab: str = "home") -> int:
    text = json.dumps(home_opened(user, tab))
    return await slack.post(text, signed_headers(text) | {"Content-Type": "application/json"})


async def test_opening_home_publishes_the_persons_page_in_their_channel_language(
    slack: SlackHarness, fake: FakeSlack
) -> None:
    await slack.ask("lang id", user="UADMIN")
    await slack.ask("daily 09:00 UTC", user="UADMIN")
    await slack.ask("question", user="U1")
    status, key = await slack.click("A", user="U1")
    assert status == 200
    await fake.reply(key)
    await fake.wait_until(lambda: bool(fake.calls_to("users.info")), "a name lookup")

    assert await open_home(slack, "U1") == 200
    await fake.wait_until(lambda: "U1" in fake.homes, "the Home tab of U1")
    [publish] = fake.calls_to("views.publish")
    assert publish.args["user_id"] == "U1"
    text = assert_home_fits(fake.homes["U1"])
    assert t("id", "stats_title") in text  # the language of the channel U1 played in
    assert f"*{t('id', 'stats_answered')}*\n1" in text
    assert "#1 · " in text or t("id", "leaderboard_you_none", period="minggu ini") in text
    assert t("id", "home_top_title") in text
    assert t("id", "home_daily_title") not in text  # U1 is no admin

    # An admin who never answered: English, how to begin, and the channel's daily question.
    assert await open_home(slack, "UADMIN") == 200
    await fake.wait_until(lambda: "UADMIN" in fake.homes, "the Home tab of the admin")
    admin = assert_home_fits(fake.homes["UADMIN"])
    assert t("en", "home_new") in admin
    assert f"<#{CHANNEL}> · 09:00 (UTC), Monday to Friday · next: 2026-01-05 09:00 (UTC)" in admin

    # Opened again: drawn again (fresh, never on a timer); the Messages tab draws nothing.
    assert await open_home(slack, "U1", tab="messages") == 200
    assert await open_home(slack, "U1") == 200
    await fake.wait_until(lambda: len(fake.calls_to("views.publish")) == 3, "a second publish")
    assert [c.args["user_id"] for c in fake.calls_to("views.publish")] == ["U1", "UADMIN", "U1"]


async def test_a_home_event_without_a_user_is_refused_before_bolt(
    slack: SlackHarness, fake: FakeSlack
) -> None:
    assert await open_home(slack, None) == 400
    assert fake.calls_to("views.publish") == []


async def test_opening_home_over_socket_mode(
    fake: FakeSlack, db_path: Path, clock: FakeClock, bank: Bank
) -> None:
    slack = await open_harness(fake, db_path, clock, bank, socket=True)
    try:
        await fake.send_envelope("events_api", home_opened("U2"))
        await fake.wait_until(lambda: "U2" in fake.homes, "the Home tab over Socket Mode")
        assert t("en", "home_new") in shown(fake.homes["U2"]["blocks"])
    finally:
        await slack.close()


@pytest.mark.parametrize("lang", LANGS)
def test_schedule_topics_fit_however_many_and_long(lang: Lang) -> None:
    """A schedule of many long topics: its line is cut to a Home line (the topics come last,
    so only they are shortened), the channel link and time whole, every block in its limit."""
    topics = tuple(f"{HOSTILE}{'t' * 40}{n}" for n in range(60))
    line = t(lang, "home_daily_line", time="09:00", tz="UTC", days=t(lang, "days_every"))
    text = f"{line} · {t(lang, 'daily_topics', topics=', '.join(topics))}"
    many = tuple(ScheduleLine(f"C{n:04d}", None, text, topics) for n in range(40))
    shown_text = assert_home_fits(render.home_view(home(lang, [(True, 10)], [], None, many)))
    first = shown_text.split("<#C0000> · ", 1)[1].split("\n", 1)[0]
    assert first.startswith(f"{line} · {t(lang, 'daily_topics', topics='')[:8]}")
    assert first.endswith("…") and len(f"<#C0000> · {first}") <= render.HOME_LINE


async def test_the_admins_home_names_each_schedules_topics_in_the_persons_language(
    slack: SlackHarness, fake: FakeSlack
) -> None:
    await slack.ask("daily 09:00 UTC mon-fri offload zeropp", user="UADMIN")
    assert await open_home(slack, "UADMIN") == 200
    await fake.wait_until(lambda: "UADMIN" in fake.homes, "the Home tab of the admin")
    english = assert_home_fits(fake.homes["UADMIN"])
    assert (
        f"<#{CHANNEL}> · 09:00 (UTC), Monday to Friday · next: 2026-01-05 09:00 (UTC)"
        " · Questions on: offload, zeropp." in english
    )
    await slack.ask("lang id", user="UADMIN")
    await slack.ask("question", user="UADMIN")  # the admin now plays in this Indonesian channel
    status, key = await slack.click("A", user="UADMIN")
    assert status == 200
    await fake.reply(key)
    published = len(fake.calls_to("views.publish"))
    assert await open_home(slack, "UADMIN", tab="home") == 200
    await fake.wait_until(lambda: len(fake.calls_to("views.publish")) > published, "again")
    indonesian = assert_home_fits(fake.homes["UADMIN"])
    assert "· Soal tentang: offload, zeropp." in indonesian
