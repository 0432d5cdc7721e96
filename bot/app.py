"""The core's composition root: the one place that builds the services and wires them together.

`zeroquiz play`, `zeroquiz serve` (adapters/runtime.py), the tests and the benches all build the
core here, so the layering is decided once: delivery and storage at the bottom, rounds on them,
runs, reveals, daily schedules and live counts on rounds, and Quiz on top: the record of the
services the surfaces call, with the few actions that coordinate several. Each service gets the
collaborators it uses through its constructor and nothing is set on it afterwards; the only
thing added later is a platform's port, as its surface connects (`Quiz.add_port`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import timedelta
from typing import NamedTuple, TypedDict, Unpack

from bot import review
from bot.bank import Bank
from bot.clock import Clock
from bot.controls.service import Controls
from bot.daily.service import GRACE, DailySchedules
from bot.delivery import Delivery
from bot.drills import Drills
from bot.fanout import Fanout
from bot.insights import Insights
from bot.library import Library
from bot.limits import Limiter, Limits
from bot.liveness import Heartbeat
from bot.quiz import Quiz
from bot.reminders import Reminders
from bot.reports import Reports
from bot.results import Results
from bot.reveals import Reveals
from bot.reviewing import Reviews
from bot.rounds import DEFAULT_WINDOW, Rounds
from bot.runs import Runs
from bot.scheduler import Scheduler
from bot.storage import CardRule, Store
from bot.tally import LiveTally
from bot.teampacks import TeamPacks
from bot.typed_answers import TypedAnswers


class Core(NamedTuple):
    """What a process runs: the quiz, and the parts a chat surface adds to it."""

    quiz: Quiz
    scheduler: Scheduler  # drives the quiz's (and the daily schedules') due work once started
    daily: DailySchedules | None
    tally: LiveTally | None
    heartbeat: Heartbeat  # this replica's "still here" for the others' take-overs, once started
    fanout: Fanout  # the scheduled sends in flight: closed when the process stops


def build_core(
    store: Store,
    bank: Bank,
    clock: Clock,
    rng: random.Random,
    *,
    default_window: timedelta = DEFAULT_WINDOW,
    holder: str | None = None,
    daily: bool = False,
    grace: timedelta = GRACE,
    live_counts: timedelta | None = None,
    card_rule: CardRule | None = review.next_card,
    on_lag: Callable[[float], None] | None = None,
    limits: Limits | None = None,
    on_limit: Callable[[str], None] | None = None,
) -> Core:
    """`holder` names this replica in the database's claims (serve: ZEROQUIZ_REPLICA_ID, else
    the host name; stable across restarts, so a replica that crashed while posting takes its own
    claim back at once); a random one otherwise. `daily` adds daily schedules (with `grace`),
    `live_counts` live answer counts edited at most once per that interval; `card_rule` is how
    an answer reschedules the person's review card (None: not at all, for benches); `on_lag` is
    told how late each scheduler pass ran (metrics); `limits` what people and teams may do
    (bot/limits.py; none when not given), `on_limit` told the name of each limit that refused
    something (metrics)."""
    holder = holder or f"{rng.getrandbits(64):016x}"
    limiter = Limiter(limits or Limits.none(), clock, on_refused=on_limit)
    delivery = Delivery(clock)
    library = Library(store, bank)
    rounds = Rounds(
        store, library, clock, rng, delivery,
        holder=holder, default_window=default_window, card_rule=card_rule, limiter=limiter,
    )  # fmt: skip
    runs = Runs(store, bank, clock, rounds, delivery, limiter=limiter)
    reveals = Reveals(store, library, clock, rounds, delivery, holder=holder)
    fanout = Fanout(clock)  # one gate for every scheduled send of the process
    schedules = (
        DailySchedules(
            store,
            bank,
            clock,
            rounds,
            delivery,
            grace=grace,
            rng=rng,
            limiter=limiter,
            holder=holder,
            fanout=fanout,
        )
        if daily
        else None
    )
    reviews = Reviews(store, library, clock)
    reminders = Reminders(
        store, clock, delivery, reviews, limiter, grace=grace, holder=holder, fanout=fanout
    )
    quiz = Quiz(
        store=store, bank=bank, clock=clock, delivery=delivery, library=library, rounds=rounds,
        runs=runs, reveals=reveals, reviews=reviews, drills=Drills(store, library, clock),
        typed=TypedAnswers(rounds, library), packs=TeamPacks(store, library, clock),
        controls=Controls(store, clock, default_window=default_window),
        insights=Insights(store, bank, clock), results=Results(store, library, clock),
        reports=Reports(store, library, clock), reminders=reminders, limiter=limiter,
        fanout=fanout, daily=schedules,
    )  # fmt: skip
    # Daily questions and review reminders are sent where chat platforms are served.
    sources = (quiz, schedules, reminders) if schedules is not None else (quiz,)
    scheduler = Scheduler(clock, *sources, on_lag=on_lag)
    rounds.on_change(scheduler.wake)
    tally = None
    if live_counts is not None:
        tally = LiveTally(store, clock, rounds, delivery, interval=live_counts)
    return Core(quiz, scheduler, schedules, tally, Heartbeat(store, clock, holder), fanout)


class QuizOptions(TypedDict, total=False):
    """The `build_core` options a bare quiz takes."""

    default_window: timedelta
    holder: str | None
    daily: bool


def build_quiz(
    store: Store, bank: Bank, clock: Clock, rng: random.Random, **options: Unpack[QuizOptions]
) -> Quiz:
    """The quiz alone (the terminal, tests, benches); see `build_core`."""
    return build_core(store, bank, clock, rng, **options).quiz
