"""The bundled bank teaches every wrong answer and cannot be passed by guessing from form.

Every wrong option of a hand-written question (and every mistake of a template) says why it is
wrong, in both languages, in words of its own; validate refuses a bundled question without them
(a team's pack may leave them out); export carries them; and the key is neither the longest
option too often, nor much longer than the others, nor the only one echoing the prompt.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path

import pytest
import yaml
from bank_quality import LONGEST_KEY_SHARE, measure

from bot.bank import BankError, bundled_paths, load_bank
from bot.bank.loader import check_files
from bot.bank.packs import check_pack
from bot.bank.templates import Template
from bot.export import bank_to_data, bank_to_yaml
from bot.model import LANGS, Question

GENERIC = ("this is incorrect", "this is wrong", "see the explanation", "not correct.")

# Issue 30's curriculum: each tag with its floor of questions (templates count for comm-time).
CURRICULUM = {
    "fsdp2": 12,
    "mixed-precision": 6,
    "activations": 5,
    "parallelism": 5,
    "accounting": 3,
}
FSDP2_API = (
    "fully_shard",
    "reshard_after_forward",
    "set_requires_gradient_sync",
    "set_modules_to_forward_prefetch",
    "meta",
    "state_dict",
    "MixedPrecisionPolicy",
    "CPUOffloadPolicy",
)


@pytest.fixture(name="bank", scope="module")
def bundled_bank() -> list[Question]:
    return load_bank().questions


def test_every_wrong_option_says_why_in_both_languages_in_words_of_its_own(
    bank: list[Question],
) -> None:
    for q in bank:
        wrong = [i for i in range(len(q.options)) if i != q.answer]
        assert q.reason(q.answer) is None
        reasons = [q.reason(i) for i in wrong]
        for lang in LANGS:
            texts = []
            for i, reason in zip(wrong, reasons, strict=True):
                assert reason is not None, (q.id, i)
                text = reason.get(lang)
                assert 40 <= len(text) <= 300, (q.id, i, lang)
                assert text != q.explanation.get(lang) and text not in q.explanation.get(lang)
                assert not text.lower().startswith(GENERIC), (q.id, i, lang)
                texts.append(text)
            assert len(set(texts)) == len(texts), (q.id, lang)  # each option its own reason
        for reason in reasons:  # written for each language, not copied
            assert reason is not None and reason.en != reason.id, q.id


def test_every_template_mistake_says_why_in_both_languages_for_every_draw() -> None:
    bank = load_bank()
    for template in bank.templates:
        for d in template.distractors:
            assert d.why is not None and d.why.en != d.why.id, (template.id, d.mistake)
        for seed in range(50):
            q = bank.get(f"{template.id}@{seed}")
            if q is None:
                continue
            for i in range(len(q.options)):
                if i != q.answer:
                    reason = q.reason(i)
                    assert reason is not None, (q.id, i)  # the checker allows no fallbacks
                    assert all(0 < len(reason.get(lang)) <= 300 for lang in LANGS)
                    assert "{" not in reason.en + reason.id  # placeholders filled


def _bundled_file_without_a_why() -> tuple[Path, bytes, int]:
    """A bundled file's bytes with the first `why:` of a wrong option taken out, and the line
    of that option."""
    path = next(p for p in bundled_paths() if p.name == "20_stages.yaml")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(n for n, line in enumerate(lines) if line.strip() == "why:")
    end = start + 1
    while lines[end].startswith(" " * (len(lines[start]) - len(lines[start].lstrip()) + 1)):
        end += 1
    option = max(n for n in range(start) if lines[n].lstrip().startswith("- en:"))
    kept = lines[:start] + lines[end:]
    return path, "".join(kept).encode(), option + 1


def test_validate_refuses_a_bundled_question_without_a_why_naming_file_and_line() -> None:
    path, data, line = _bundled_file_without_a_why()
    with pytest.raises(BankError) as caught:
        check_files([(str(path), io.BytesIO(data))], [])
    [problem] = caught.value.problems
    assert (problem.path, problem.line) == (str(path), line)
    assert "gives no 'why'" in problem.message
    # The same text as a team's own file is valid: a team may leave the reasons out.
    other = check_files([("team/stages.yaml", io.BytesIO(data))], [])
    assert len(other.questions) == len(load_bank([path]).questions)


def test_a_team_pack_may_leave_reasons_out_or_give_them_in_one_language() -> None:
    one_language = """language: en
