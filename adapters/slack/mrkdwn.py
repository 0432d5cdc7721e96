"""Safe mrkdwn pieces: escaping, clipping to a limit, local-time dates, text bars.

Slack parses `<...>` as links and mentions (`<!channel>` pings everyone), so every piece of dynamic
text goes through `escape` before it lands in a mrkdwn field.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from adapters.text import clip as text_clip
from bot.presenter import text_bar

_PARTIAL_ENTITY = re.compile(r"&[a-z]{0,3}$")


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def clip(text: str, limit: int) -> str:
    """Cut `text` to at most `limit` characters, never through an escape entity."""
    return text_clip(text, limit, broken_tail=_PARTIAL_ENTITY)


def local_time(when: datetime) -> str:
    """A date every reader sees in their own time zone; the fallback is UTC."""
    fallback = when.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"<!date^{int(when.timestamp())}^{{date_short_pretty}} {{time}}|{fallback}>"


def bar(share: float, width: int = 12) -> str:
    return text_bar(share, width)
