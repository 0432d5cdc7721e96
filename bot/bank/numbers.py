"""Numbers in generated questions, written for people and the same way in every language.

One rounding rule for both languages: whole numbers from 100 up, one decimal from 10, two from 1,
three significant digits below 1 (so 7.5B x 16 / 64 shows as 1.88, as Table 1 of the ZeRO paper
prints it), trailing zeros dropped. English writes 1,024 and 31.4; Indonesian 1.024 and 31,4.
Rounding is half-up on the decimal text, so 0.125 is 0.125 and 2.345 is 2.35 in both languages.

A typed answer is read back (`read_number`) with either decimal mark: `31.4`, `31,4`, `31.4 GB`,
`31.4gb`. Two marks: the last one is the decimal mark, the other groups thousands (`1,024.5`,
`1.024,5`). One mark repeated groups thousands (`1,024,000`). One mark once is a decimal mark
(`31,4`, `0.125`), except that the question's own thousands separator before exactly three digits
of a whole number groups them: `1,024` is 1024 in English and 1.024 in Indonesian, `1.024` the
other way round, as each language writes its numbers.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

from bot.model import Lang, Tolerance

# Decimal gigabytes (Ψ in billions times bytes per parameter); seconds and milliseconds on the wire.
UNITS = ("GB", "s", "ms")
_SEPARATORS: dict[str, tuple[str, str]] = {"en": (",", "."), "id": (".", ",")}


MAX_TYPED = 40  # characters of a typed answer read (and stored)
_TYPED = re.compile(r"([+-]?)\s*([0-9.,]*[0-9])\s*([^\W\d_]*)")
_TOLERANCE = re.compile(r"([0-9]+(?:\.[0-9]+)?)\s*(%?)")


def step(value: float) -> Decimal:
    """The last place the value is shown to: 1 from 100, 0.1 from 10, 0.01 from 1, else its
    third significant digit (0 for zero)."""
    size = abs(Decimal(repr(value)))
    if size >= 100:
        return Decimal(1)
    if size >= 10:
        return Decimal("0.1")
    if size >= 1:
        return Decimal("0.01")
    return Decimal(1).scaleb(size.adjusted() - 2) if size else Decimal(0)


def rounded(value: float) -> Decimal:
    """The value as it is shown: the rounding rule above, as an exact decimal."""
    places = step(value)
    if not places:
        return Decimal(0)
    return Decimal(repr(value)).quantize(places, rounding=ROUND_HALF_UP)


def format_number(value: float, lang: Lang) -> str:
    thousands, decimal = _SEPARATORS[lang]
    text = f"{rounded(value):f}"
    sign = "-" if text.startswith("-") else ""
    whole, _, fraction = text.lstrip("-").partition(".")
    fraction = fraction.rstrip("0")
    grouped = f"{int(whole):,}".replace(",", thousands)
    return sign + grouped + (decimal + fraction if fraction else "")


def format_amount(value: float, unit: str, lang: Lang) -> str:
    return f"{format_number(value, lang)} {unit}"


def read_number(text: str, unit: str, lang: Lang) -> Decimal | None:
    """A typed answer as a number (the rules above), with the question's unit or none, in any
    case and spacing; None for anything else (another unit, stray text, broken grouping)."""
    found = _TYPED.fullmatch(text.strip()) if len(text) <= MAX_TYPED else None
    if found is None or (found[3] and found[3].lower() != unit.lower()):
        return None
    plain = _plain(found[2], _SEPARATORS[lang][0])
    return None if plain is None else Decimal(found[1] + plain)


def _plain(body: str, thousands: str) -> str | None:
    """The digits with "." as the only (decimal) mark, or None when the marks make no number."""
    marks = {c for c in body if c in ".,"}
    if len(marks) == 2:
        point = body[max(body.rfind("."), body.rfind(","))]
        whole, _, fraction = body.rpartition(point)
        group = (marks - {point}).pop()
        return f"{whole.replace(group, '')}.{fraction}" if _grouped(whole, group) else None
    if not marks:
        return body
    mark = marks.pop()
    if body.count(mark) > 1:
        return body.replace(mark, "") if _grouped(body, mark) else None
    whole, _, fraction = body.partition(mark)
    if mark == thousands and len(fraction) == 3 and whole not in ("", "0"):
        return whole + fraction
    return f"{whole or '0'}.{fraction}"


def _grouped(whole: str, mark: str) -> bool:
    """Thousands grouped with `mark`: 1 to 3 digits, then groups of exactly three."""
    return re.fullmatch(rf"[0-9]{{1,3}}(?:{re.escape(mark)}[0-9]{{3}})+", whole) is not None


def parse_tolerance(text: str) -> Tolerance | None:
    """A template's `tolerance:` ("0.5": in the unit, "2%": of the answer); None if it is
    neither, or not above zero, or 100% or more."""
    found = _TOLERANCE.fullmatch(text.strip())
    if found is None or not float(found[1]) > 0:
        return None
    if found[2]:
        return Tolerance(float(found[1]) / 100, relative=True) if float(found[1]) < 100 else None
    return Tolerance(float(found[1]))


def tolerance(value: float, given: Tolerance | None) -> Decimal:
    """How far from `value` a typed number may be: the template's, else half the last place
    shown (every number that is shown as the value, and no other)."""
    if given is None:
        return step(value) / 2
    amount = Decimal(repr(given.amount))
    return amount * abs(Decimal(repr(value))) if given.relative else amount
