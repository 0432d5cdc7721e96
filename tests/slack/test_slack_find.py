"""After a crash between posting a question and saving its `ts`, the Slack port finds the message
by the round's key in its metadata instead of posting it again (ChatPort.post_question's
`tried_since`). The real SlackPort and slack_sdk against the fake Slack's conversations.history.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime, timedelta

import pytest
from fake_slack import BOT_TOKEN, CHANNEL, QUICK_RETRIES, TEAM, FakeSlack
from helpers import round_row

from adapters.slack.port import SlackPort
from adapters.slack.web import build_client
from bot import presenter
from bot.bank import Bank
from bot.model import ChannelRef, Lang
from bot.ports import Unavailable
from bot.views import QuestionView

HERE = ChannelRef("slack", TEAM, CHANNEL)
KEY = "zqq7t1700000000000"


async def english(_: ChannelRef) -> Lang:
    return "en"


def port_for(fake: FakeSlack) -> SlackPort:
    return SlackPort(build_client(BOT_TOKEN, fake.api_url + "/", backoff=QUICK_RETRIES), english)


def question(bank: Bank) -> QuestionView:
    row = round_row(bank.questions[0], "en", platform="slack", opened_at=1_767_603_600_000)
    return presenter.question_view(row, bank.questions[0], 0)


def opened() -> datetime:
    return datetime.now(UTC) - timedelta(seconds=5)


def chatter(fake: FakeSlack, n: int) -> None:
    """`n` other messages said in the channel after the question."""
    for _ in range(n):
        ts = fake._new_ts()
        fake.messages[ts] = {"channel": CHANNEL, "text": "lunch?", "blocks": []}
        fake.posted[ts] = fake.messages[ts]
        fake.history[CHANNEL].append(ts)


async def test_a_retry_finds_the_question_posted_before_and_posts_nothing(
    fake: FakeSlack, bank: Bank
) -> None:
    port = port_for(fake)
    first = await port.post_question(HERE, question(bank), dedupe_key=KEY)  # its answer "lost"
    chatter(fake, 450)  # more than two pages of the channel said since
    again = await port.post_question(HERE, question(bank), dedupe_key=KEY, tried_since=opened())
    assert again == first
    assert len(fake.calls_to("chat.postMessage")) == 1  # shown once
    looks = fake.calls_to("conversations.history")
    assert len(looks) == 3  # 200 + 200 + the page holding it
    assert all(float(c.args["oldest"]) < time.time() - 60 for c in looks)  # the clocks' margin


async def test_a_first_try_reads_nothing_back(fake: FakeSlack, bank: Bank) -> None:
    port = port_for(fake)
    ts = await port.post_question(HERE, question(bank), dedupe_key=KEY)
    assert fake.calls_to("conversations.history") == []
    assert fake.metadata[str(ts)] == {
        "event_type": "zeroquiz_question",
        "event_payload": {"key": KEY},
    }


async def test_another_rounds_question_is_not_taken_for_this_one(
    fake: FakeSlack, bank: Bank
) -> None:
    port = port_for(fake)
    other = await port.post_question(HERE, question(bank), dedupe_key="zqq6t1")
    mine = await port.post_question(HERE, question(bank), dedupe_key=KEY, tried_since=opened())
    assert mine != other and len(fake.calls_to("chat.postMessage")) == 2  # never reached: posted


async def test_a_message_before_the_round_opened_is_not_read(fake: FakeSlack, bank: Bank) -> None:
    port = port_for(fake)
    await port.post_question(HERE, question(bank), dedupe_key=KEY)
    later = datetime.now(UTC) + timedelta(minutes=5)  # the round opened after that message
    await port.post_question(HERE, question(bank), dedupe_key=KEY, tried_since=later)
    assert len(fake.calls_to("chat.postMessage")) == 2


async def test_without_the_history_scope_the_question_is_posted_again_and_logged(
    fake: FakeSlack, bank: Bank, caplog: pytest.LogCaptureFixture
) -> None:
    port = port_for(fake)
    await port.post_question(HERE, question(bank), dedupe_key=KEY)
    fake.errors["conversations.history"].append("missing_scope")
    with caplog.at_level(logging.WARNING):
        await port.post_question(HERE, question(bank), dedupe_key=KEY, tried_since=opened())
    assert len(fake.calls_to("chat.postMessage")) == 2  # shown twice rather than never
    assert "history can't be read (missing_scope)" in caplog.text


async def test_a_passing_failure_of_the_look_back_posts_nothing_yet(
    fake: FakeSlack, bank: Bank
) -> None:
    port = port_for(fake)
    await port.post_question(HERE, question(bank), dedupe_key=KEY)
    fake.errors["conversations.history"].append("internal_error")
    with pytest.raises(Unavailable):  # tried again later, like a post that failed in passing
        await port.post_question(HERE, question(bank), dedupe_key=KEY, tried_since=opened())
    assert len(fake.calls_to("chat.postMessage")) == 1
