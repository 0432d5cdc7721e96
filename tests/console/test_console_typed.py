"""Type the number at the terminal, as a real `zeroquiz play` child: a generated question takes a
letter or the number typed (either decimal mark, with or without the unit); what is no number gets
"type a number like …" and is asked again, counting nothing; a named mistake says why."""

from __future__ import annotations

from pathlib import Path

from test_console import run_zeroquiz

# One drawable question (one value per param): 16 x 7.5 / 64 = 1.875, shown as 1.88 GB.
FIXED = """\
templates:
  - id: t-fixed
    params:
      psi: [7.5]
      nd: [64]
    answer: "16 * psi / nd"
    distractors:
      - formula: "20 * psi / nd"
        mistake: "20 bytes"
        why:
          en: "20 bytes per parameter is ZeRO-Infinity's count."
          id: "20 byte per parameter itu hitungan ZeRO-Infinity."
      - {formula: "12 * psi / nd", mistake: "no master", why: {en: "No master.", id: "Tanpa."}}
      - {formula: "16 * psi", mistake: "not divided", why: {en: "Not divided.", id: "Tidak."}}
    prompt:
      en: "Stage 3, {psi}B params, {nd} GPUs: per GPU?"
      id: "Stage 3, {psi}B parameter, {nd} GPU: per GPU?"
    explanation:
      en: "16 x {psi} GB over {nd} GPUs: {answer}."
      id: "16 x {psi} GB dibagi {nd} GPU: {answer}."
"""


def play_typed(tmp_path: Path, lang: str, stdin: str) -> str:
    questions = tmp_path / "fixed.yaml"
    questions.write_text(FIXED, encoding="utf-8")
    env = {"ZEROQUIZ_DB": str(tmp_path / "q.db"), "PATH": "/usr/bin:/bin"}
    args = ["play", "--count", "1", "--lang", lang, "--questions", str(questions), "--no-bundled"]
    result = run_zeroquiz(args, tmp_path, env, stdin)
    assert result.returncode == 0, result.stderr
    return result.stdout.replace("\n   ", " ")


def test_a_number_typed_at_the_prompt_is_graded_and_counted_once(tmp_path: Path) -> None:
    out = play_typed(tmp_path, "en", "about two\n1.88 GB\n")
    assert "Your answer (A/B/C/D, or type the number): " in out
    assert "That isn't a number: type a number like 3.14 GB. Nothing was counted." in out
    assert "✅ Correct! You typed 1.88 GB. The answer is" in out
    assert "16 x 7.5 GB over 64 GPUs: 1.88 GB." in out  # the worked calculation
    assert "Final score: 1 of 1 right, 10 points." in out  # the unreadable line counted nothing
    again = play_typed(tmp_path, "en", "2,34\n")  # the same database: a new round
    assert "❌ Not quite: you typed 2,34." in again
    assert "Why 2,34 is not right: 20 bytes per parameter is ZeRO-Infinity's count." in again
    assert "Final score: 0 of 1 right, 0 points." in again


def test_indonesian_reads_the_decimal_comma(tmp_path: Path) -> None:
    out = play_typed(tmp_path, "id", "1,875\n")
    assert "Jawabanmu (A/B/C/D, atau ketik angkanya): " in out
    assert "✅ Benar! Kamu mengetik 1,875." in out


def test_a_drill_card_takes_the_number_typed(tmp_path: Path) -> None:
    play_typed(tmp_path, "en", "120\n")  # a named mistake: missed
    questions = str(tmp_path / "fixed.yaml")
    env = {"ZEROQUIZ_DB": str(tmp_path / "q.db"), "PATH": "/usr/bin:/bin"}
    args = ["drill", "--questions", questions, "--no-bundled"]
    drilled = run_zeroquiz(args, tmp_path, env, "lots\n1,88 gb\n")
    assert drilled.returncode == 0, drilled.stderr
    out = drilled.stdout.replace("\n   ", " ")
    assert "Your answer (A/B/C/D, or type the number), or q to stop: " in out
    assert "That isn't a number: type a number like 3.14 GB." in out  # the card is asked again
    assert "✅ Correct! You typed 1,88 gb." in out
    assert "Drill over: 0 missed question(s) left" in out
