"""The insights as plain text: the terminal's `zeroquiz insights` and the `/insights` typed at
a prompt. The same content as the chat surfaces, code marks (`id`) dropped."""

from __future__ import annotations

import textwrap

from bot.views import InsightsView

WIDTH = 78


def insights_text(view: InsightsView) -> str:
    lines = [view.title, ""]
    if view.empty_text is not None:
        lines.append(view.empty_text)
    else:
        lines += [view.topics_title, *(f"  {line}" for line in view.chart)]
        lines += _wrapped(view.legend)
    lines += ["", view.missed_title]
    lines += [w for item in view.missed for w in _wrapped(item.text, "  - ")] or _wrapped(
        view.missed_empty, "  "
    )
    lines += ["", view.check_title]
    lines += [w for item in view.check for w in _wrapped(item.text, "  - ")] or _wrapped(
        view.check_empty, "  "
    )
    lines += ["", *_wrapped(view.check_note)]
    if view.reported:
        lines += ["", view.reported_title]
        lines += [w for item in view.reported for w in _wrapped(item.text, "  - ")]
    return "\n".join(lines)


def _wrapped(text: str, first: str = "") -> list[str]:
    plain = text.replace("`", "")
    indent = " " * len(first)
    return textwrap.wrap(plain, WIDTH, initial_indent=first, subsequent_indent=indent) or [first]
