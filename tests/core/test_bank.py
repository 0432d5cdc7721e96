"""The question bank: every bundled file loads; broken files name each problem with file:line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.bank import BankError, bundled_paths, limits, load_bank
from bot.model import LANGS

ZEROQUIZ = [sys.executable, "-m", "adapters.cli"]
ROOT = Path(__file__).resolve().parents[2]

BROKEN = """\
questions:
  - id: dup-one
    prompt: {en: "First?", id: "Pertama?"}
    options:
      - {en: "a", id: "a", correct: true}
      - {en: "b", id: "b"}
    explanation: {en: "because", id: "karena"}
  - id: dup-one
    prompt:
      en: "Missing Indonesian?"
    options:
      - {en: "a", id: "a", correct: true}
      - {en: "b", id: "b", correct: true}
    explanation: {en: "because", id: "karena"}
"""

SYNTAX = """\
questions:
  - id: fine
    prompt: {en: "x", id: "y"
    options: []
"""


def test_every_bundled_question_is_valid_and_bilingual() -> None:
    bank = load_bank()
    assert len(bank) >= 8
    assert bundled_paths()[0].name == "00_original.yaml"
    for q in bank.questions:
        assert limits.MIN_OPTIONS <= len(q.options) <= limits.MAX_OPTIONS
        assert 0 <= q.answer < len(q.options)
        for text in (q.prompt, q.explanation, *q.options):
            for lang in LANGS:
                assert text.get(lang).strip()


def test_original_eight_come_first_with_the_intended_answers() -> None:
    originals = [q for q in load_bank().questions if q.id.startswith("orig-")]
    assert [q.id for q in originals] == [f"orig-0{i}" for i in range(1, 9)]
    answers = [q.options[q.answer].en.lower() for q in originals]
    expected = [
        "optimizer states, gradients",
        "momentum",
        "parameters",
        "all-gather",
        "fsdp",
        "communication",
        "optimizer states, while",
        "additional communication",
    ]
    for got, want in zip(answers, expected, strict=True):
        assert want in got, (got, want)


def test_broken_file_reports_every_problem_with_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(BROKEN)
    syntax = tmp_path / "syntax.yaml"
    syntax.write_text(SYNTAX)
    with pytest.raises(BankError) as err:
        load_bank([tmp_path])
    messages = [str(p) for p in err.value.problems]
    assert any(m.startswith(f"{bad}:8:") and "duplicate id 'dup-one'" in m for m in messages)
    assert any(m.startswith(f"{bad}:10:") and "missing the 'id' text" in m for m in messages)
    assert any(m.startswith(f"{bad}:13:") and "2 options marked correct" in m for m in messages)
    assert any(m.startswith(f"{syntax}:4:") and "YAML syntax error" in m for m in messages)


@pytest.mark.parametrize(
    ("snippet", "message"),
    [
        ("    colour: red\n", "unknown field 'colour'"),
        ("    difficulty: 9\n", "difficulty must be one of"),
    ],
)
def test_unknown_fields_and_bad_values(tmp_path: Path, snippet: str, message: str) -> None:
    body = BROKEN.split("  - id: dup-one\n    prompt:\n")[0] + snippet
    path = tmp_path / "q.yaml"
    path.write_text(body)
    with pytest.raises(BankError) as err:
        load_bank([path])
    assert any(message in str(p) for p in err.value.problems), err.value.problems


def test_limits_options_and_duplicates(tmp_path: Path) -> None:
    long_text = "x" * (limits.MAX_EXPLANATION + 1)
    opts = "\n".join(f'      - {{en: "o{i}", id: "o{i}"}}' for i in range(6))
    path = tmp_path / "q.yaml"
    path.write_text(
        "questions:\n"
        "  - id: too-much\n"
        '    prompt: {en: "p", id: "p"}\n'
        "    options:\n"
        f"{opts}\n"
        '      - {en: "o1", id: "o1", correct: true}\n'
        f'    explanation: {{en: "{long_text}", id: "ok"}}\n'
    )
    with pytest.raises(BankError) as err:
        load_bank([path])
    text = str(err.value)
    assert "has 7 options; it needs 2 to 5" in text
    assert "repeats another option's en text" in text
    assert f"is {limits.MAX_EXPLANATION + 1} characters; the limit is" in text


def run_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ZEROQUIZ, *args], capture_output=True, text=True, cwd=cwd, timeout=60)


def test_validate_command(tmp_path: Path) -> None:
    ok = run_cli("validate", "--no-bundled", "questions/")  # the folder alone, not added to itself
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("OK: ") and ok.stdout.count("\n") == 1
    (tmp_path / "bad.yaml").write_text(BROKEN)
    (tmp_path / "syntax.yaml").write_text(SYNTAX)
    bad = run_cli("validate", str(tmp_path))
    assert bad.returncode == 1
    lines = bad.stderr.splitlines()
    assert any(":8: duplicate id" in x for x in lines)
    assert any(":10: prompt is missing the 'id' text" in x for x in lines)
    assert any(":13: question 'dup-one' has 2 options marked correct" in x for x in lines)
    assert any("syntax.yaml:4: YAML syntax error" in x for x in lines)


def test_export_command_prints_the_bank_as_json() -> None:
    out = run_cli("export")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert len(data) == len(load_bank())
    first = data[0]
    assert set(first) == {
        "id",
        "prompt",
        "options",
        "answer",
        "explanation",
        "source",
        "tags",
        "difficulty",
    }
    assert first["id"] == "orig-01" and set(first["prompt"]) == {"en", "id"}
    assert isinstance(first["answer"], int)
