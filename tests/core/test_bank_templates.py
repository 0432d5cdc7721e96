"""Broken templates: `zeroquiz validate` names the file and the line of each mistake, as it does for
questions (formulas, placeholders, params, draws whose options coincide, texts over the limits)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bot.bank import BankError, Problem, limits, load_bank

ROOT = Path(__file__).resolve().parents[2]

VALID = """\
templates:
  - id: t-mem
    difficulty: 2
    tags: [memory-math]
    source: "ZeRO paper, §5.3"
    params:
      psi: [1.5, 7.5, 13]
      nd: {from: 8, to: 64, step: 8}
    values:
      full: "16 * psi"
    answer: "16 * psi / nd"
    distractors:
      - {formula: "20 * psi / nd", mistake: "20 bytes"}
      - {formula: "12 * psi / nd", mistake: "no master copy"}
      - {formula: "16 * psi", mistake: "not divided"}
    prompt:
      en: "Stage 3, {psi}B params, {nd} GPUs: per GPU?"
      id: "Stage 3, {psi}B parameter, {nd} GPU: per GPU?"
    explanation:
      en: "16 x {psi} = {full} GB over {nd} GPUs: {answer}."
      id: "16 x {psi} = {full} GB dibagi {nd} GPU: {answer}."
"""


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the one line holding `needle`."""
    hits = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


def problems_of(tmp_path: Path, text: str) -> list[Problem]:
    path = tmp_path / "t.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BankError) as err:
        load_bank([path])
    assert all(p.path == str(path) for p in err.value.problems)
    return err.value.problems


def test_the_valid_template_loads_and_draws(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(VALID, encoding="utf-8")
    bank = load_bank([path])
    assert len(bank) == 0 and [t.id for t in bank.templates] == ["t-mem"]
    q = bank.get("t-mem@3")
    assert q is not None and q.tags == ("memory-math",) and q.origin == f"{path}:2"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            'en: "Stage 3, {psi}B params',
            'en: "Stage 3, {psii}B params',
            "unknown placeholder '{psii}' in prompt (en); known: {full}, {nd}, {psi}",
        ),
        (
            'id: "16 x {psi} = {full} GB dibagi {nd} GPU: {answer}."',
            'id: "16 x {psi} = {full} GB dibagi {nd} GPU: {answer:.2f}."',
            "explanation (id): placeholder '{answer}' takes no format; write just {answer}",
        ),
        (
            'en: "Stage 3, {psi}B params, {nd} GPUs: per GPU?"',
            'en: "Stage 3, {psi}B params, {nd} GPUs: {answer}?"',
            "unknown placeholder '{answer}' in prompt (en); known: {full}, {nd}, {psi}",
        ),
        ('answer: "16 * psi / nd"', 'answer: "16 * psi /"', "formula syntax error: invalid syntax"),
        (
            'answer: "16 * psi / nd"',
            'answer: "16 * psi ** nd"',
            "only + - * / and parentheses are allowed in a formula",
        ),
        (
            'answer: "16 * psi / nd"',
            "answer: \"__import__('os').system('true')\"",
            "only numbers, names, + - * / and parentheses are allowed in a formula",
        ),
        (
            '{formula: "12 * psi / nd"',
            '{formula: "12 * psi / gpus"',
            "unknown name 'gpus' in formula (known: full, nd, psi)",
        ),
        (
            'full: "16 * psi"',
            'full: "16 * psi * nd * x"',
            "unknown name 'x' in formula (known: nd, psi)",
        ),
        ("psi: [1.5, 7.5, 13]", "psi: []", "param 'psi' has no values"),
        (
            "nd: {from: 8, to: 64, step: 8}",
            "nd: {from: 8, to: 64, step: 0}",
            "param 'nd' has no values (from 8 to 64 step 0)",
        ),
        ("psi: [1.5, 7.5, 13]", "psi: [1.5, seven, 13]", "a value of param 'psi' must be a number"),
        (
            "nd: {from: 8, to: 64, step: 8}",
            "nd: {from: 8, to: 64}",
            "param 'nd' needs a list of values or from, to and step",
        ),
        ("id: t-mem", "id: " + "t" * 30, "id is 30 characters; the limit is 29"),
        (
            '      - {formula: "16 * psi", mistake: "not divided"}\n',
            "",
            "template has 2 distractors; it needs 3 to 8",
        ),
    ],
)
def test_a_broken_template_names_its_line(tmp_path: Path, old: str, new: str, message: str) -> None:
    assert old in VALID
    text = VALID.replace(old, new, 1)
    problems = problems_of(tmp_path, text)
    assert [p.message for p in problems] == [message]
    needle = new.splitlines()[0] if new else "distractors:"
    assert problems[0].line == line_of(text, needle)


