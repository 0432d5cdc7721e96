"""GIFT, Aiken and Kahoot-CSV files converted into one-language packs: what the file says is what
the pack asks (read back through check_pack), what a pack can't hold is listed as skipped, and
every problem names the file and the line the person wrote."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.bank.bank import BankError, Problem
from bot.bank.imports import FORMATS, Imported, convert, guess_format, source_problems
from bot.bank.packs import check_pack
from bot.model import Question

DATA = Path(__file__).resolve().parents[1] / "data" / "imports"


def read(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def questions(imported: Imported, label: str) -> list[Question]:
    assert imported.problems == ()
    return check_pack(imported.yaml, label).bank.questions


def summary(q: Question) -> tuple[object, ...]:
    """What a learner sees of a question, in the file's (one) language."""
    reasons = [r.en if (r := q.reason(i)) else None for i in range(len(q.options))]
    options = [o.en for o in q.options]
    return (q.id, q.tags, q.prompt.en, options, q.answer, reasons, q.explanation.en)


def test_a_moodle_gift_file_is_what_it_says() -> None:
    imported = convert(read("moodle.gift"), "moodle.gift", "gift", "en", name="zero-basics")
    assert imported.count == 7
    assert imported.yaml.startswith("language: en\nname: zero-basics\nquestions:\n")
    content = check_pack(imported.yaml, "moodle.gift")
    assert (content.language, content.name) == ("en", "zero-basics")
    assert [summary(q) for q in questions(imported, "moodle.gift")] == [
        (
            "zero-stage-1",
            ("distributed-training",),
            "What does ZeRO stage 1 shard across the data-parallel ranks?",
            ["the optimizer states", "the gradients", "the parameters"],
            0,
            [None, "Those are sharded from stage 2 on.", "Only stage 3 shards the parameters."],
            "Stage 1 partitions the optimizer states; every rank still holds all gradients "
            "and parameters.",
        ),
        (
            "escapes-all-of-them",
            ("distributed-training",),
            "In C, is `a = b` an assignment?\nAnswer { carefully }.",
            ["yes, `=` assigns", "no, it compares ~ like `#define`", "it is a {block}"],
            0,
            [None, None, "Braces {} make a block, not this."],
            "The answer is: yes, `=` assigns. Right: `==` compares.",
        ),
        (
            "ring-all-reduce",
            ("basics",),
            "A ring all-reduce sends each byte about twice, whatever the number of GPUs.",
            ["True", "False"],
            0,
            [None, "It is 2(n-1)/n, which tends to 2."],
            "The answer is: True. Right: 2(n-1)/n.",
        ),
        (
            "missing-word",
            ("basics",),
            "With ZeRO stage _____ every rank keeps only a shard of the parameters.",
            ["3", "2", "1"],
            0,
            [None, None, "stage 1 shards only the optimizer states"],
            "The answer is: 3. all three stages shard",
        ),
        (
            "q-7",  # no title: the question's number in the file, skipped ones counted
            ("basics",),
            "Which is larger: fp32 & fp16?",
            ["fp32", "fp16"],
            0,
            [None, None],
            "The answer is: fp32. 4 bytes against 2.",
        ),
        (
            "zero-stage-1-2",  # the same title again
            ("basics",),
            "Which stage first shards the gradients?",
            ["1", "2", "3"],
            1,
            [None, None, None],
            "The answer is: 2.",
        ),
        (
            "odd-title",
            ("basics",),
            "The sun goes round the earth.",
            ["True", "False"],
            1,
            [None, None],
            "The answer is: False.",
        ),
    ]
    assert imported.skipped == (
        Problem("moodle.gift", 27, "skipped: a short answer question (no '~' answers)"),
        Problem("moodle.gift", 30, "skipped: a matching question ('->')"),
    )


