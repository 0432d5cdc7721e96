"""Which question to ask next: none again in a channel until every question has been asked."""

from __future__ import annotations

import random

from bot.bank import Bank
from bot.model import Question


def choose_question(bank: Bank, uses: dict[str, int], rng: random.Random) -> Question:
    """A random question among those asked least often in this channel."""
    least = min(uses.get(qu.id, 0) for qu in bank.questions)
    fresh = [qu for qu in bank.questions if uses.get(qu.id, 0) == least]
    return fresh[rng.randrange(len(fresh))]
