"""Topic and level words over signed HTTP: the question posted is of that topic."""

from __future__ import annotations

from fake_slack import FakeSlack, SlackHarness, shown
from helpers import entry_shown

from bot.bank import Bank


def posted_question_tags(fake: FakeSlack, bank: Bank) -> tuple[str, ...]:
    [post] = fake.calls_to("chat.postMessage")
    text = shown(post.args["blocks"])
    return entry_shown(bank, text).tags  # a hand-written question or a template's draw


async def test_question_with_a_topic_posts_a_question_of_that_topic(
    slack: SlackHarness, fake: FakeSlack, bank: Bank
) -> None:
    reply = await slack.ask("question offload")
    assert reply["response_type"] == "ephemeral"
    assert "Question posted." in shown(reply["blocks"])
    assert "offload" in posted_question_tags(fake, bank)


async def test_an_unknown_topic_gets_the_list_privately_and_posts_nothing(
    slack: SlackHarness, fake: FakeSlack
) -> None:
    reply = await slack.ask("start 3 nosuch hard")
    assert reply["response_type"] == "ephemeral"
    text = shown(reply["blocks"])
    assert "There is no topic" in text and "nosuch" in text
    assert "offload" in text and "zeropp" in text and "memory-math" in text
    assert fake.calls_to("chat.postMessage") == []


async def test_indonesian_level_words_and_the_unknown_topic_in_indonesian(
    slack: SlackHarness, fake: FakeSlack, bank: Bank
) -> None:
    await slack.ask("lang id", user="UADMIN")
    reply = await slack.ask("question sulit offload")
    assert "Soal sudah dikirim." in shown(reply["blocks"])
    [post] = fake.calls_to("chat.postMessage")
    entry = entry_shown(bank, shown(post.args["blocks"]))
    assert "offload" in entry.tags and entry.difficulty == 3
    text = shown((await slack.ask("start 2 tidakada mudah"))["blocks"])
    assert "Tidak ada topik" in text and "tidakada" in text and "zeropp" in text
    assert len(fake.calls_to("chat.postMessage")) == 1  # the unknown topic posted nothing
