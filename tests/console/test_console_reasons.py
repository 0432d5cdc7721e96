"""The terminal teaches the wrong pick: the option's own reason, then why the key is right."""

from __future__ import annotations

import re
from pathlib import Path

from test_console import play

from bot.bank import load_bank
from bot.model import Lang, Question

QUESTION_HEAD = {"en": re.compile(r"^Question \d+/\d+$"), "id": re.compile(r"^Soal \d+/\d+$")}
WHY_WRONG = {"en": "Why {} is not right: ", "id": "Mengapa {} kurang tepat: "}
WHY = {"en": "Why: ", "id": "Penjelasan: "}


def flat(text: str) -> str:
    """The text without its whitespace: the terminal wraps lines (and breaks after a hyphen)."""
    return "".join(text.split())


def blocks(out: str, lang: Lang) -> list[str]:
    """Each question's screen: from its heading to the next one (or the end)."""
    parts: list[list[str]] = []
    for line in out.splitlines():
        if QUESTION_HEAD[lang].match(line.strip()):
            parts.append([])
        if parts:
            parts[-1].append(line)
    return [flat("".join(p)) for p in parts]


def asked(screen: str, bank: list[Question], lang: Lang) -> Question:
    return next(q for q in bank if flat(q.prompt.get(lang)) in screen)


def letter_of(screen: str, question: Question, option: int, lang: Lang) -> str:
    text = flat(question.options[option].get(lang))
    match = re.search(r"([A-E])\)" + re.escape(text) + r"(?=[A-E]\)|Your|Jawaban|$)", screen)
    assert match, (text, screen)
    return match.group(1)


def check_reasons(out: str, lang: Lang, picked: str) -> int:
    """Every wrong pick on screen shows that option's own reason before the explanation."""
    bank = load_bank().questions
    wrong = 0
    for screen in blocks(out, lang):
        question = asked(screen, bank, lang)
        options = {letter_of(screen, question, i, lang): i for i in range(len(question.options))}
        chosen = options[picked]
        why_at = screen.index(flat(WHY[lang]))
        if chosen == question.answer:
            assert flat(WHY_WRONG[lang].format(picked)) not in screen
            continue
        reason = question.reason(chosen)
        assert reason is not None, question.id
        shown = flat(WHY_WRONG[lang].format(picked) + reason.get(lang))
        assert shown in screen, (question.id, screen)
        assert screen.index(shown) < why_at  # the mistake first, then why the key is right
        for other, index in options.items():  # no other option's reason
            other_reason = question.reason(index)
            if other != picked and other_reason is not None:
                assert flat(other_reason.get(lang)) not in screen
        wrong += 1
    return wrong


def test_a_wrong_letter_is_told_why_that_option_is_wrong(tmp_path: Path) -> None:
    typed = "a\n" * 10
    result = play(["--count", "10", "--topic", "checkpointing"], typed, tmp_path, tmp_path / "q.db")
    assert result.returncode == 0, result.stderr
    assert check_reasons(result.stdout, "en", "A") >= 3  # 10 questions: most picks of A are wrong


def test_in_indonesian_the_reason_is_indonesian(tmp_path: Path) -> None:
    typed = "b\n" * 10
    args = ["--lang", "id", "--count", "10", "--topic", "checkpointing"]
    result = play(args, typed, tmp_path, tmp_path / "q.db")
    assert result.returncode == 0, result.stderr
    assert check_reasons(result.stdout, "id", "B") >= 3
