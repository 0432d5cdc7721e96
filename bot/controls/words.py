"""What the team controls' words mean: a window like `30m` or `1h30m`, a person named as a
mention (`<@U123|ada>` from Slack, `<@123>` from Discord) or an id, and `me`. Pure functions."""

from __future__ import annotations

import re
from datetime import timedelta

from bot.i18n import t
from bot.model import Lang

MIN_WINDOW = timedelta(minutes=1)
MAX_WINDOW = timedelta(hours=24)
RESET_WORDS = frozenset({"default", "reset", "off", "bawaan"})
ME_WORDS = frozenset({"me", "saya", "aku"})
CONFIRM_WORDS = frozenset({"confirm", "yes", "ya", "konfirmasi"})
_WINDOW = re.compile(
    r"^(?:(\d+(?:\.\d+)?)(?:h|hr|hrs|hours?|j|jam))?(?:(\d+)(?:m|min|mins|minutes?|menit))?$"
)
_MENTION = re.compile(r"^<@!?([A-Za-z0-9]+)(?:\|[^>]*)?>$")
_BARE_ID = re.compile(r"^(?:[UW][A-Z0-9]{6,}|\d{15,21})$")  # a Slack member id, a snowflake


def parse_window(word: str) -> timedelta | None:
    """`30m`, `2h`, `1h30m`, `1.5h` (also `jam`, `menit`); None if it is no duration."""
    m = _WINDOW.match(word.strip().lower())
    if m is None or not (m.group(1) or m.group(2)):
        return None
    hours = float(m.group(1) or 0)
    minutes = int(m.group(2) or 0)
    return timedelta(hours=hours, minutes=minutes)


def in_bounds(window: timedelta) -> bool:
    return MIN_WINDOW <= window <= MAX_WINDOW


def duration_text(lang: Lang, span: timedelta) -> str:
    """`1 h 30 min`, `45 min`, `24 h`: whole minutes, the way the replies show a window."""
    minutes = int(span.total_seconds() // 60)
    hours, rest = divmod(minutes, 60)
    if hours and rest:
        return t(lang, "window_hm", hours=hours, minutes=rest)
    if hours:
        return t(lang, "window_h", hours=hours)
    return t(lang, "window_m", minutes=rest)


def person(word: str) -> str | None:
    """The platform user id a mention or a bare id names; None otherwise."""
    text = word.strip()
    m = _MENTION.match(text)
    if m is not None:
        return m.group(1)
    return text if _BARE_ID.match(text) else None