def test_true_false_speaks_the_pack_language() -> None:
    imported = convert("Bumi itu datar. {FALSE#Bumi itu bulat.}", "tf.gift", "gift", "id")
    [q] = questions(imported, "tf.gift")
    assert summary(q) == (
        "q-1",
        (),
        "Bumi itu datar.",
        ["Benar", "Salah"],
        1,
        ["Bumi itu bulat.", None],
        "Jawabannya: Salah.",
    )


def test_what_gift_skips_is_listed_with_its_line() -> None:
    text = "\n\n".join(
        [
            "Essay? {}",
            "How many? {#2:1}",
            "A description, no answers.",
            "Two right? {=a =b ~c}",
            "Weighted? {~%50%a ~%50%b ~%-100%c}",
            "Six? {=a ~b ~c ~d ~e ~f}",
            "Fine? {=a ~b}",
        ]
    )
    imported = convert(text, "kinds.gift", "gift", "en")
    assert imported.count == 1 and imported.problems == ()
    assert [(s.line, s.message) for s in imported.skipped] == [
        (1, "skipped: an essay question ('{}')"),
        (3, "skipped: a numeric question ('{#...}')"),
        (5, "skipped: a description (no answers in '{...}')"),
        (7, "skipped: 2 right answers ('='); a question has one"),
        (9, "skipped: weighted answers ('%50%')"),
        (11, "skipped: 6 answers; a question has at most 5"),
    ]
    assert [q.id for q in questions(imported, "kinds.gift")] == ["q-7"]


def test_an_aiken_file_is_what_it_says() -> None:
    imported = convert(read("sample.aiken"), "sample.aiken", "aiken", "en")
    assert imported.count == 3 and imported.skipped == ()
    assert [summary(q) for q in questions(imported, "sample.aiken")] == [
        (
            "q-1",
            (),
            "What does ZeRO stage 2 shard in addition to the optimizer states?",
            ["The gradients", "The parameters", "The activations"],
            0,
            [None, None, None],
            "The answer is: The gradients.",
        ),
        (
            "q-2",
            (),
            "How many bytes does one fp16 value take?",
            ["1", "2", "4", "8"],
            1,
            [None, None, None, None],
            "The answer is: 2.",
        ),
        (
            "q-3",
            (),
            "Which collective does a ring all-reduce consist of?",
            ["A reduce-scatter, then an all-gather", "A broadcast, then a reduce"],
            0,
            [None, None],
            "The answer is: A reduce-scatter, then an all-gather.",
        ),
    ]


KAHOOT_QUESTIONS = [
    (
        "q-1",
        (),
        "What does ZeRO stage 3 shard?",
        ["The parameters", "The activations", "The inputs"],
        0,
        [None, None, None],
        "Jawabannya: The parameters.",
    ),
    ("q-2", (), "Which is larger, fp32 or fp16?", ["fp16", "fp32"], 1, [None, None], None),
    (
        "q-3",
        (),
        'A question\nthat spans "two" lines',
        ["yes", "no", "maybe"],
        2,
        [None, None, None],
        "Jawabannya: maybe.",
    ),
]


@pytest.mark.parametrize("delimiter", [",", ";"])
def test_a_kahoot_csv_is_what_it_says(delimiter: str) -> None:
    text = read("kahoot.csv")
    if delimiter == ";":  # as a spreadsheet saves it where ',' is the decimal mark
        text = text.replace('"2,3"', '"2;3"').replace(",", ";")
        text = text.replace("larger; fp32", "larger, fp32")
        text = text.replace("answers; at least", "answers, at least")
    imported = convert(text, "kahoot.csv", "csv", "id")
    got = [summary(q) for q in questions(imported, "kahoot.csv")]
    expected = [(*q[:6], q[6] or "Jawabannya: fp32.") for q in KAHOOT_QUESTIONS]
    assert got == expected
    assert imported.skipped == (
        Problem("kahoot.csv", 10, "skipped: multiple right answers (2,3); a question has one")
        if delimiter == ","
        else Problem("kahoot.csv", 10, "skipped: multiple right answers (2;3); a question has one"),
    )