def test_a_draw_whose_mistake_shows_the_answer_is_reported_with_its_numbers(tmp_path: Path) -> None:
    # 16Ψ/Nd and 12Ψ/Nd + 4Ψ/Nd are the same number: that "mistake" is no mistake.
    text = VALID.replace('"12 * psi / nd", mistake', '"12 * psi / nd + 4 * psi / nd", mistake')
    (problem,) = problems_of(tmp_path, text)
    assert problem.line == line_of(text, "distractors:")
    assert problem.message.startswith("template 't-mem': with psi=1.5, nd=8 the mistakes")
    assert "the mistakes give only 2 options that differ from the answer" in problem.message


def test_rounding_that_makes_options_coincide_is_found(tmp_path: Path) -> None:
    # 16Ψ/Nd vs 16Ψ/Nd + 0.0001: different numbers, the same once shown with three digits.
    text = VALID.replace('"20 * psi / nd", mistake', '"16 * psi / nd + 0.0001", mistake')
    (problem,) = problems_of(tmp_path, text)
    assert problem.line == line_of(text, "distractors:")


def test_a_division_by_zero_in_some_draw_is_found(tmp_path: Path) -> None:
    text = VALID.replace("nd: {from: 8, to: 64, step: 8}", "nd: {from: 0, to: 64, step: 8}")
    (problem,) = problems_of(tmp_path, text)
    assert problem.line == line_of(text, "answer:")
    assert "divides by zero (psi=" in problem.message and "nd=0" in problem.message


def test_a_text_that_only_the_drawn_numbers_make_too_long_is_found(tmp_path: Path) -> None:
    filler = "x" * (limits.MAX_PROMPT - len("{psi}") - 1)  # 400 characters as written
    text = VALID.replace(
        'en: "Stage 3, {psi}B params, {nd} GPUs: per GPU?"', f'en: "{filler} {{psi}}"'
    )
    text = text.replace("psi: [1.5, 7.5, 13]", "psi: [1.5, 7.5, 123456]")  # "123,456": 7 characters
    (problem,) = problems_of(tmp_path, text)
    assert problem.line == line_of(text, "prompt:")
    assert "prompt (en) for seed" in problem.message
    assert (
        f"is {limits.MAX_PROMPT + 2} characters; the limit is {limits.MAX_PROMPT}"
        in problem.message
    )


def test_a_template_id_may_not_repeat_a_question_id(tmp_path: Path) -> None:
    question = (
        "questions:\n  - id: t-mem\n    prompt: {en: a, id: b}\n"
        "    options:\n      - {en: x, id: x, correct: true}\n      - {en: y, id: y}\n"
        "    explanation: {en: c, id: d}\n"
    )
    text = question + VALID
    (problem,) = problems_of(tmp_path, text)
    assert problem.line == 9 and problem.message.startswith("duplicate id 't-mem'")


def test_zeroquiz_validate_prints_file_and_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text(VALID.replace('answer: "16 * psi / nd"', 'answer: "16 * psi / (nd"'))
    out = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "zeroquiz"), "validate", str(broken)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 1
    line = line_of(broken.read_text(), "answer:")
    assert out.stderr.startswith(f"{broken}:{line}: formula syntax error")
    good = tmp_path / "good.yaml"
    good.write_text(VALID)
    ok = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "zeroquiz"), "validate", "--no-bundled", str(good)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout == "OK: 0 questions and 1 templates in 1 file(s), all valid\n"


