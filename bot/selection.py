"""Which question to ask next: none again in a channel until every question has been asked.

With a topic or level filter the same holds within the matching questions. A template is one
entry among the questions (its draws `tid@seed` count as its uses); when it is chosen, the seed of
its numbers is drawn here with the same generator.
"""

from __future__ import annotations

import random
from collections import Counter

from bot.bank import Bank
from bot.bank.packs import use_key
from bot.bank.templates import SEED_LIMIT, Template
from bot.model import Question
from bot.topics import NO_FILTER, Filter, entries

DRAW_TRIES = 8  # a checked template draws a valid question on every sampled seed


def choose_question(
    bank: Bank, uses: dict[str, int], rng: random.Random, flt: Filter = NO_FILTER
) -> Question:
    """A random question among the matching ones asked least often in this channel."""
    everything = entries(bank)
    pool = [entry for entry in everything if flt.matches(entry)] or everything
    asked = Counter[str]()
    for question_id, n in uses.items():
        asked[use_key(question_id)] += n
    least = min(asked[use_key(entry.id)] for entry in pool)
    fresh = [entry for entry in pool if asked[use_key(entry.id)] == least]
    chosen = fresh[rng.randrange(len(fresh))]
    if isinstance(chosen, Question):
        return chosen
    return _draw(bank, chosen, rng) or bank.questions[rng.randrange(len(bank.questions))]


def _draw(bank: Bank, template: Template, rng: random.Random) -> Question | None:
    for _ in range(DRAW_TRIES):
        question = bank.get(f"{template.id}@{rng.randrange(SEED_LIMIT)}")
        if question is not None:
            return question
    return None