def messages(imported: Imported) -> list[tuple[str, int, str]]:
    return [(p.path, p.line, p.message) for p in imported.problems]


def test_a_broken_gift_file_names_each_line() -> None:
    imported = convert(read("broken.gift"), "broken.gift", "gift", "en")
    assert messages(imported) == [
        ("broken.gift", 4, "'{' is never closed by '}'"),
        ("broken.gift", 8, "no right answer: mark the right one with '='"),
        ("broken.gift", 10, "answer 2 has no text"),
        ("broken.gift", 12, "option 2 repeats another option's text"),
        ("broken.gift", 14, "the title's '::' has no closing '::'"),
    ]
    assert imported.count == 1  # the fine one, shown but not to be stored


def test_a_broken_aiken_file_names_each_line() -> None:
    imported = convert(read("broken.aiken"), "broken.aiken", "aiken", "en")
    assert messages(imported) == [
        ("broken.aiken", 4, "'ANSWER: C' names no option (they are A to B)"),
        ("broken.aiken", 6, "the question has no 'ANSWER: X' line after its options"),
        ("broken.aiken", 10, "the question has 1 options ('A)', 'B)' ...); it needs 2 to 5"),
    ]
    assert imported.count == 1


def test_a_broken_kahoot_csv_names_each_line() -> None:
    imported = convert(read("broken.csv"), "broken.csv", "csv", "en")
    assert messages(imported) == [
        ("broken.csv", 2, "no correct answer: give the right answer's number (1 to 4)"),
        ("broken.csv", 3, "correct answer 5 must be a number from 1 to 4"),
        ("broken.csv", 4, "correct answer 'two' must be a number from 1 to 4"),
        ("broken.csv", 5, "correct answer 3 names an empty answer"),
        ("broken.csv", 6, "the question has 1 options; it needs 2 to 5"),
    ]
    assert imported.count == 1


def test_a_csv_without_the_header_row_is_a_problem() -> None:
    imported = convert("What?,yes,no,1\n", "plain.csv", "csv", "en")
    assert [p.line for p in imported.problems] == [0]
    assert "no header row" in imported.problems[0].message


def test_the_limits_are_problems_at_the_source_line() -> None:
    long_prompt, long_option, long_why = "p" * 401, "o" * 151, "w" * 301
    text = (
        f"{long_prompt} {{=a ~b}}\n\n"
        f"Fine prompt? {{\n=a\n~{long_option}\n~c#{long_why}\n}}\n\n"
        f"Why? {{=a ~b ####{'e' * 1001}}}"
    )
    imported = convert(text, "limits.gift", "gift", "en", name="Not A Name")
    assert messages(imported) == [
        ("limits.gift", 0, "name must use lowercase letters, digits and '-' (at most 40)"),
        ("limits.gift", 1, "the question is 401 characters; the limit is 400"),
        ("limits.gift", 5, "option 2 is 151 characters; the limit is 150"),
        ("limits.gift", 6, "the feedback of option 3 is 301 characters; the limit is 300"),
        ("limits.gift", 9, "the general feedback is 1001 characters; the limit is 1000"),
    ]


def test_a_file_with_nothing_to_ask_is_a_problem() -> None:
    imported = convert("Essay? {}\n", "essay.gift", "gift", "en")
    assert messages(imported) == [
        ("essay.gift", 0, "the file holds no question a pack can hold (1 skipped)")
    ]
    assert imported.count == 0