def test_the_bundled_bank_validates_fast_with_its_templates() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "adapters.cli", "validate"], capture_output=True, text=True, cwd=ROOT
    )
    assert out.returncode == 0, out.stderr
    assert " templates in " in out.stdout


# Cases: named rows (a precision and its bytes per parameter) drawn whole, one per seed.
CASES = """\
templates:
  - id: t-prec
    params:
      psi: [1.5, 7.5, 13]
      nd: [8, 16, 64]
    cases:
      - label: {en: "fp16 grads", id: "gradient fp16"}
        values: {kept: 4, shard: 16}
      - label: {en: "fp32 grads", id: "gradient fp32"}
        values: {kept: 8, shard: 8}
    values:
      whole: "kept * psi"
    answer: "(kept + shard / nd) * psi"
    distractors:
      - {formula: "(kept + shard) * psi", mistake: "nothing sharded"}
      - {formula: "(kept + shard) * psi / nd", mistake: "everything sharded"}
      - {formula: "shard * psi / nd", mistake: "the whole part left out"}
    prompt:
      en: "{psi}B params with {case}, {nd} GPUs: per GPU?"
      id: "{psi}B parameter dengan {case}, {nd} GPU: per GPU?"
    explanation:
      en: "For {case}: {whole} GB whole plus the shard, {answer}."
      id: "Untuk {case}: {whole} GB utuh ditambah shard, {answer}."
"""
SECOND_CASE = """\
      - label: {en: "fp32 grads", id: "gradient fp32"}
        values: {kept: 8, shard: 8}
"""
CASES_BLOCK = CASES[CASES.index("    cases:\n") : CASES.index("    values:\n")]


def test_cases_are_drawn_with_their_labels_and_numbers_and_drawn_again_alike(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(CASES, encoding="utf-8")
    bank, again = load_bank([path]), load_bank([path])
    rows = {"fp16 grads": (4, 16, "gradient fp16"), "fp32 grads": (8, 8, "gradient fp32")}
    seen = set()
    for seed in range(200):
        q = bank.get(f"t-prec@{seed}")
        assert q is not None and q == again.get(f"t-prec@{seed}")
        (label,) = [row for row in rows if f"with {row}," in q.prompt.en]
        kept, shard, label_id = rows[label]
        assert f"dengan {label_id}," in q.prompt.id and q.explanation.id.startswith(
            f"Untuk {label_id}:"
        )
        psi = float(q.prompt.en.split("B params")[0])
        nd = float(q.prompt.en.split(", ")[1].split(" GPUs")[0])
        shown = float(q.options[q.answer].en.removesuffix(" GB"))
        assert shown == pytest.approx((kept + shard / nd) * psi, rel=0.005), q.prompt.en
        seen.add(label)
    assert seen == set(rows)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (CASES_BLOCK, "    cases: {kept: 4, shard: 16}\n", "cases must be a list"),
        (CASES_BLOCK, "    cases: []\n", "cases is empty; leave it out or list at least one case"),
        (
            'label: {en: "fp32 grads", id: "gradient fp32"}',
            'label: {en: "fp32 grads"}',
            "case label is missing the 'id' text",
        ),
        (SECOND_CASE, "      - values: {kept: 8, shard: 8}\n", "case is missing field 'label'"),
        (
            "values: {kept: 8, shard: 8}",
            "values: {kept: 8, shard: eight}",
            "case value 'shard' must be a number",
        ),
        (
            "values: {kept: 8, shard: 8}",
            "values: {kept: 8, shared: 8}",
            "case 'fp32 grads' has values kept, shared; the first case has kept, shard",
        ),
        (
            "values: {kept: 8, shard: 8}",
            "values: {kept: 8, shard: 8, psi: 2}",
            "case value name 'psi' must be a plain name (not a param or 'case')",
        ),
        (
            'whole: "kept * psi"',
            'whole: "kept * psi"\n      shard: "16"',
            "value name 'shard' must be a new plain name (not a param or a case value)",
        ),
        (
            "nd: [8, 16, 64]",
            "nd: [8, 16, 64]\n      case: [1, 2]",
            "param name 'case' must be a plain name other than 'answer' or 'case'",
        ),
        (
            'label: {en: "fp32 grads", id: "gradient fp32"}',
            'label: {en: "fp16 grads", id: "gradient fp32"}',
            "case label 'fp16 grads' appears twice",
        ),
        (
            'id: "{psi}B parameter dengan {case}, {nd} GPU: per GPU?"',
            'id: "{psi}B parameter, {nd} GPU: per GPU?"',
            "prompt (id) must show the drawn case with '{case}'",
        ),
        (
            'en: "For {case}: {whole} GB whole plus the shard, {answer}."',
            'en: "For {case}: {whole} GB whole plus the {shards}, {answer}."',
            "unknown placeholder '{shards}' in explanation (en); known: {answer}, {case}, {kept}, "
            "{nd}, {psi}, {shard}, {whole}",
        ),
    ],
)
def test_a_broken_case_names_its_line(tmp_path: Path, old: str, new: str, message: str) -> None:
    assert CASES.count(old) == 1
    text = CASES.replace(old, new)
    problems = problems_of(tmp_path, text)
    assert [p.message for p in problems] == [message]
    assert problems[0].line == line_of(text, new.strip().splitlines()[-1].strip())


