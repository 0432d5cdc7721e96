"""Leaderboard periods in a team's time zone: weeks start Monday 00:00 local, months on the 1st."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.model import Period


def zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def period_start(period: Period, now: datetime, tz_name: str) -> datetime | None:
    """The UTC instant a period began, or None for all time."""
    if period == "all":
        return None
    local = now.astimezone(zone(tz_name))
    midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "week":
        start = midnight - timedelta(days=local.weekday())
    else:
        start = midnight.replace(day=1)
    # Rebuild through the zone so a DST change between then and now gives the right offset.
    # fold=0: a midnight that happens twice (clocks back at 01:00) starts at its first pass.
    start = start.replace(tzinfo=None, fold=0).replace(tzinfo=zone(tz_name))
    return start.astimezone(UTC)


def to_ms(dt: datetime) -> int:
    return int(dt.timestamp() * 1000)


def span_ms(span: timedelta) -> int:
    """A duration as stored (whole milliseconds): storage keeps `timedelta` off its columns."""
    return span // timedelta(milliseconds=1)


def span_from_ms(ms: int) -> timedelta:
    return timedelta(milliseconds=ms)


def from_ms(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)


def period_starts(period: Period, first: datetime, last: datetime, tz_name: str) -> list[datetime]:
    """Every start of a week or month period in the zone that covers an instant in [first, last]."""
    start = period_start(period, first, tz_name)
    assert start is not None, "all time has a single period"
    step = timedelta(days=7, hours=12) if period == "week" else timedelta(days=32)
    starts = [start]
    while True:
        following = period_start(period, starts[-1] + step, tz_name)
        assert following is not None
        if following > last:
            return starts
        starts.append(following)
