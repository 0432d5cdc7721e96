"""Personal review cards: each answer a person gives reschedules their card for that question.

The schedule is FSRS (the `fsrs` library), never hand-written: a right answer rates the card
Good, a wrong one Again. Fuzzing is off, because it draws from the global random generator and
ZeroQuiz injects its randomness; the review time is always the answer's (injected clock), since
`fsrs.Card` would otherwise read the wall clock. Storage keeps the card as fsrs's own JSON.

A card's first review is by far the most common one (every answer to a question the person never
met), and without fuzzing its outcome depends on the time only by a shift: fsrs computes it once
per rating (`_FirstReview`), and each first answer builds the same card (fsrs's public `Card`
constructor and `to_json`) with its own times. The test holds this to be byte-for-byte what fsrs
itself gives. It saves about 5 µs of a first card's 11 µs through fsrs (issue 32, shared 2-core
box); card_cost.py puts first-time answers 1.20x the cost without cards, against 1.26x with fsrs
every time. fsrs (and the two first reviews) are made at the first answer, not at import: a start
that shows a question or answers a command never needs them.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

from bot.storage import CardState

if TYPE_CHECKING:
    from fsrs import Card, Rating, Scheduler

WEEK = timedelta(days=7)  # "due this week": within the coming seven days


class _FirstReview(NamedTuple):
    """fsrs's new card after one first review at one rating: its due time is `interval` after
    the review, the rest (state, step, stability, difficulty) the same whenever it happens."""

    card: Card
    interval: timedelta

    @classmethod
    def of(cls, rating: Rating) -> _FirstReview:
        from fsrs import Card

        when = datetime(2000, 1, 1, tzinfo=UTC)
        card, _ = _scheduler().review_card(Card(card_id=0, due=when), rating, when)
        return cls(card, card.due - when)

    def at(self, when: datetime, *, missed: bool) -> CardState:
        from fsrs import Card

        first, due = self.card, when + self.interval
        card = Card(
            card_id=first.card_id,
            state=first.state,
            step=first.step,
            stability=first.stability,
            difficulty=first.difficulty,
            due=due,
            last_review=when,
        )
        return CardState(card.to_json(), due, when, missed)


@cache
def _scheduler() -> Scheduler:
    from fsrs import Scheduler

    return Scheduler(enable_fuzzing=False)


@cache
def _first(correct: bool) -> _FirstReview:
    from fsrs import Rating

    return _FirstReview.of(Rating.Good if correct else Rating.Again)


def next_card(prior: str | None, correct: bool, at: datetime) -> CardState:
    """The card after one answer at `at`, from its stored JSON (None: the first answer)."""
    when = at.astimezone(UTC)
    if prior is None:
        return _first(correct).at(when, missed=not correct)
    return fsrs_next_card(prior, correct, when)


def fsrs_next_card(prior: str | None, correct: bool, at: datetime) -> CardState:
    """The same as `next_card`, always through fsrs (the first-review shortcut's reference)."""
    from fsrs import Card, Rating

    when = at.astimezone(UTC)
    card = Card.from_json(prior) if prior else Card(card_id=0, due=when)
    card, _ = _scheduler().review_card(card, Rating.Good if correct else Rating.Again, when)
    assert card.last_review is not None
    return CardState(card.to_json(), card.due, card.last_review, not correct)
