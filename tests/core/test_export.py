"""`zeroquiz export --format yaml`: the whole bank, templates included, as a question file that
`zeroquiz validate` passes and that loads back as the same questions and the same templates."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bot.bank import Bank, load_bank
from bot.model import Question

ZEROQUIZ = [sys.executable, "-m", "adapters.cli"]
ROOT = Path(__file__).resolve().parents[2]
SEEDS = range(0, 2**31, 2**31 // 40)  # spread over the seed range rounds draw from

TEAM = """\
templates:
  - id: team-gen-shards
    params:
      gpus: {from: 4, to: 64, step: 4}
      psi: [2, 3, 5]
    cases:
      - {label: {en: "half precision", id: "presisi setengah"}, values: {b: 2}}
      - {label: {en: "single precision", id: "presisi tunggal"}, values: {b: 4}}
    answer: "b * psi / gpus"
    tolerance: "2.5%"
    distractors:
      - {formula: "b * psi", mistake: "not divided"}
      - {formula: "2 * b * psi / gpus", mistake: "twice"}
      - {formula: "b * psi * gpus", mistake: "multiplied"}
    prompt:
      en: "{case}: {psi} B params over {gpus} GPUs?"
      id: "{case}: {psi} miliar param, {gpus} GPU?"
    explanation: {en: "b × {psi} / {gpus} = {answer}.", id: "b × {psi} / {gpus} = {answer}."}
"""


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ZEROQUIZ, *args], capture_output=True, text=True, cwd=ROOT, timeout=60)


def export_to(path: Path, *sources: str) -> str:
    out = run_cli("export", "--format", "yaml", *sources)
    assert out.returncode == 0, out.stderr
    path.write_text(out.stdout, encoding="utf-8")
    return out.stdout


def plain(question: Question | None) -> Question:
    """A question without where it was defined (the exported file is somewhere else)."""
    assert question is not None
    return question._replace(origin="")


def assert_same_bank(exported: Bank, original: Bank) -> None:
    assert [plain(q) for q in exported.questions] == [plain(q) for q in original.questions]
    assert [t.id for t in exported.templates] == [t.id for t in original.templates]
    for before, after in zip(original.templates, exported.templates, strict=True):
        assert after.params == before.params and after.cases == before.cases
        for seed in SEEDS:  # the same numbers, options and worked arithmetic for every seed
            assert plain(after.draw(seed)) == plain(before.draw(seed)), (before.id, seed)


def test_the_exported_bank_validates_and_loads_the_same_questions_and_templates(
    tmp_path: Path,
) -> None:
    exported = tmp_path / "bank.yaml"
    text = export_to(exported)
    original = load_bank()
    assert original.templates, "the bundled bank has templates to export"
    ok = run_cli("validate", "--no-bundled", str(exported))  # the file alone, as serve --no-bundled
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout == (
        f"OK: {len(original)} questions and {len(original.templates)} templates in 1 file(s), "
        "all valid\n"
    )
    assert "gen-mem-stage3" in text and "formula: 16 * psi / nd" in text  # formulas, not draws
    assert "@" not in "".join(line for line in text.splitlines() if "id: gen-" in line)
    assert_same_bank(load_bank([exported]), original)
    # Exporting the export again changes nothing: the file is a fixed point.
    assert export_to(tmp_path / "again.yaml", str(exported)) == text


def test_a_team_template_with_a_range_and_cases_round_trips(tmp_path: Path) -> None:
    team = tmp_path / "team.yaml"
    team.write_text(TEAM, encoding="utf-8")
    exported = tmp_path / "exported.yaml"
    text = export_to(exported, str(team))
    assert "questions:" not in text  # a bank of templates only exports no empty list
    ok = run_cli("validate", "--no-bundled", str(exported))  # the file alone, as serve --no-bundled
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout == "OK: 0 questions and 1 templates in 1 file(s), all valid\n"
    assert_same_bank(load_bank([exported]), load_bank([team]))  # the tolerance too
    assert "tolerance: 2.5%" in text
    # The range is written as the range it was, so the file stays as short as the author's.
    assert "from: 4" in text and "to: 64" in text and "step: 4" in text


def test_the_default_json_export_is_unchanged_by_templates() -> None:
    out = run_cli("export")
    assert out.returncode == 0, out.stderr
    assert "templates" not in out.stdout[:200] and out.stdout.lstrip().startswith("[")
