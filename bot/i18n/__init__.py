"""User-facing text: one catalogue per language, looked up by key.

Core, adapters and the terminal all take their words from here, so a translation never has to hunt
through logic. A test keeps the catalogues' keys and placeholders identical.
"""

from __future__ import annotations

from typing import Any

from bot.i18n import en, id
from bot.model import Lang

CATALOGUES: dict[Lang, dict[str, str]] = {"en": en.MESSAGES, "id": id.MESSAGES}


def t(lang: Lang, key: str, /, **values: Any) -> str:
    """The message `key` in `lang`, with placeholders filled; English if a key is missing."""
    template = CATALOGUES.get(lang, en.MESSAGES).get(key) or en.MESSAGES[key]
    return template.format(**values) if values else template