questions:
  - id: ours
    prompt: "How many GPUs does one node of our cluster hold?"
    options:
      - text: "4"
        why: "That was the old cluster; the new nodes have twice as many."
      - text: "8"
        correct: true
      - "16"
    explanation: "Every node has 8 GPUs."
"""
    [ours] = check_pack(one_language, "ours.yaml").bank.questions
    reason = ours.reason(0)
    assert reason is not None and reason.en == reason.id
    assert ours.reason(2) is None  # no reason given: the reply shows the explanation only
    bilingual = """questions:
  - id: mixed
    prompt: {en: "Which stage shards parameters?", id: "Stage mana yang men-shard parameter?"}
    options:
      - {en: "Stage 1", id: "Stage 1", why: {en: "Stage 1 shards only optimizer states."}}
      - {en: "Stage 3", id: "Stage 3", correct: true}
    explanation: {en: "Stage 3.", id: "Stage 3."}
"""
    [mixed] = check_pack(bilingual, "mixed.yaml").bank.questions
    reason = mixed.reason(0)
    assert reason is not None and reason.en == reason.id == "Stage 1 shards only optimizer states."


def test_a_reason_on_the_key_or_over_300_characters_is_refused() -> None:
    text = """questions:
  - id: q
    prompt: {en: "p", id: "p"}
    options:
      - {en: "a", id: "a", correct: true, why: {en: "x", id: "x"}}
      - {en: "b", id: "b", why: {en: "%s", id: "y"}}
    explanation: {en: "e", id: "e"}
""" % ("y" * 301)
    with pytest.raises(BankError) as caught:
        check_pack(text, "pack.yaml")
    messages = [str(p) for p in caught.value.problems]
    assert any("pack.yaml:5: option 1 is the correct one" in m for m in messages), messages
    assert any("pack.yaml:6:" in m and "301 characters; the limit is 300" in m for m in messages)


def test_export_lists_each_options_why_and_reads_back() -> None:
    bank = load_bank()
    data = bank_to_data(bank)
    for q, entry in zip(bank.questions, data, strict=True):
        for i, option in enumerate(entry["options"]):
            reason = q.reason(i)
            expected = {"en": reason.en, "id": reason.id} if reason is not None else None
            assert option.get("why") == expected, (q.id, i)
    json.dumps(data)  # plain data
    text = bank_to_yaml(bank)
    again = check_files([("exported.yaml", io.BytesIO(text.encode()))], [])
    assert [q.reasons for q in again.questions] == [q.reasons for q in bank.questions]
    assert [[d.why for d in t.distractors] for t in again.templates] == [
        [d.why for d in t.distractors] for t in bank.templates
    ]
    assert "why:" in yaml.safe_dump(yaml.safe_load(text))


def test_the_key_cannot_be_guessed_from_its_form(bank: list[Question]) -> None:
    tells = measure(bank)
    assert tells.longest_share <= LONGEST_KEY_SHARE, tells.longest_key
    # Nor the other way round: "never the longest" only helps if the key is not the shortest
    # instead (ties for the longest are fine: no option is visibly longer, as the next line holds).
    assert tells.shortest_share <= LONGEST_KEY_SHARE, tells.shortest_key
    assert tells.too_long == []  # no option over 1.25x the others' mean length
    assert tells.echoes == []  # no key alone repeats the prompt's distinctive word


def test_the_curriculum_of_2026_is_taught(bank: list[Question]) -> None:
    tags = Counter(tag for q in bank for tag in q.tags)
    for tag, floor in CURRICULUM.items():
        assert tags[tag] >= floor, (tag, tags[tag])
    templates = [t for t in load_bank().templates if "comm-time" in t.tags]
    assert len(templates) >= 2 and tags["comm-time"] >= 3
    assert len(bank) >= 150
    levels = Counter(q.difficulty for q in bank)
    assert min(levels[level] for level in (1, 2, 3)) >= len(bank) // 5, levels
    fsdp2 = " ".join(
        " ".join([q.prompt.en, q.explanation.en, *(o.en for o in q.options)])
        for q in bank
        if "fsdp2" in q.tags
    )
    for api in FSDP2_API:  # what fairscale's FSDP questions taught, as FSDP2 spells it today
        assert api in fsdp2, api


def test_every_source_names_where_the_claim_is(bank: list[Question]) -> None:
    entries: list[Question | Template] = [*bank, *load_bank().templates]
    for entry in entries:
        source = entry.source or ""
        marks = ("§", "/", ".md", ".py", ".rst", "Table", "Fig", "slide")
        assert any(mark in source for mark in marks), entry.id
