"""The values storage hands the core: plain frozen dataclasses with datetimes, never rows."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from typing import Literal, NamedTuple

from bot.model import ChannelRef, Lang

RoundKind = Literal["single", "run", "daily"]
CloseReason = Literal["deadline", "admin", "next", "undelivered", "abandoned"]
PostingStatus = Literal["claimed", "posted", "skipped", "failed"]
ROUND_KINDS: tuple[RoundKind, ...] = ("single", "run", "daily")
POSTING_STATUSES: tuple[PostingStatus, ...] = ("claimed", "posted", "skipped", "failed")


def round_kind(value: object) -> RoundKind:
    """A stored kind as the Literal it is (the schema accepts only these)."""
    text = str(value)
    assert text in ROUND_KINDS, text
    return text


CLOSE_REASONS: tuple[CloseReason, ...] = ("deadline", "admin", "next", "undelivered", "abandoned")


def close_reason(value: object) -> CloseReason | None:
    if value is None:
        return None
    text = str(value)
    assert text in CLOSE_REASONS, text
    return text


def posting_status(value: object) -> PostingStatus:
    text = str(value)
    assert text in POSTING_STATUSES, text
    return text


class RoundRecord(NamedTuple):
    id: int
    channel_id: int
    team_id: int
    platform: str
    team: str
    channel: str
    lang: Lang
    question_id: str
    seed: int
    kind: RoundKind
    run_id: int | None
    run_index: int | None
    run_total: int | None
    opened_at: datetime
    deadline_at: datetime
    closed_at: datetime | None
    revealed_at: datetime | None
    message_ref: str | None
    posted_at: datetime | None = None  # None: the question has not reached the platform yet
    close_reason: CloseReason | None = None
    # Some replica has claimed it before (to post it): a try may have reached the platform.
    post_tried: bool = False

    @property
    def channel_ref(self) -> ChannelRef:
        return ChannelRef(self.platform, self.team, self.channel)

    def is_open(self, now: datetime) -> bool:
        return self.closed_at is None and now < self.deadline_at


class OpenCounts(NamedTuple):
    """How many rounds are open in a channel and in its team, and when the channel's first open
    one closes: what the limits on opening one more are decided by (bot/limits.py)."""

    in_channel: int
    in_team: int
    channel_closes_at: datetime | None


class RunRecord(NamedTuple):
    id: int
    window: timedelta
    finished: bool
    started_by: str | None = None  # the platform user id of who started it (None before v9)
    topic: str | None = None  # the run's filter, kept so a restart goes on with it
    level: int | None = None


class AnswerRequest(NamedTuple):
    """A click to record: who (platform user id and the name known now), what, and when.

    A provisional name (a handle, before the platform said the display name) only fills an
    empty stored name, so it never overwrites a real one.
    """

    round_id: int
    team_id: int
    user: str
    name: str
    option: int
    correct: bool
    points: int
    at: datetime
    provisional_name: bool = False
    question_id: str = ""  # whose review card the answer reschedules ("" for none)
    typed: str | None = None  # what the person typed (bot/typed.py); None for a click


class AnswerOutcome(NamedTuple):
    """What the database decided: recorded; already answered (with that option, and what was
    typed if it was typed); or closed."""

    status: Literal["recorded", "already", "closed"]
    option: int | None = None
    typed: str | None = None


class ScheduleRecord(NamedTuple):
    id: int
    channel_id: int
    platform: str
    team: str
    channel: str
    lang: Lang
    at: time
    tz: str
    days: frozenset[int]
    window: timedelta  # how long each daily question stays open
    grace: timedelta  # how late a daily question may still be posted
    updated_at: datetime
    topics: tuple[str, ...] = ()  # the bank tags its questions come from; () for any
    adaptive: bool = False  # topics the team answers worst come up more often

    @property
    def channel_ref(self) -> ChannelRef:
        return ChannelRef(self.platform, self.team, self.channel)


class PostingRecord(NamedTuple):
    status: PostingStatus
    claim_token: str
    claimed_at: datetime
    round_id: int | None


class StaleClaim(NamedTuple):
    schedule_id: int
    day: date
    token: str


class CardState(NamedTuple):
    """A person's review card for one question: the scheduler's own serialized state, and the
    two instants storage queries by."""

    state: str
    due_at: datetime
    last_review_at: datetime
    missed: bool = False  # its last answer was wrong: a drill asks it until answered right


# The core's scheduling rule: (stored state or None, answered right, when) -> the next card.
CardRule = Callable[[str | None, bool, datetime], CardState]


class AuditRecord(NamedTuple):
    """One admin action as the audit log keeps it: who (platform user id, and the name shown
    then), where, what (the command and its words) and when."""

    id: int
    channel: str
    actor: str
    actor_name: str
    action: str
    detail: str
    at: datetime


class Forgotten(NamedTuple):
    """What `forget` removed of one person in one team (all zero: nothing was stored)."""

    answers: int = 0
    cards: int = 0
    totals: int = 0
    players: int = 0
