"""Which question to ask next: none again in a channel until every question has been asked.

With a topic or level filter the same holds within the matching questions.
"""

from __future__ import annotations

import random

from bot.bank import Bank
from bot.model import Question
from bot.topics import NO_FILTER, Filter


def choose_question(
    bank: Bank, uses: dict[str, int], rng: random.Random, flt: Filter = NO_FILTER
) -> Question:
    """A random question among the matching ones asked least often in this channel."""
    pool = [qu for qu in bank.questions if flt.matches(qu)] or bank.questions
    least = min(uses.get(qu.id, 0) for qu in pool)
    fresh = [qu for qu in pool if uses.get(qu.id, 0) == least]
    return fresh[rng.randrange(len(fresh))]
