"""Hostile question files: each ends in one clear `file:line: message` problem, never a traceback.

The first cases are the ones issue 14 names (a 5,000-deep list in a text field, a 100,000-deep
mapping); before the depth limit each ended in RecursionError.
"""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bot.bank import BankError, Problem, limits, load_bank

HEAD = "questions:\n  - id: deep\n"
VALID = """\
questions:
  - id: fine
    prompt: {en: "Fine?", id: "Baik?"}
    options:
      - {en: "yes", id: "ya", correct: true}
      - {en: "no", id: "tidak"}
    explanation: {en: "because", id: "karena"}
"""


def problems_of(path: Path) -> list[Problem]:
    with pytest.raises(BankError) as err:
        load_bank([path])
    return err.value.problems


def only_problem(path: Path, text: str | bytes) -> Problem:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    found = problems_of(path)
    assert len(found) == 1, found
    assert found[0].path == str(path)
    return found[0]


def test_a_5000_deep_list_in_a_text_field_names_its_line(tmp_path: Path) -> None:
    depth = 5000
    body = HEAD + "    prompt: " + "[" * depth + "x" + "]" * depth + "\n"
    problem = only_problem(tmp_path / "q.yaml", body)
    assert problem.line == 3
    assert problem.message == (
        f"nested more than {limits.MAX_DEPTH} lists and mappings deep; "
        f"a question file needs {limits.NEEDED_DEPTH}"
    )


def test_a_100000_deep_flow_mapping_names_its_line(tmp_path: Path) -> None:
    depth = 100_000
    body = "# a comment\nquestions: " + "{a: " * depth + "x" + "}" * depth + "\n"
    problem = only_problem(tmp_path / "q.yaml", body)
    assert problem.line == 2 and problem.message.startswith("nested more than")


def test_a_deep_block_mapping_names_the_line_where_it_gets_too_deep(tmp_path: Path) -> None:
    # 1,000 levels, far past Python's recursion limit for PyYAML's composer (two frames a level);
    # block style needs one more space a level, so 100,000 levels would be 5 GB.
    depth = 1000
    body = "".join(" " * i + "a:\n" for i in range(depth)) + " " * depth + "x\n"
    problem = only_problem(tmp_path / "q.yaml", body)
    assert problem.line == limits.MAX_DEPTH + 1
    assert problem.message.startswith("nested more than")


def test_a_deep_block_sequence(tmp_path: Path) -> None:
    problem = only_problem(tmp_path / "q.yaml", "questions:\n  " + "- " * 5000 + "x\n")
    assert problem.line == 2 and problem.message.startswith("nested more than")


def test_nesting_at_the_limit_gets_the_ordinary_message(tmp_path: Path) -> None:
    # 3 levels to the prompt, then 7 more: 10 in all, allowed, so the usual message applies.
    extra = limits.MAX_DEPTH - 3
    body = HEAD + "    prompt: " + "[" * extra + "x" + "]" * extra + "\n"
    (tmp_path / "q.yaml").write_text(body)
    messages = [p.message for p in problems_of(tmp_path / "q.yaml")]
    assert "prompt must be a mapping" in messages
    assert not any("nested" in m for m in messages)


