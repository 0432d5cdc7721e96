"""Limits that keep one person, or one workspace, from taking the shared process down.

Everything here is decided before anything changes: a refused command gets a private reply
saying which limit it met, and nothing is opened, stored or posted. Per person and per team,
command rates are token buckets on the injected clock (in memory, per process: each replica
enforces its own); how many questions a channel or a team has open, and how many daily
schedules a team has, are counted in the database, in the transaction that would add one
(bot/rounds.py, bot/daily/service.py), so a hundred commands at once still open one question.

Each limit is a `ZEROQUIZ_LIMIT_*` variable, read once at start-up (`limits_from_env`); a bad
value is refused there, in one line naming the variable. 0 turns a limit off. Every refusal is
counted by the limit's name (`Limiter.refused`, the `/metrics` counter `zeroquiz_limited`).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from datetime import datetime
from typing import NamedTuple

from bot.clock import Clock
from bot.i18n import t
from bot.model import Lang
from bot.views import NoticeView

# The names refusals are counted under (the `limit` label in /metrics), one per limit.
CHANNEL_QUESTIONS = "channel_open_questions"
TEAM_ROUNDS = "team_open_rounds"
TEAM_SCHEDULES = "team_daily_schedules"
TEAM_REMINDERS = "team_reminders"
PERSON_RATE = "person_commands"
TEAM_RATE = "team_commands"
CHANNEL_RUNS = "channel_runs"  # one run per channel: fixed (the runs table holds one), counted
NAMES = (
    CHANNEL_QUESTIONS, TEAM_ROUNDS, TEAM_SCHEDULES, TEAM_REMINDERS, PERSON_RATE, TEAM_RATE,
    CHANNEL_RUNS,
)  # fmt: skip
MAX_KEYS = 50_000  # buckets kept per kind; the least recently used full one goes first
# Each limit's variable, spelt out (docs/operations.md lists them; a test holds the two alike).
VARIABLES = {
    "channel_open_questions": "ZEROQUIZ_LIMIT_CHANNEL_OPEN_QUESTIONS",
    "team_open_rounds": "ZEROQUIZ_LIMIT_TEAM_OPEN_ROUNDS",
    "team_daily_schedules": "ZEROQUIZ_LIMIT_TEAM_DAILY_SCHEDULES",
    "team_reminders": "ZEROQUIZ_LIMIT_TEAM_REMINDERS",
    "person_burst": "ZEROQUIZ_LIMIT_PERSON_BURST",
    "person_per_minute": "ZEROQUIZ_LIMIT_PERSON_PER_MINUTE",
    "team_burst": "ZEROQUIZ_LIMIT_TEAM_BURST",
    "team_per_minute": "ZEROQUIZ_LIMIT_TEAM_PER_MINUTE",
}


class LimitsError(ValueError):
    """A `ZEROQUIZ_LIMIT_*` variable that isn't a number the limit can take."""


@dataclass(frozen=True)
class Limits:
    """What each limit allows (0: no limit). The defaults suit a busy workspace: a person may
    send 10 commands at once and then one every 6 s; a team 60 at once, then 2 a second."""

    channel_open_questions: int = 1
    team_open_rounds: int = 25
    team_daily_schedules: int = 25
    team_reminders: int = 500  # people with a review reminder (a direct message a day each)
    person_burst: int = 10
    person_per_minute: float = 10.0
    team_burst: int = 60
    team_per_minute: float = 120.0

    @classmethod
    def none(cls) -> Limits:
        """No limits at all (the terminal, tests and benches that measure something else)."""
        return cls(**{f.name: 0 for f in fields(cls)})

    @staticmethod
    def variable(name: str) -> str:
        """The environment variable of a field: `person_burst` -> ZEROQUIZ_LIMIT_PERSON_BURST."""
        return VARIABLES[name]


def limits_from_env(env: Mapping[str, str]) -> Limits:
    """The limits the environment sets, the defaults for the rest; LimitsError names the
    first variable whose value isn't a whole (or, for rates, any) number from 0 up."""
    defaults = Limits()
    chosen: dict[str, int | float] = {}
    for f in fields(Limits):
        variable = Limits.variable(f.name)
        raw = env.get(variable, "").strip()
        if not raw:
            continue
        whole = isinstance(getattr(defaults, f.name), int)
        try:
            value: int | float = int(raw) if whole else float(raw)
        except ValueError:
            kind = "a whole number" if whole else "a number"
            raise LimitsError(f"{variable} must be {kind} from 0 up (0: no limit)") from None
        if value < 0 or not math.isfinite(value):
            raise LimitsError(f"{variable} must be from 0 up (0: no limit)")
        chosen[f.name] = value
    limits = Limits(**chosen)  # type: ignore[arg-type]
    for burst, rate in (("person_burst", "person_per_minute"), ("team_burst", "team_per_minute")):
        if (getattr(limits, burst) == 0) != (getattr(limits, rate) == 0):
            raise LimitsError(
                f"{Limits.variable(burst)} and {Limits.variable(rate)} are off (0) only together"
            )
    return limits


