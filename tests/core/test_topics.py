"""Topic and difficulty filters for `question` and `start N`, in both languages."""

from __future__ import annotations

import random

import pytest
from conftest import CHANNEL
from helpers import RecordingPort

from bot.bank import Bank
from bot.commands import Context, dispatch, parse_text
from bot.model import UserRef
from bot.quiz import Quiz
from bot.selection import choose_question
from bot.topics import Filter, UnknownTopic, matching, parse_filter, topics
from bot.views import NoticeView

ALICE = UserRef("test", "T1", "UA", "Alice")


def ctx() -> Context:
    async def no() -> bool:
        return False

    return Context(channel=CHANNEL, user=ALICE, is_admin=no)


@pytest.mark.parametrize(
    ("word", "level"),
    [("1", 1), ("easy", 1), ("mudah", 1), ("MEDIUM", 2), ("sedang", 2), ("hard", 3), ("sulit", 3)],
)
def test_level_words_in_both_languages(bank: Bank, word: str, level: int) -> None:
    assert parse_filter((word,), bank) == Filter(None, level)
    assert parse_filter(("offload", word), bank) == Filter("offload", level)
    assert parse_filter((word, "offload"), bank) == Filter("offload", level)  # any order


def test_an_unknown_word_is_an_unknown_topic(bank: Bank) -> None:
    assert parse_filter(("nosuch",), bank) == UnknownTopic("nosuch")
    assert parse_filter(("4",), bank) == UnknownTopic("4")
    assert parse_filter(("hard", "easy"), bank) == UnknownTopic("easy")  # one level only
    assert "offload" in topics(bank) and "zeropp" in topics(bank)


def test_choice_stays_in_the_filter_and_repeats_only_when_it_is_exhausted(bank: Bank) -> None:
    flt = Filter("zeropp", None)
    ids = {entry.id for entry in matching(bank, flt)}  # a template counts once, like a question
    uses: dict[str, int] = {}
    rng = random.Random(3)
    seen = []
    for _ in range(len(ids)):
        question = choose_question(bank, uses, rng, flt)
        seen.append(question.id.partition("@")[0])  # a template's draw is `tid@seed`
        uses[question.id] = uses.get(question.id, 0) + 1
    assert set(seen) == ids  # every matching question once before any again
    hard = choose_question(bank, {}, rng, Filter("zeropp", 3))
    assert "zeropp" in hard.tags and hard.difficulty == 3


async def test_question_with_a_topic_and_level_posts_such_a_question(
    quiz: Quiz, port: RecordingPort
) -> None:
    for _ in range(3):
        reply = await dispatch(quiz, parse_text("question hard zeropp"), ctx())
        assert isinstance(reply, NoticeView) and reply.ok, reply
        question = quiz.bank.get(port.posted[-1][1].question_id)
        assert question is not None and "zeropp" in question.tags and question.difficulty == 3
        await quiz.close_round(port.posted[-1][1].round_id, "admin")
    assert len({view.question_id for _, view in port.posted}) == 3  # none again within the filter


@pytest.mark.parametrize(
    ("lang", "needle"), [("en", "There is no topic"), ("id", "Tidak ada topik")]
)
async def test_an_unknown_topic_answers_privately_with_the_topics(
    quiz: Quiz, port: RecordingPort, lang: str, needle: str
) -> None:
    await quiz.set_channel_lang(CHANNEL, "en" if lang == "en" else "id")
    reply = await dispatch(quiz, parse_text("question nosuch"), ctx())
    assert isinstance(reply, NoticeView) and not reply.ok
    assert needle in reply.text and "nosuch" in reply.text
    assert all(f"`{name}`" in reply.text for name in topics(quiz.bank))
    assert port.posted == []


async def test_a_filter_matching_nothing_says_so(quiz: Quiz, port: RecordingPort) -> None:
    assert not [q for q in quiz.bank.questions if "infinity" in q.tags and q.difficulty == 1]
    reply = await dispatch(quiz, parse_text("start 3 infinity easy"), ctx())
    assert isinstance(reply, NoticeView) and not reply.ok
    assert reply.text == "No question matches that topic and level."
    await quiz.set_channel_lang(CHANNEL, "id")
    reply = await dispatch(quiz, parse_text("question mudah infinity"), ctx())
    assert isinstance(reply, NoticeView) and "Tidak ada soal" in reply.text
    assert port.posted == []


async def test_start_n_with_a_topic_asks_only_that_topics_questions(
    quiz: Quiz, port: RecordingPort
) -> None:
    reply = await dispatch(quiz, parse_text("start 5 offload"), ctx())
    assert isinstance(reply, NoticeView) and reply.ok, reply
    for _ in range(5):
        await quiz.close_round(port.posted[-1][1].round_id, "next")
    assert len(port.posted) == 5
    for _, view in port.posted:
        question = quiz.bank.get(view.question_id)
        assert question is not None and "offload" in question.tags
    assert len({view.question_id for _, view in port.posted}) == 5


async def test_start_cannot_ask_more_than_the_filter_holds(quiz: Quiz, port: RecordingPort) -> None:
    held = len(matching(quiz.bank, Filter("zeropp", None)))
    reply = await dispatch(quiz, parse_text(f"start {held + 1} zeropp"), ctx())
    assert isinstance(reply, NoticeView) and not reply.ok
    assert reply.text == f"Choose between 1 and {held} questions."
