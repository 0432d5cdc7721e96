"""The core's composition root: builds the services bottom up and wires them into a Quiz.

`zeroquiz play`, `zeroquiz serve` (adapters/runtime.py) and the tests all build the core here,
so the layering is decided once: delivery and storage at the bottom, rounds on them, runs,
reveals, daily schedules and live counts on rounds, and Quiz on top.
"""

from __future__ import annotations

import random
from datetime import timedelta

from bot.bank import Bank
from bot.clock import Clock
from bot.daily.service import GRACE, DailySchedules
from bot.delivery import Delivery
from bot.quiz import Quiz
from bot.reveals import Reveals
from bot.rounds import DEFAULT_WINDOW, Rounds
from bot.runs import Runs
from bot.storage import Store


def build_quiz(
    store: Store,
    bank: Bank,
    clock: Clock,
    rng: random.Random,
    *,
    default_window: timedelta = DEFAULT_WINDOW,
    holder: str | None = None,
) -> Quiz:
    """`holder` names this replica in the database's claims (see Rounds)."""
    rounds = Rounds(
        store, bank, clock, rng, Delivery(clock), default_window=default_window, holder=holder
    )
    return Quiz(rounds, Runs(rounds), Reveals(rounds))


def add_daily(quiz: Quiz, *, grace: timedelta = GRACE) -> DailySchedules:
    """Daily questions for a quiz that serves chat platforms (the terminal has none)."""
    quiz.daily = DailySchedules(quiz.rounds, quiz.clock, grace=grace)
    return quiz.daily