def test_text_that_looks_like_yaml_comes_through_unchanged() -> None:
    prompt = "key: value\n- item\n# heading\n*bold* `code` &anchor !tag null"
    text = (
        "::yes:: key\\: value\\n- item\\n\\# heading\\n*bold* `code` &anchor !tag null {\n"
        "=true\n~'quoted'#- a: b\n~\"[x]\" & {{y}}\n}"
    ).replace("{{y}}", "\\{\\{y\\}\\}")
    [q] = questions(convert(text, "yaml.gift", "gift", "en"), "yaml.gift")
    assert q.prompt.en == prompt
    assert [o.en for o in q.options] == ["true", "'quoted'", '"[x]" & {{y}}']
    reason = q.reason(1)
    assert reason is not None and reason.en == "- a: b"


def test_source_problems_point_at_the_question_in_the_source() -> None:
    imported = convert(read("moodle.gift"), "moodle.gift", "gift", "en")
    yaml_lines = imported.yaml.split("\n")
    # Break the third question (source line 22) in the YAML: check_pack finds it at YAML lines.
    at = next(i for i, line in enumerate(yaml_lines) if "ring all-reduce sends" in line)
    yaml_lines[at] = "    prompt: ''"
    broken = replace(imported, yaml="\n".join(yaml_lines))
    with pytest.raises(BankError) as caught:
        check_pack(broken.yaml, "moodle.gift")
    assert caught.value.problems[0].line == at + 1
    assert source_problems(broken, caught.value.problems) == [
        Problem("moodle.gift", 22, "prompt is empty")
    ]
    outside = [Problem("moodle.gift", 1, "x"), Problem("moodle.gift", 0, "y")]
    assert [p.line for p in source_problems(imported, outside)] == [0, 0]


def test_guess_format() -> None:
    assert FORMATS == ("gift", "aiken", "csv")
    assert guess_format("quiz.GIFT", "") == "gift"
    assert guess_format("quiz.aiken", "") == "aiken"
    assert guess_format("kahoot.csv", "") == "csv"
    assert guess_format("a.txt", read("sample.aiken")) == "aiken"
    assert guess_format("a.txt", read("moodle.gift")) == "gift"
    assert guess_format("a.txt", "just some text") is None
    assert guess_format("quiz.yaml", read("moodle.gift")) is None
    assert guess_format("gift", "") is None
    with pytest.raises(ValueError):
        convert("", "x", "xml", "en")


# Property: questions written as GIFT by this writer come back as they were.

SPECIALS = "=~#{}:\\\n/%[->"
CHARS = st.one_of(st.sampled_from(SPECIALS), st.characters(codec="utf-8", exclude_characters="\r"))


def _readable(text: str) -> bool:
    """Texts GIFT can carry: trimmed, not empty, not starting like a weight or a format."""
    return bool(text) and text == text.strip() and not text.startswith(("%", "[", "//"))


TEXT = st.text(CHARS, min_size=1, max_size=30).map(str.strip).filter(_readable)


@dataclass(frozen=True)
class Written:
    title: str | None
    prompt: str
    options: list[str]
    right: int
    feedback: list[str | None]
    general: str | None
    one_line: bool


@st.composite
def written(draw: st.DrawFn) -> Written:
    count = draw(st.integers(2, 5))
    return Written(
        title=draw(st.none() | st.text(st.sampled_from("abXY 09-_:{}=#~\\"), max_size=20)),
        prompt=draw(TEXT),
        options=draw(st.lists(TEXT, min_size=count, max_size=count, unique_by=str.casefold)),
        right=draw(st.integers(0, count - 1)),
        feedback=draw(st.lists(st.none() | TEXT, min_size=count, max_size=count)),
        general=draw(st.none() | TEXT),
        one_line=draw(st.booleans()),
    )


def escape(text: str) -> str:
    """GIFT's escapes: a backslash before each special character, `\\n` for a line break."""
    return "".join("\\n" if c == "\n" else "\\" + c if c in "~=#{}:\\" else c for c in text)


