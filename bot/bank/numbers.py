"""Numbers in generated questions, written for people and the same way in every language.

One rounding rule for both languages: whole numbers from 100 up, one decimal from 10, two from 1,
three significant digits below 1 (so 7.5B x 16 / 64 shows as 1.88, as Table 1 of the ZeRO paper
prints it), trailing zeros dropped. English writes 1,024 and 31.4; Indonesian 1.024 and 31,4.
Rounding is half-up on the decimal text, so 0.125 is 0.125 and 2.345 is 2.35 in both languages.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from bot.model import Lang

# Decimal gigabytes (Ψ in billions times bytes per parameter); seconds and milliseconds on the wire.
UNITS = ("GB", "s", "ms")
_SEPARATORS: dict[str, tuple[str, str]] = {"en": (",", "."), "id": (".", ",")}


def rounded(value: float) -> Decimal:
    """The value as it is shown: the rounding rule above, as an exact decimal."""
    exact = Decimal(repr(value))
    size = abs(exact)
    if size >= 100:
        places = Decimal(1)
    elif size >= 10:
        places = Decimal("0.1")
    elif size >= 1:
        places = Decimal("0.01")
    elif size == 0:
        return Decimal(0)
    else:
        places = Decimal(1).scaleb(size.adjusted() - 2)  # three significant digits
    return exact.quantize(places, rounding=ROUND_HALF_UP)


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
