"""Personal review cards: each answer a person gives reschedules their card for that question.

The schedule is FSRS (the `fsrs` library), never hand-written: a right answer rates the card
Good, a wrong one Again. Fuzzing is off, because it draws from the global random generator and
ZeroQuiz injects its randomness; the review time is always the answer's (injected clock), since
`fsrs.Card` would otherwise read the wall clock. Storage keeps the card as fsrs's own JSON.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fsrs import Card, Rating, Scheduler

from bot.storage import CardState

_SCHEDULER = Scheduler(enable_fuzzing=False)
WEEK = timedelta(days=7)  # "due this week": within the coming seven days


def next_card(prior: str | None, correct: bool, at: datetime) -> CardState:
    """The card after one answer at `at`, from its stored JSON (None: the first answer)."""
    when = at.astimezone(UTC)
    card = Card.from_json(prior) if prior else Card(card_id=0, due=when)
    card, _ = _SCHEDULER.review_card(card, Rating.Good if correct else Rating.Again, when)
    assert card.last_review is not None
    return CardState(card.to_json(), card.due, card.last_review)
