"""Parse an admin's `/zeroquiz daily 09:00 Asia/Jakarta mon-fri 8h` into a checked schedule spec.

Pure functions: every error is an i18n key plus values, so nothing changes until all of it is valid.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import time, timedelta
from functools import lru_cache
from typing import NamedTuple
from zoneinfo import ZoneInfo, available_timezones

from bot.i18n import t
from bot.model import Lang

DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
DAY_ALIASES = {
    "sen": 0,
    "sel": 1,
    "rab": 2,
    "kam": 3,
    "jum": 4,
    "sab": 5,
    "min": 6,  # Indonesian
}
WEEKDAYS = frozenset(range(5))
EVERY_DAY = frozenset(range(7))
DEFAULT_WINDOW = timedelta(hours=8)
MAX_WINDOW = timedelta(hours=23)
MIN_WINDOW = timedelta(minutes=5)
TIME_RE = re.compile(r"^([01]?\d|2[0-3])[:.]([0-5]\d)$")
ADAPTIVE_WORDS = frozenset({"adaptive", "adaptif"})  # anywhere after the zone
WINDOW_RE = re.compile(r"^(?:window=)?(\d+(?:\.\d+)?)(h|m|j|jam|menit)$")


class DailySpec(NamedTuple):
    at: time
    tz: str
    days: frozenset[int]  # Monday = 0
    window: timedelta
    topics: tuple[str, ...] = ()  # bank tags the questions come from; () for the whole bank
    adaptive: bool = False  # topics the team answers worst come up more often (daily/adaptive.py)


@dataclass(frozen=True)
class SpecError(Exception):
    key: str
    value: str = ""


@lru_cache(maxsize=1)
def _zones() -> dict[str, str]:
    return {name.lower(): name for name in available_timezones()}


def parse_time(word: str) -> time:
    m = TIME_RE.match(word.strip())
    if not m:
        raise SpecError("daily_bad_time", word)
    return time(int(m.group(1)), int(m.group(2)))


def parse_zone(word: str) -> str:
    name = _zones().get(word.strip().lower())
    if name is None:
        raise SpecError("daily_bad_zone", word)
    ZoneInfo(name)  # loads from tzdata when the system has no zone files
    return name


def parse_days(text: str) -> frozenset[int]:
    """`mon-fri`, `every day`, `weekdays`, `mon,wed,fri`, `sat-mon` (wraps)."""
    spec = text.strip().lower().replace(" ", "")
    if spec in ("", "mon-fri", "weekdays", "workdays", "harikerja"):
        return WEEKDAYS
    if spec in ("everyday", "daily", "all", "setiaphari", "mon-sun"):
        return EVERY_DAY
    days: set[int] = set()
    for part in filter(None, spec.split(",")):
        if "-" in part:
            first, _, last = part.partition("-")
            a, b = _day(first, text), _day(last, text)
            span = (b - a) % 7
            days.update((a + i) % 7 for i in range(span + 1))
        else:
            days.add(_day(part, text))
    if not days:
        raise SpecError("daily_no_days", text)
    return frozenset(days)


def _day(word: str, original: str) -> int:
    key = word[:3]
    if key in DAY_NAMES:
        return DAY_NAMES.index(key)
    if key in DAY_ALIASES:
        return DAY_ALIASES[key]
    raise SpecError("daily_bad_days", original)


def parse_window(word: str) -> timedelta:
    m = WINDOW_RE.match(word.strip().lower())
    if not m:
        raise SpecError("daily_bad_window", word)
    amount = float(m.group(1))
    window = (
        timedelta(hours=amount) if m.group(2) in ("h", "j", "jam") else timedelta(minutes=amount)
    )
    if not MIN_WINDOW <= window <= MAX_WINDOW:
        raise SpecError("daily_bad_window", word)
    return window


def parse_spec(words: tuple[str, ...], topics: frozenset[str] = frozenset()) -> DailySpec:
    """`(time, zone, [days...], [topics...], [window])`; the window is the last word if it
    looks like one, and a word that is one of `topics` (the bank's tags) is a topic, anywhere
    after the zone. Any other word is read as days, with the days' error if it isn't."""
    if len(words) < 2:
        raise SpecError("daily_usage")
    at = parse_time(words[0])
    tz = parse_zone(words[1])
    rest = [w for w in words[2:] if w.lower() not in ADAPTIVE_WORDS]
    adaptive = len(rest) < len(words) - 2
    window = DEFAULT_WINDOW
    if rest and WINDOW_RE.match(rest[-1].lower()):
        window = parse_window(rest.pop())
    chosen = tuple(dict.fromkeys(w.lower() for w in rest if w.lower() in topics))
    days = parse_days(" ".join(w for w in rest if w.lower() not in topics))
    return DailySpec(at=at, tz=tz, days=days, window=window, topics=chosen, adaptive=adaptive)


def days_code(days: frozenset[int]) -> str:
    """Storage form: '0,1,2,3,4'."""
    return ",".join(str(d) for d in sorted(days))


def days_from_code(code: str) -> frozenset[int]:
    return frozenset(int(d) for d in code.split(",") if d)


def days_label(days: frozenset[int], lang: Lang) -> str:
    """Monday to Friday, every day, or the days' names, as replies show them."""
    if days == WEEKDAYS:
        return t(lang, "days_weekdays")
    if days == EVERY_DAY:
        return t(lang, "days_every")
    names = t(lang, "day_names").split(",")
    return ", ".join(names[d] for d in sorted(days))
