"""The bank as plain JSON-ready data, for other tools."""

from __future__ import annotations

from typing import Any

from bot.bank import Bank
from bot.model import Text


def _text(text: Text) -> dict[str, str]:
    return {"en": text.en, "id": text.id}


def bank_to_data(bank: Bank) -> list[dict[str, Any]]:
    return [
        {
            "id": q.id,
            "prompt": _text(q.prompt),
            "options": [_text(o) for o in q.options],
            "answer": q.answer,
            "explanation": _text(q.explanation),
            "source": q.source,
            "tags": list(q.tags),
            "difficulty": q.difficulty,
        }
        for q in bank.questions
    ]
