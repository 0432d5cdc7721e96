"""Text pieces both chat adapters need: cutting to a platform's limit without breaking markup,
and keeping what a person sent storable.

(The text bars for answer spreads are `bot.presenter.text_bar`, shared by every surface.)
"""

from __future__ import annotations

import re

ELLIPSIS = "…"


def clip(text: str, limit: int, *, broken_tail: re.Pattern[str] | None = None) -> str:
    """Cut `text` to at most `limit` characters, ending in an ellipsis; `broken_tail` matches
    what must not be left cut in half at the end (an escape the platform would misread)."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if broken_tail is not None:
        cut = broken_tail.sub("", cut)
    return cut + ELLIPSIS


def storable(text: str) -> str:
    """`text` with lone surrogates (JSON's "\\ud800" decodes to one) replaced by "?": SQLite and
    every encoder refuse them, and one in a name would fail everyone's answers committed with it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text
