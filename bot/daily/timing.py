"""When a schedule's posting is due, in UTC, honouring daylight-saving changes.

A local time that does not exist (spring forward) is due at the next valid minute; a local time
that happens twice (fall back) is due at its first occurrence, and the per-day claim makes it once.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo


def due_at(day: date, at: time, tz: str) -> datetime:
    """The UTC instant of `at` on `day` in zone `tz`."""
    zone = ZoneInfo(tz)
    wanted = datetime.combine(day, at)
    first = datetime.combine(day, at).replace(tzinfo=zone, fold=0).astimezone(UTC)
    if first.astimezone(zone).replace(tzinfo=None) == wanted:
        return first  # exists (the earlier one if it happens twice)
    # In a gap: walk forward from the earliest candidate to the first minute at or after it.
    later = datetime.combine(day, at).replace(tzinfo=zone, fold=1).astimezone(UTC)
    candidate = min(first, later)
    candidate = candidate.replace(second=0, microsecond=0)
    for _ in range(24 * 60):
        if candidate.astimezone(zone).replace(tzinfo=None) >= wanted:
            return candidate
        candidate += timedelta(minutes=1)
    return first


def local_date(instant: datetime, tz: str) -> date:
    return instant.astimezone(ZoneInfo(tz)).date()


def occurrences(
    days: frozenset[int], at: time, tz: str, start: date, count: int
) -> list[tuple[date, datetime]]:
    """The next `count` posting days from `start` (inclusive), with their due instants."""
    out: list[tuple[date, datetime]] = []
    day = start
    for _ in range(7 * count + 7):
        if day.weekday() in days:
            out.append((day, due_at(day, at, tz)))
            if len(out) == count:
                break
        day += timedelta(days=1)
    return out
