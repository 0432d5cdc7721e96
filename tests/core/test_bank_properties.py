"""Properties of the bank loader on any input: a bank, or problems that each name the file and a
line inside it, on one line; never an exception. Inputs: random YAML documents (question-shaped or
not), random text and bytes, deep nesting, and random mutations of the bundled question files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from hypothesis import event, given, settings
from hypothesis import strategies as st

from bot.bank import Bank, BankError, bundled_paths, limits, load_bank

QUESTION_LIKE_KEYS = [
    "questions",
    "id",
    "prompt",
    "options",
    "answer",
    "explanation",
    "source",
    "tags",
    "difficulty",
    "en",
    "correct",
    "<<",
]


def check_any(path: Path, data: bytes) -> Bank | None:
    """Load one file; whatever happens must be a bank or a list of well-formed problems."""
    path.write_bytes(data)
    # The most lines any reader could count: every kind of line break YAML knows ends one.
    lines = len(data.decode("utf-8", "replace").splitlines()) + 1
    try:
        bank = load_bank([path])
    except BankError as err:
        assert err.problems
        for p in err.problems:
            bank_level = p.path == "<bank>" and p.message == "the bank holds no questions"
            assert p.path == str(path) or bank_level, p
            assert 0 <= p.line <= lines, (p, lines)
            assert p.message.strip() and "\n" not in str(p) and "\r" not in str(p), p
        event("problem: " + " ".join(err.problems[0].message.split()[:3]))
        return None
    event("valid")
    assert len(bank) + len(bank.templates) > 0  # a file may hold only templates
    assert all(q.origin.startswith(f"{path}:") for q in bank.questions)
    assert all(t.origin.startswith(f"{path}:") for t in bank.templates)
    return bank


# Text a file can hold: Hypothesis's default alphabet includes lone surrogates, which no UTF-8
# file can (the loader's own handling of undecodable bytes is tested with bytes).
UTF8 = st.characters(codec="utf-8")
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10**12),
    st.floats(),
    st.text(UTF8, max_size=12),
    st.sampled_from(["true", "False", "2", "orig-01", "~", "", " ", "x" * 500]),
)
keys = st.one_of(st.sampled_from(QUESTION_LIKE_KEYS), st.text(UTF8, max_size=6))
structures = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=20,
)
texts = st.one_of(
    st.fixed_dictionaries({}, optional={"en": scalars, "id": scalars, "correct": scalars}),
    structures,
)
questions = st.fixed_dictionaries(
    {},
    optional={
        "id": st.one_of(st.sampled_from(["q-1", "q-2", "Bad id"]), scalars),
        "prompt": texts,
        "options": st.one_of(st.lists(texts, max_size=6), structures),
        "explanation": texts,
        "source": scalars,
        "tags": st.one_of(st.lists(scalars, max_size=3), scalars),
        "difficulty": st.one_of(st.sampled_from([1, 2, 3]), scalars),
        "answer": scalars,
        "colour": scalars,
    },
)
documents = st.one_of(
    structures,
    st.fixed_dictionaries({"questions": st.one_of(st.lists(questions, max_size=4), structures)}),
)


@st.composite
def dumped(draw: st.DrawFn, doc: st.SearchStrategy[Any]) -> bytes:
    """A document as YAML in a random style, the ways authors and tools write it."""
    text = yaml.safe_dump(
        draw(doc),
        default_flow_style=draw(st.sampled_from([False, True, None])),
        allow_unicode=draw(st.booleans()),
        sort_keys=draw(st.booleans()),
        width=draw(st.sampled_from([20, 80, 10**6])),
    )
    return text.encode("utf-8")


@settings(max_examples=200)
@given(data=dumped(documents))
def test_any_yaml_document_gives_a_bank_or_problems_with_lines(tmp_path: Path, data: bytes) -> None:
    check_any(tmp_path / "q.yaml", data)


yamlish = st.lists(
    st.sampled_from(
        [*"[]{}:,-?&*!|>'\"#%@`~ \t\n\r", "\ufeff", "\x00", "é", "\u2028", "---\n", "...\n"]
        + [f"{k}: " for k in QUESTION_LIKE_KEYS]
        + ["  ", "- ", "&a ", "*a", "!!str ", "<<: *a", "\n  - ", "{en: x, id: y}"]
    ),
    max_size=60,
).map("".join)


@settings(max_examples=200)
@given(
    data=st.one_of(
        yamlish.map(lambda s: s.encode("utf-8")),
        st.text(UTF8, max_size=200).map(lambda s: s.encode("utf-8")),
        st.binary(max_size=200),
    )
)
def test_any_text_or_bytes_give_a_bank_or_problems_with_lines(tmp_path: Path, data: bytes) -> None:
    check_any(tmp_path / "q.yaml", data)


@settings(max_examples=40)
@given(
    openers=st.lists(st.sampled_from(["[", "{a: ", "- ", "{? ", "[{en: "]), min_size=1, max_size=8),
    depth=st.integers(1, 3000),
    cut=st.booleans(),
)
def test_nesting_of_any_depth_gives_problems_not_a_crash(
    tmp_path: Path, openers: list[str], depth: int, cut: bool
) -> None:
    closers = {"[": "]", "{a: ": "}", "- ": "", "{? ": "}", "[{en: ": "}]"}
    chain = [openers[i % len(openers)] for i in range(depth)]
    body = "questions:\n  - id: x\n    prompt: " + "".join(chain) + "x"
    if not cut:
        body += "".join(closers[o] for o in reversed(chain))
    check_any(tmp_path / "q.yaml", body.encode("utf-8"))


def option_texts() -> st.SearchStrategy[str]:
    return st.text(
        st.characters(categories=("L", "N", "P", "Zs")),
        min_size=1,
        max_size=limits.MAX_OPTION,
    ).filter(lambda s: s.strip() == s)


@st.composite
def valid_questions(draw: st.DrawFn, index: int) -> dict[str, Any]:
    options = draw(
        st.lists(
            st.tuples(option_texts(), option_texts()),
            min_size=limits.MIN_OPTIONS,
            max_size=limits.MAX_OPTIONS,
            unique_by=(lambda o: o[0].casefold(), lambda o: o[1].casefold()),
        )
    )
    answer = draw(st.integers(0, len(options) - 1))
    return {
        "id": f"q-{index}",
        "prompt": {"en": draw(option_texts()), "id": draw(option_texts())},
        "options": [
            {"en": en, "id": id_, **({"correct": True} if i == answer else {})}
            for i, (en, id_) in enumerate(options)
        ],
        "explanation": {"en": draw(option_texts()), "id": draw(option_texts())},
    }


@settings(max_examples=40)
@given(data=st.data())
def test_valid_questions_in_any_yaml_style_load_back_as_written(
    tmp_path: Path, data: st.DataObject
) -> None:
    count = data.draw(st.integers(1, 3))
    written = [data.draw(valid_questions(i)) for i in range(count)]
    bank = check_any(tmp_path / "q.yaml", data.draw(dumped(st.just({"questions": written}))))
    assert bank is not None
    for q, w in zip(bank.questions, written, strict=True):
        assert (q.id, q.prompt.en, q.prompt.id) == (w["id"], w["prompt"]["en"], w["prompt"]["id"])
        assert [(o.en, o.id) for o in q.options] == [(o["en"], o["id"]) for o in w["options"]]
        assert w["options"][q.answer].get("correct") is True


BUNDLED = [p.read_text(encoding="utf-8") for p in bundled_paths()]
GARBAGE = st.one_of(
    st.text(UTF8, max_size=4),
    st.sampled_from(["\t", "\x00", ":", "- ", "[", "}", "&a", "*a", "'", '"', "#", "\ufeff", "\r"]),
)
NEW_VALUES = st.one_of(
    st.sampled_from(
        ["", "~", "[]", "{}", "true", "9", "'x'", "|", ">", "*a", "&a x", "[[[[", "{a"]
    ),
    st.text(st.characters(codec="utf-8", exclude_characters="\n\r"), max_size=10),
)


@st.composite
def mutated_bundled_file(draw: st.DrawFn) -> bytes:
    """A bundled question file after 1 to 4 of the slips an author, an editor or a bad merge
    makes: lines deleted, doubled, swapped or re-indented, a value changed, the file cut short,
    stray characters typed, bytes of another encoding pasted in."""
    text = draw(st.sampled_from(BUNDLED))
    bad_bytes_at: int | None = None
    for _ in range(draw(st.integers(1, 4))):
        lines = text.splitlines(keepends=True) or [""]
        i = draw(st.integers(0, len(lines) - 1))
        j = draw(st.integers(0, len(lines) - 1))
        kinds = ["delete", "dup", "swap", "value", "cut", "garbage", "indent", "bytes"]
        kind = draw(st.sampled_from(kinds))
        if kind == "delete":
            del lines[i]
        elif kind == "dup":
            lines.insert(i, lines[i])
        elif kind == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "value" and ": " in lines[i]:
            key = lines[i].split(": ", 1)[0]
            lines[i] = f"{key}: {draw(NEW_VALUES)}\n"
        elif kind == "indent":
            body = lines[i].lstrip(" ")
            lines[i] = draw(st.sampled_from(["", " ", "   ", "\t", "        "])) + body
        text = "".join(lines)
        if kind == "bytes":
            bad_bytes_at = draw(st.integers(0, len(text)))
        if kind in ("cut", "garbage"):
            at = draw(st.integers(0, len(text)))
            text = text[:at] if kind == "cut" else text[:at] + draw(GARBAGE) + text[at:]
    data = text.encode("utf-8")
    if bad_bytes_at is not None:  # Latin-1, or a multi-byte character torn apart
        at = min(bad_bytes_at, len(data))
        data = (
            data[:at] + draw(st.sampled_from([b"\xe9", b"\xff\xfe", b"\xc3", b"\x80"])) + data[at:]
        )
    return data


@settings(max_examples=100)
@given(data=mutated_bundled_file())
def test_mutated_bundled_files_give_a_bank_or_problems_with_lines(
    tmp_path: Path, data: bytes
) -> None:
    check_any(tmp_path / "q.yaml", data)
