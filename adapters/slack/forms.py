"""Slack's form bodies read as `urllib.parse.parse_qsl(text, keep_blank_values=True)` reads them,
at a tenth of its cost for the usual body.

An interactive request is one form field, `payload=`, holding the JSON of the click with every
brace, quote and colon percent-encoded: about 650 escapes in a 3 KB click, which parse_qsl's
unquote decodes one at a time in Python (half a millisecond, the largest part of a click's CPU
after the network). Percent-encoding is quoted-printable with `%` for `=`, so binascii's C
decoder does it, when the text has none of what quoted-printable reads differently (`=`, line
breaks, `%%`, a `%` at the end); anything else, and any escape that is not `%` and two hex
digits, is left to unquote. A property test holds it equal to parse_qsl
(tests/slack/test_slack_forms.py).
"""

from __future__ import annotations

import binascii
from urllib.parse import unquote


def parse_form(text: str) -> list[tuple[str, str]]:
    """The (name, value) pairs of a form body, as parse_qsl(text, keep_blank_values=True)."""
    pairs: list[tuple[str, str]] = []
    for field in text.split("&"):
        if not field:
            continue
        name, _, value = field.partition("=")
        pairs.append((_unquote(name.replace("+", " ")), _unquote(value.replace("+", " "))))
    return pairs


def _unquote(text: str) -> str:
    if "%" not in text:
        return text
    if not text.isascii() or "=" in text or "\n" in text or "\r" in text or "%%" in text:
        return unquote(text)
    if text.endswith("%"):
        return unquote(text)
    decoded = binascii.a2b_qp(text.replace("%", "="))
    # Each `%` became a byte (two hex digits followed) or stayed a `=` (they didn't); the only
    # other `=` are those encoded as %3D. More `=` than that: some escape wasn't one.
    if decoded.count(b"=") != text.count("%3D") + text.count("%3d"):
        return unquote(text)
    return decoded.decode("utf-8", "replace")
