"""A file's language line (issue 22): `lang:` reads as `language:`, a one-language text is shown
in every channel, a wrong line is named as validate names it, and a bilingual file stays valid
(its `id:` keys are Indonesian texts, never the file's language)."""

from __future__ import annotations

import pytest

from bot.bank import BankError
from bot.bank.packs import check_pack
from bot.model import LANGS

BODY = """\
questions:
  - id: node
    prompt: "Berapa GPU dalam satu node kami?"
    options:
      - "4"
      - text: "8"
        correct: true
    explanation: "Setiap node kami punya 8 GPU."
"""
BILINGUAL = """\
questions:
  - id: node
    prompt: {en: "How many GPUs?", id: "Berapa GPU?"}
    options:
      - {en: "four", id: "empat"}
      - {en: "eight", id: "delapan", correct: true}
    explanation: {en: "Eight.", id: "Delapan."}
"""


def test_lang_reads_as_language_and_its_text_is_shown_in_every_language() -> None:
    content = check_pack("lang: id\n" + BODY, "ours.yaml")
    assert content.language == "id"
    [question] = content.bank.questions
    for lang in LANGS:
        assert question.prompt.get(lang) == "Berapa GPU dalam satu node kami?"
        assert question.options[question.answer].get(lang) == "8"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("language: fr\n" + BODY, "ours.yaml:1: language must be one of en, id"),
        ("language: en\nlang: en\n" + BODY, "ours.yaml:2: give 'language' or 'lang', not both"),
        (
            "language: en\n" + BODY.replace('"Setiap node kami punya 8 GPU."', "{en: a, id: b}"),
            "ours.yaml:9: explanation must be plain text: this file is in 'en' only",
        ),
    ],
)
def test_a_wrong_language_line_or_text_is_named_as_validate_names_it(
    text: str, problem: str
) -> None:
    with pytest.raises(BankError) as raised:
        check_pack(text, "ours.yaml")
    assert [str(p) for p in raised.value.problems] == [problem]


def test_a_bilingual_file_stays_valid_with_id_as_its_indonesian_text() -> None:
    content = check_pack(BILINGUAL, "ours.yaml")
    assert content.language is None
    [question] = content.bank.questions
    assert question.id == "node"
    assert (question.prompt.en, question.prompt.id) == ("How many GPUs?", "Berapa GPU?")