def to_gift(q: Written) -> str:
    answers = [
        ("=" if i == q.right else "~") + escape(text) + (f"#{escape(fb)}" if fb else "")
        for i, (text, fb) in enumerate(zip(q.options, q.feedback, strict=True))
    ]
    if q.general is not None:
        answers.append("####" + escape(q.general))
    head = f"::{escape(q.title)}::" if q.title is not None else ""
    sep = " " if q.one_line else "\n\t"
    return f"{head}{escape(q.prompt)} {{{sep}{sep.join(answers)}{sep.strip() or ' '}}}"


def expected_ids(written: list[Written]) -> list[str]:
    used: list[str] = []
    for n, q in enumerate(written, start=1):
        base = re.sub(r"[^a-z0-9]+", "-", (q.title or "").lower()).strip("-")[:40].rstrip("-")
        base = base or f"q-{n}"
        qid, k = base, 1
        while qid in used:
            k += 1
            qid = base[: 40 - len(f"-{k}")].rstrip("-") + f"-{k}"
        used.append(qid)
    return used


@settings(max_examples=200, deadline=None)
@given(st.lists(written(), min_size=1, max_size=5))
def test_gift_written_then_converted_gives_the_same_questions(written: list[Written]) -> None:
    text = "// written by the test\n\n" + "\n\n".join(to_gift(q) for q in written) + "\n"
    imported = convert(text, "prop.gift", "gift", "en")
    assert imported.skipped == ()
    got = questions(imported, "prop.gift")
    assert [q.id for q in got] == expected_ids(written)
    for q, w in zip(got, written, strict=True):
        assert q.prompt.en == w.prompt
        assert [o.en for o in q.options] == w.options
        assert q.answer == w.right
        reasons = [r.en if (r := q.reason(i)) else None for i in range(len(q.options))]
        assert reasons == [None if i == w.right else fb for i, fb in enumerate(w.feedback)]
        right, right_feedback = w.options[w.right], w.feedback[w.right]
        sentence = "The answer is: " + right + ("" if right.endswith((".", "!", "?")) else ".")
        neutral = f"{sentence} {right_feedback}" if right_feedback else sentence
        assert q.explanation.en == (w.general or neutral)


def test_every_yaml_line_maps_to_its_question_even_when_texts_mimic_the_marks() -> None:
    import yaml

    tricky = "\\n  \\# source line 99\\n\\# source line 98\\n\\n x"
    text = f"First{tricky} {{=a{tricky} ~b}}\n\n\n// between\nSecond? {{\n=a\n~b#{tricky}\n}}\n"
    imported = convert(text, "marks.gift", "gift", "en")
    root = yaml.compose(imported.yaml)
    assert isinstance(root, yaml.MappingNode)
    items = next(v for k, v in root.value if k.value == "questions")
    assert isinstance(items, yaml.SequenceNode)
    for item, source in zip(items.value, [1, 5], strict=True):
        problems = [Problem("marks.gift", n, "m") for n in sorted(_lines(item))]
        assert len(problems) > 5
        assert {p.line for p in source_problems(imported, problems)} == {source}


def _lines(node: object) -> set[int]:
    """The YAML lines where this node and each node inside it start and end."""
    import yaml

    assert isinstance(node, yaml.Node)
    found = {node.start_mark.line + 1}
    if isinstance(node, yaml.ScalarNode):
        return found | {node.end_mark.line + 1}
    for child in node.value:
        for part in child if isinstance(child, tuple) else (child,):
            found |= _lines(part)
    return found


NOISE = st.text(st.one_of(st.sampled_from("=~#{}:\\\n\r\t ,;\"'ABC).ANSWER->%[]/$"), CHARS))


@settings(max_examples=200, deadline=None)
@given(NOISE, st.sampled_from(FORMATS))
def test_any_text_converts_without_error_and_a_clean_result_is_a_valid_pack(
    text: str, fmt: str
) -> None:
    imported = convert(text, "noise", fmt, "en")
    assert all(p.path == "noise" and p.line >= 0 for p in imported.problems + imported.skipped)
    if not imported.problems:
        assert len(check_pack(imported.yaml, "noise").bank.questions) == imported.count