def test_billion_laughs_is_refused_at_the_first_alias_without_expanding(tmp_path: Path) -> None:
    lines = ['lol0: &lol0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"lol{i}: &lol{i} [{', '.join([f'*lol{i - 1}'] * 9)}]" for i in range(1, 10)]
    lines.append("questions: [*lol9, *lol9]")
    problem = only_problem(tmp_path / "q.yaml", "\n".join(lines) + "\n")
    assert problem.line == 2
    assert problem.message == "alias '*lol0' is not supported in question files; write it out"


def test_aliases_that_would_make_the_checker_walk_one_subtree_again_and_again(
    tmp_path: Path,
) -> None:
    # 1,000 questions, each an alias of one whose options are 1,000 aliases: a million walks of an
    # option from 6 kB (before aliases were refused: 9 s and two million problems).
    n = 1000
    body = (
        "o: &o {en: a, id: b}\n"
        f"opts: &opts [{', '.join(['*o'] * n)}]\n"
        "q: &q {id: x, prompt: {en: a, id: b}, options: *opts, explanation: {en: a, id: b}}\n"
        f"questions: [{', '.join(['*q'] * n)}]\n"
    )
    start = time.monotonic()
    problem = only_problem(tmp_path / "q.yaml", body)
    assert time.monotonic() - start < 10
    assert (problem.line, problem.message.split(";")[0]) == (
        2,
        "alias '*o' is not supported in question files",
    )


def test_bytes_that_are_not_utf8_name_their_line(tmp_path: Path) -> None:
    problem = only_problem(tmp_path / "q.yaml", VALID.encode()[:60] + b"\xff\xfe caf\xe9\n")
    assert problem.line == VALID[:60].count("\n") + 1
    assert problem.message == "file is not UTF-8 text"


def test_a_binary_file(tmp_path: Path) -> None:
    noise = bytes(random.Random(14).randrange(256) for _ in range(4096))
    problem = only_problem(tmp_path / "q.yaml", b"\x89PNG\r\n\x1a\n" + noise)
    assert problem.message == "file is not UTF-8 text"


def test_a_control_character_names_its_line(tmp_path: Path) -> None:
    problem = only_problem(tmp_path / "q.yaml", VALID.replace("Baik?", "Ba\x00ik?"))
    assert (problem.line, problem.message) == (3, "character #x0000 is not allowed in YAML")


@pytest.mark.parametrize("body", ["", "\n\n", "# only a comment\n", "\ufeff"])
def test_an_empty_file(tmp_path: Path, body: str) -> None:
    problem = only_problem(tmp_path / "q.yaml", body)
    assert problem.message == "file is empty; expected a mapping with a 'questions' list"


def test_a_file_that_is_a_directory(tmp_path: Path) -> None:
    (tmp_path / "ok.yaml").write_text(VALID)
    (tmp_path / "sub.yaml").mkdir()
    found = problems_of(tmp_path)
    assert [str(p) for p in found] == [f"{tmp_path / 'sub.yaml'}: cannot read file: Is a directory"]


def test_a_missing_file_and_a_name_too_long(tmp_path: Path) -> None:
    missing, long_name = tmp_path / "missing.yaml", tmp_path / ("x" * 300)
    found = problems_of(missing) + problems_of(long_name)
    assert [str(p) for p in found] == [
        f"{missing}: cannot read file: No such file or directory",
        f"{long_name}: cannot read file or folder: File name too long",
    ]


def test_tabs_for_indentation_name_their_line(tmp_path: Path) -> None:
    problem = only_problem(tmp_path / "q.yaml", VALID.replace("    prompt", "\tprompt"))
    assert problem.line == 3 and problem.message.startswith("YAML syntax error: found character")


def test_duplicate_keys_are_reported_where_they_repeat(tmp_path: Path) -> None:
    body = VALID.replace("    prompt:", "    id: again\n    prompt:")
    problem = only_problem(tmp_path / "q.yaml", body)
    assert (problem.line, problem.message) == (3, "field 'id' appears twice in question")


def test_a_huge_scalar_within_the_size_limit(tmp_path: Path) -> None:
    size = limits.MAX_FILE_BYTES // 2
    problem = only_problem(tmp_path / "q.yaml", VALID.replace("Fine?", "F" * size))
    assert (problem.line, problem.message) == (
        3,
        f"prompt (en) is {size} characters; the limit is {limits.MAX_PROMPT}",
    )


def test_a_file_over_the_size_limit_is_not_parsed(tmp_path: Path) -> None:
    problem = only_problem(tmp_path / "q.yaml", VALID + "#" * limits.MAX_FILE_BYTES)
    assert (problem.line, problem.message) == (
        0,
        f"file is larger than the limit of {limits.MAX_FILE_BYTES} bytes",
    )


def test_a_file_with_too_many_values_names_the_line_past_the_limit(tmp_path: Path) -> None:
    # 8 values before the first tag (file, key, list, question, id: x, tags: [ ).
    body = "questions:\n  - id: x\n    tags:\n" + "      - t\n" * limits.MAX_VALUES
    problem = only_problem(tmp_path / "q.yaml", body)
    first_tag_line = 4
    assert (problem.line, problem.message) == (
        first_tag_line + limits.MAX_VALUES - 8,
        f"more than {limits.MAX_VALUES} values in one file; split it into several",
    )


def test_thousands_of_options_are_checked_in_linear_time(tmp_path: Path) -> None:
    # 9,000 options fit the value limit; the duplicate check was quadratic (over 30 s).
    line = "      - {en: o%d, id: p%d}\n"
    n = 9000
    body = VALID.split("    options:\n")[0] + "    options:\n"
    body += "".join(line % (i, i) for i in range(n)) + line % (1, 1)
    (tmp_path / "q.yaml").write_text(body)
    start = time.monotonic()
    messages = [p.message for p in problems_of(tmp_path / "q.yaml")]
    assert time.monotonic() - start < 10
    assert f"question 'fine' has {n + 1} options; it needs 2 to 5" in messages
    assert f"option {n + 1} repeats another option's en text" in messages


def test_file_text_in_a_message_stays_on_one_short_line(tmp_path: Path) -> None:
    body = VALID.replace("    prompt:", '    "col\\nour\\u2028' + "x" * 100 + '": red\n    prompt:')
    problem = only_problem(tmp_path / "q.yaml", body)
    assert problem.message == f"unknown field 'col\\nour\\u2028{'x' * 32}…' in question"


def zeroquiz() -> list[str]:
    script = Path(sys.executable).parent / "zeroquiz"
    return [str(script)] if script.exists() else [sys.executable, "-m", "adapters.cli"]


def test_validate_command_on_a_deep_file_prints_one_line_and_exits_1(tmp_path: Path) -> None:
    deep = tmp_path / "deep.yaml"
    deep.write_text(HEAD + "    prompt: " + "[" * 5000 + "x" + "]" * 5000 + "\n")
    run = subprocess.run(
        [*zeroquiz(), "validate", str(deep)], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 1
    assert "Traceback" not in run.stderr
    assert run.stderr.splitlines() == [
        f"{deep}:3: nested more than {limits.MAX_DEPTH} lists and mappings deep; "
        f"a question file needs {limits.NEEDED_DEPTH}",
        "1 problem(s) found",
    ]
    assert run.stdout == ""