class Refusal(NamedTuple):
    """A limit met: its name (for the count) and the catalogue key and values of the reply."""

    limit: str
    key: str
    values: Mapping[str, object]

    def notice(self, lang: Lang) -> NoticeView:
        """The private reply: which limit, and when it is worth trying again."""
        return NoticeView(lang, t(lang, self.key, **self.values), ok=False)


class Buckets:
    """Token buckets by key: `burst` tokens at most, refilled at `per_minute`; one per command.

    Bounded: past MAX_KEYS keys the least recently used bucket is dropped (a bucket that has
    refilled is the same as a new one, so only a flood of new keys can forget a spent one)."""

    def __init__(self, clock: Clock, burst: int, per_minute: float) -> None:
        self.clock = clock
        self.burst = burst
        self.rate = per_minute / 60.0  # tokens a second
        self._buckets: OrderedDict[object, tuple[float, datetime]] = OrderedDict()

    @property
    def off(self) -> bool:
        return self.burst <= 0 or self.rate <= 0

    def wait(self, key: object) -> float:
        """Seconds until `key` has a token (0: it has one now)."""
        tokens = self._tokens(key)
        return 0.0 if tokens >= 1 else (1 - tokens) / self.rate

    def spend(self, key: object) -> None:
        self._buckets[key] = (self._tokens(key) - 1, self.clock.now())
        self._buckets.move_to_end(key)
        while len(self._buckets) > MAX_KEYS:
            self._buckets.popitem(last=False)

    def _tokens(self, key: object) -> float:
        found = self._buckets.get(key)
        if found is None:
            return float(self.burst)
        tokens, at = found
        elapsed = max(0.0, (self.clock.now() - at).total_seconds())  # the wall clock can step
        return min(float(self.burst), tokens + elapsed * self.rate)


class Limiter:
    """The limits of one process: the command rates, and the caps the services check."""

    def __init__(
        self,
        limits: Limits,
        clock: Clock,
        *,
        on_refused: Callable[[str], None] | None = None,
    ) -> None:
        self.limits = limits
        self._people = Buckets(clock, limits.person_burst, limits.person_per_minute)
        self._teams = Buckets(clock, limits.team_burst, limits.team_per_minute)
        self._on_refused = on_refused

    def command(self, platform: str, team: str, user: str) -> Refusal | None:
        """Take one command of `user` in `team`, or say which rate it is over (nothing taken)."""
        person, workspace = (platform, team, user), (platform, team)
        for buckets, key, name, text in (
            (self._teams, workspace, TEAM_RATE, "limit_team_rate"),
            (self._people, person, PERSON_RATE, "limit_person_rate"),
        ):
            if buckets.off:
                continue
            wait = buckets.wait(key)
            if wait > 0:
                return self.refused(Refusal(name, text, {"seconds": max(1, math.ceil(wait))}))
        for buckets, key in ((self._teams, workspace), (self._people, person)):
            if not buckets.off:
                buckets.spend(key)
        return None

    def open_rounds(self, in_channel: int, in_team: int, closes_in: float | None) -> Refusal | None:
        """Whether one more question may open, with `in_channel` and `in_team` open already;
        `closes_in`: seconds until the channel's open question closes (for the reply)."""
        most = self.limits.channel_open_questions
        if most and in_channel >= most:
            minutes = max(1, math.ceil((closes_in or 0) / 60))
            values = {"minutes": minutes}
            return self.refused(Refusal(CHANNEL_QUESTIONS, "limit_question_open", values))
        most = self.limits.team_open_rounds
        if most and in_team >= most:
            return self.refused(Refusal(TEAM_ROUNDS, "limit_team_rounds", {"limit": most}))
        return None

    def add_schedule(self, in_team: int) -> Refusal | None:
        """Whether a team with `in_team` active daily schedules may add another."""
        most = self.limits.team_daily_schedules
        if most and in_team >= most:
            return self.refused(Refusal(TEAM_SCHEDULES, "limit_daily_schedules", {"limit": most}))
        return None

    def add_reminder(self, in_team: int) -> Refusal | None:
        """Whether a team with `in_team` active review reminders may add another."""
        most = self.limits.team_reminders
        if most and in_team >= most:
            return self.refused(Refusal(TEAM_REMINDERS, "limit_team_reminders", {"limit": most}))
        return None

    def refused(self, refusal: Refusal) -> Refusal:
        """Count a refusal by its limit's name, and hand it back."""
        if self._on_refused is not None:
            self._on_refused(refusal.limit)
        return refusal