def test_case_placeholder_without_cases_is_refused(tmp_path: Path) -> None:
    text = VALID.replace('en: "Stage 3, {psi}B params', 'en: "Stage 3, {case}, {psi}B params')
    (problem,) = problems_of(tmp_path, text)
    assert problem.message == "placeholder '{case}' in prompt (en) needs 'cases:' to draw"
    assert problem.line == line_of(text, "{case}")


def test_a_mistake_that_is_the_answer_in_one_case_only_is_found(tmp_path: Path) -> None:
    # kept/nd + shard is kept + shard/nd exactly when kept == shard: the second case only.
    text = CASES.replace('"shard * psi / nd"', '"(kept / nd + shard) * psi"')
    (problem,) = problems_of(tmp_path, text)
    assert problem.line == line_of(text, "distractors:")
    assert problem.message.startswith(
        "template 't-prec': with case 'fp32 grads', psi=1.5, nd=8 the mistakes give only 2 options"
    )


def test_a_division_by_zero_in_one_case_is_found(tmp_path: Path) -> None:
    text = CASES.replace('whole: "kept * psi"', 'whole: "kept * psi / (shard - 8)"')
    (problem,) = problems_of(tmp_path, text)
    assert problem.line == line_of(text, "answer:")
    assert problem.message == (
        "template 't-prec': divides by zero (case 'fp32 grads', psi=1.5, nd=8)"
    )


def test_a_case_whose_label_makes_the_prompt_too_long_is_found(tmp_path: Path) -> None:
    # Only the second case's label is long; the texts' sample must draw it to find the problem.
    label = "y" * 100
    filler = "x" * (limits.MAX_PROMPT - 50)
    text = CASES.replace('{en: "fp32 grads",', f'{{en: "{label}",').replace(
        'en: "{psi}B params with {case},', f'en: "{filler} {{psi}}B params with {{case}},'
    )
    (problem,) = problems_of(tmp_path, text)
    assert problem.line == line_of(text, "prompt:")
    assert "prompt (en) for seed" in problem.message


def test_zeroquiz_validate_prints_a_broken_case_with_its_line(tmp_path: Path) -> None:
    broken = tmp_path / "cases.yaml"
    broken.write_text(CASES.replace("shard: 8}", "shard: eight}"), encoding="utf-8")
    out = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "zeroquiz"), "validate", str(broken)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 1
    line = line_of(broken.read_text(), "shard: eight}")
    assert out.stderr.startswith(f"{broken}:{line}: case value 'shard' must be a number")
