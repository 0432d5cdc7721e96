"""Topic and difficulty filters: the words after `question` / `start N`, in any order.

A filter only chooses the question; a run keeps its filter (storage runs.topic, runs.level) and
a daily schedule its topics (schedules.topics), so a restart goes on with them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from bot.bank import Bank
from bot.bank.templates import Template
from bot.model import Question

Entry = Question | Template  # what a person can be asked: a question, or a template's draw

# Level words in both languages, and the digits, to the bank's difficulty (1-3).
LEVEL_WORDS: dict[str, int] = {
    "1": 1,
    "2": 2,
    "3": 3,
    "easy": 1,
    "medium": 2,
    "hard": 3,
    "mudah": 1,
    "sedang": 2,
    "sulit": 3,
}
LEVELS = ("easy", "medium", "hard")


@dataclass(frozen=True)
class Filter:
    topic: str | None = None
    level: int | None = None
    any_of: tuple[str, ...] = ()  # a daily schedule's topics: a question with one of them

    def matches(self, question: Entry) -> bool:
        if self.topic is not None and self.topic not in question.tags:
            return False
        if self.any_of and not set(self.any_of) & set(question.tags):
            return False
        return self.level is None or question.difficulty == self.level


NO_FILTER = Filter()


class UnknownTopic(NamedTuple):
    word: str


def topics(bank: Bank) -> tuple[str, ...]:
    """The bank's tags, sorted: the topics a person can ask for."""
    return tuple(sorted({tag for entry in entries(bank) for tag in entry.tags}))


def parse_level(word: str) -> int | None:
    return LEVEL_WORDS.get(word.strip().lower())


def parse_filter(words: tuple[str, ...], bank: Bank) -> Filter | UnknownTopic:
    """Level words and one topic, in any order; any other word is an unknown topic."""
    known = set(topics(bank))
    topic: str | None = None
    level: int | None = None
    for word in words:
        lowered = word.lower()
        parsed = parse_level(lowered)
        if parsed is not None and level is None:
            level = parsed
        elif lowered in known and topic is None:
            topic = lowered
        else:
            return UnknownTopic(word)
    return Filter(topic, level)


def entries(bank: Bank) -> list[Entry]:
    return [*bank.questions, *bank.templates]


def matching(bank: Bank, flt: Filter) -> list[Entry]:
    """The questions and templates a filter lets through (a template counts once)."""
    return [entry for entry in entries(bank) if flt.matches(entry)]
