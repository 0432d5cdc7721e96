"""The README and docs/ hold to the code a reader will run.

Every `zeroquiz …` command line quoted in README.md or docs/*.md (in code blocks and in inline
code) is parsed by the real argparse parser of adapters/cli.py, in-process so the suite stays
cheap: a subcommand or flag that doesn't exist fails here instead of in an operator's terminal.
Every exit code the docs quote is one the CLI returns (the README once said "exit code 2" in five
places where the code returns 78 or 75; 2 is argparse's usage error), and the exit-code table in
docs/operations.md lists exactly the codes the code can return. Links between the pages resolve.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import inspect
import io
import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from adapters import exitcodes
from adapters.cli import build_parser
from bot.bank import limits, load_bank
from bot.bank.templates import MAX_TEMPLATE_ID
from bot.commands import REGISTRY
from bot.topics import topics

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^[ \t]*```[^\n]*\n(.*?)^[ \t]*```", re.M | re.S)  # indented in lists too
INLINE = re.compile(r"`((?:[^`\n]|\n(?![ \t]*\n))+)`")  # may go on within its paragraph
# `zeroquiz` as a program (`.venv/bin/zeroquiz`, `/usr/local/bin/zeroquiz` too) followed by
# arguments; not the chat command `/zeroquiz`, a file name like `zeroquiz.sqlite3`, or Docker's
# image tag and container name (`-t zeroquiz .`, `--name zeroquiz`).
PROGRAM = re.compile(r"(?<![\w/.=-])(?<!-t )(?<!--name )(?:\S*/bin/)?zeroquiz(?=[ \t]+\S)")
# Where a command line ends: a pipe, a list, a redirection, a comment.
END = re.compile(r"\s+\|\s|\s*&&|;|\s+#|\s+>")
SUBST = re.compile(r"\$\([^)]*\)|<[^<>\s]+>")  # `$(date +%a)`, `<pid>`: one placeholder value
ALTERNATIVES = re.compile(r"([^\s|]+)(?:\|[^\s|]+)+")  # `en|id`: the first stands for all
BRACKETS = str.maketrans("[]", "  ")
PLACEHOLDER = re.compile(r"[A-Z][A-Z_]*|…|\.\.\.")  # PATH, N, FROM, TO, `…`
EXIT_MENTION = re.compile(r"\b(?:exit code|exit status|exits(?: with)?|exit)\s+(\d{1,3})\b")
USAGE_WORDS = ("usage", "argparse", "command line", "application id")
LINK = re.compile(r"\]\(([^)\s]+)\)")


@dataclass(frozen=True)
class Quoted:
    """One command line as the docs quote it, and where."""

    where: str
    line: str
    args: str


def code_texts(text: str) -> Iterator[str]:
    """The logical lines of every code block (`\\` continuations joined, comment lines left
    out), then inline code."""
    for block in FENCE.findall(text):
        lines = block.replace("\\\n", " ").splitlines()
        yield from (line for line in lines if not line.lstrip().startswith("#"))
    # In a table, `|` inside code is written `\\|`.
    spans = INLINE.findall(FENCE.sub("", text))
    yield from (" ".join(span.replace("\\|", "|").split()) for span in spans)


def quoted_in(name: str, text: str) -> list[Quoted]:
    found = []
    for line in code_texts(text):
        for match in PROGRAM.finditer(line):
            rest = line[match.end() :]
            if rest.count("'") % 2:  # the closing quote of `sh -c '… zeroquiz …'`
                rest = rest[: rest.rindex("'")]
            end = END.search(rest)
            found.append(Quoted(name, line.strip(), rest[: end.start()] if end else rest))
    return found


def all_quoted() -> list[Quoted]:
    return [q for doc in DOCS for q in quoted_in(doc.relative_to(ROOT).name, doc.read_text())]


def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("the zeroquiz parser has no subcommands")


def fill(tokens: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """Placeholders replaced by a value the option takes: a number for `--count N`, the first
    choice for a choice, any word for a path."""
    subs = subparsers(parser)
    sub = subs.get(tokens[0]) if tokens else None
    out: list[str] = []
    for token in tokens:
        if PLACEHOLDER.fullmatch(token):
            option = sub._option_string_actions.get(out[-1]) if sub and out else None
            if option is not None and option.type is int:
                token = "1"
            elif option is not None and option.choices:
                token = str(next(iter(option.choices)))
            else:
                token = "placeholder"
        out.append(token)
    return out


def words(args: str) -> list[str]:
    """The arguments as the shell would pass them: `[optional]` parts kept, `a|b` as `a`."""
    return shlex.split(ALTERNATIVES.sub(r"\1", SUBST.sub("X", args)).translate(BRACKETS))


def problem_with(args: str) -> str | None:
    """Why `zeroquiz <args>` is not a command line the CLI accepts, or None if it is."""
    parser = build_parser()
    try:
        tokens = fill(words(args), parser)
    except ValueError as exc:
        return f"cannot split it like a shell: {exc}"
    if not tokens:
        return "no arguments"
    if len(tokens) == 1 and not tokens[0].startswith("-"):
        # Prose names a subcommand (`zeroquiz copy` works the other way round too).
        return None if tokens[0] in subparsers(parser) else f"no subcommand {tokens[0]!r}"
    err, out = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            parser.parse_args(tokens)
    except SystemExit as exc:
        if exc.code not in (0, None):
            return err.getvalue().strip().splitlines()[-1]
    return None


def test_the_docs_quote_many_command_lines() -> None:
    """The extraction itself works: a broken pattern would make the next test pass vacuously."""
    quoted = all_quoted()
    assert len(quoted) >= 40, [q.line for q in quoted]
    assert {q.where for q in quoted} >= {"README.md", "operations.md", "questions.md"}


def test_every_quoted_command_line_parses_with_the_real_cli() -> None:
    wrong = []
    for q in all_quoted():
        problem = problem_with(q.args)
        if problem:
            wrong.append(f"{q.where}: `{q.line}`: {problem}")
    assert not wrong, "\n".join(wrong)


def test_every_subcommand_and_flag_is_shown_somewhere() -> None:
    """A reader can only use what the docs show: each subcommand and each of its flags."""
    used: dict[str, set[str]] = {}
    for q in all_quoted():
        tokens = words(q.args)
        if tokens:
            used.setdefault(tokens[0], set()).update(t.split("=")[0] for t in tokens[1:])
    missing = []
    for name, sub in subparsers(build_parser()).items():
        flags = {o for o in sub._option_string_actions if o.startswith("--") and o != "--help"}
        missing += [f"zeroquiz {name}"] if name not in used else []
        missing += [f"zeroquiz {name} {flag}" for flag in sorted(flags - used.get(name, set()))]
    assert "--version" in used, "`zeroquiz --version` is not shown"
    assert not missing, f"never quoted in README.md or docs/: {missing}"


@pytest.mark.parametrize(
    "line",
    [
        "zeroquiz serve --made-up-flag",
        "zeroquiz frobnicate --db PATH",
        "zeroquiz play --count N --host H",  # a serve flag given to play
        "zeroquiz copy FROM",  # a positional missing
        "zeroquiz --lang en play",  # a subcommand's flag before the subcommand
    ],
)
def test_a_made_up_command_line_is_caught(line: str) -> None:
    """The check can fail: what the CLI would refuse, it refuses."""
    quoted = quoted_in("made-up.md", f"Run `{line}` now.\n\n```sh\n{line}  # comment\n```\n")
    assert len(quoted) == 2
    assert all(problem_with(q.args) for q in quoted)


def test_placeholders_and_shell_around_a_command_line_are_understood() -> None:
    text = (
        "```sh\nprintf 'a\\nb\\n' | zeroquiz play --count 2 --lang en|id\n"
        "docker build -f deploy/Dockerfile -t zeroquiz .\n"
        "DISCORD_SHARD_COUNT=4 zeroquiz serve --questions … \\\n  --no-bundled   # two lines\n"
        "15 3 * * * zeroquiz backup --db DB /b/zq-$(date +\\%a).sqlite3\n```\n"
        "`/zeroquiz start 5`, `zeroquiz.sqlite3`, `zeroquiz play [--topic T] [--level L]`, "
        "`zeroquiz restore [--replace] BACKUP TARGET`, `zeroquiz copy`, `systemctl stop zeroquiz`"
    )
    quoted = quoted_in("example.md", text)
    assert [q.args.split()[0] for q in quoted] == [
        "play", "serve", "backup", "play", "restore", "copy",
    ]  # fmt: skip
    assert [problem_with(q.args) for q in quoted] == [None] * len(quoted)


def test_the_in_process_parser_is_the_installed_commands() -> None:
    """One real child process: the console script a reader runs offers the same subcommands."""
    script = Path(sys.executable).parent / "zeroquiz"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "adapters.cli"]
    result = subprocess.run([*command, "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    listed = re.search(r"\{([a-z,-]+)\}", result.stdout)
    assert listed, result.stdout
    assert set(listed[1].split(",")) == set(subparsers(build_parser()))


def returned_codes() -> set[int]:
    """Every exit status the CLI's commands return: the integers and exitcodes' constants in
    the return statements of the functions typed `-> int` that produce them."""
    constants = {
        name: value
        for name, value in vars(exitcodes).items()
        if name.isupper() and isinstance(value, int)
    }
    codes = set(constants.values())
    sources = [ROOT / "adapters" / name for name in ("cli.py", "serve.py", "copycmd.py")]
    sources += [ROOT / "adapters" / "backupcmd.py", ROOT / "adapters" / "exitcodes.py"]
    sources += sorted((ROOT / "adapters").glob("*/invite.py"))
    sources += sorted((ROOT / "adapters" / "console").glob("*.py"))
    for source in sources:
        for fn in ast.walk(ast.parse(source.read_text())):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) or fn.returns is None:
                continue
            if ast.unparse(fn.returns) not in ("int", "Store | int"):
                continue
            for ret in ast.walk(fn):
                if isinstance(ret, ast.Return) and ret.value is not None:
                    for node in ast.walk(ret.value):
                        if isinstance(node, ast.Constant) and type(node.value) is int:
                            codes.add(node.value)
                        elif isinstance(node, ast.Name) and node.id in constants:
                            codes.add(constants[node.id])
    return codes


def test_the_code_returns_the_codes_this_test_knows_of() -> None:
    """The scan finds what exitcodes.py names and what cli.py returns by hand (1 and 130)."""
    assert returned_codes() >= {0, 1, 2, 75, 78, 130}


def exit_table() -> dict[int, str]:
    text = (ROOT / "docs" / "operations.md").read_text()
    section = text.split("## Exit codes", 1)[1].split("\n#", 1)[0]
    rows = [line.split("|")[1:-1] for line in section.splitlines() if line.startswith("| ")]
    return {int(cells[0]): cells[1].strip() for cells in rows if cells[0].strip().isdigit()}


def test_the_exit_code_table_lists_exactly_the_codes_the_cli_returns() -> None:
    table = exit_table()
    assert set(table) == returned_codes()
    assert "usage" in table[exitcodes.EX_USAGE]
    assert "configuration" in table[exitcodes.EX_CONFIG]
    assert "transient" in table[exitcodes.EX_TEMPFAIL]


def exit_mentions(text: str) -> Iterator[tuple[int, str]]:
    """Each `exit code N` / `exits N` with the sentence around it."""
    flat = re.sub(r"\s+", " ", text)
    for match in EXIT_MENTION.finditer(flat):
        start = max(flat.rfind(". ", 0, match.start()), flat.rfind("| ", 0, match.start()))
        end = flat.find(". ", match.end())
        yield int(match[1]), flat[start + 1 : end if end >= 0 else len(flat)].strip()


def wrong_exit_mentions(text: str, codes: set[int]) -> list[str]:
    wrong = []
    for code, sentence in exit_mentions(text):
        if code not in codes:
            wrong.append(f"{code} is no exit code of the CLI: {sentence}")
        elif code == exitcodes.EX_USAGE and not any(w in sentence.lower() for w in USAGE_WORDS):
            wrong.append(f"2 is only for a wrong command line: {sentence}")
    return wrong


def test_every_exit_code_the_docs_quote_is_the_codes() -> None:
    codes = returned_codes()
    wrong = [f"{d.name}: {w}" for d in DOCS for w in wrong_exit_mentions(d.read_text(), codes)]
    assert not wrong, "\n".join(wrong)
    mentioned = {code for d in DOCS for code, _ in exit_mentions(d.read_text())}
    assert {exitcodes.EX_CONFIG, exitcodes.EX_TEMPFAIL} <= mentioned


def test_a_wrong_exit_code_in_the_docs_is_caught() -> None:
    codes = returned_codes()
    assert wrong_exit_mentions("A bad token stops it with exit code 2. Fix it.", codes)
    assert wrong_exit_mentions("It then exits 3.", codes)
    assert not wrong_exit_mentions("A bad token stops it with exit code 78. Fix it.", codes)
    assert not wrong_exit_mentions("A wrong command line (argparse usage) exits 2.", codes)


def test_every_chat_command_the_docs_quote_exists_and_the_readme_lists_them_all() -> None:
    """`/zeroquiz <word>` is the registry's, on every surface: the same names in the docs."""
    names = {spec.name for spec in REGISTRY}
    chat = re.compile(r"^/zeroquiz (\w+)")
    wrong = [
        f"{doc.name}: /zeroquiz {word}"
        for doc in DOCS
        for span in INLINE.findall(FENCE.sub("", doc.read_text()))
        for word in chat.findall(span)
        if word not in names
    ]
    assert not wrong, f"no such chat command: {wrong}"
    listed = {w for s in INLINE.findall((ROOT / "README.md").read_text()) for w in chat.findall(s)}
    assert names <= listed, f"not in the README: {sorted(names - listed)}"


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_link_between_the_pages_resolves() -> None:
    wrong = []
    for doc in DOCS:
        for target in LINK.findall(FENCE.sub("", doc.read_text())):
            if re.match(r"[a-z]+:", target):
                continue  # https://, mailto:
            path, _, fragment = target.partition("#")
            file = (doc.parent / path).resolve() if path else doc
            if not file.exists():
                wrong.append(f"{doc.name}: {target}: no such file")
                continue
            if fragment and file.suffix == ".md":
                headings = re.findall(r"^#+ (.+)$", FENCE.sub("", file.read_text()), re.M)
                if fragment not in {anchor(h) for h in headings}:
                    wrong.append(f"{doc.name}: {target}: no such heading")
    assert not wrong, "\n".join(wrong)


def test_the_readme_fits_on_a_screen_and_links_every_page() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 300
    linked = {Path(t.partition("#")[0]).name for t in LINK.findall(readme)}
    pages = {p.name for p in DOCS[1:]}
    assert pages and pages <= linked, f"not linked from the README: {sorted(pages - linked)}"


def test_every_repository_path_the_docs_quote_exists() -> None:
    """`bot/delivery.py`, `serve/test_restart_loop.py`, `deploy/compose.yaml`: still there."""
    wrong = []
    for doc in DOCS:
        for span in INLINE.findall(FENCE.sub("", doc.read_text())):
            if not re.fullmatch(r"\w[\w./-]*/[\w.-]+\.(py|yaml|yml|md|toml|json)", span):
                continue
            if not any((ROOT / base / span).exists() for base in ("", "tests", "bot", "adapters")):
                wrong.append(f"{doc.name}: {span}")
    assert not wrong, f"no such file: {wrong}"


def variables(text: str) -> set[str]:
    return set(re.findall(r"\b((?:ZEROQUIZ|SLACK|DISCORD)_[A-Z_]*[A-Z])\b", text))


NAMED = re.compile(r"[\"']((?:ZEROQUIZ|SLACK|DISCORD)_[A-Z_]+)[\"']")  # a variable's name in code


def test_every_environment_variable_the_code_reads_is_documented_and_no_other() -> None:
    read = set()
    for source in [*(ROOT / "adapters").rglob("*.py"), *(ROOT / "bot").rglob("*.py")]:
        read |= set(NAMED.findall(source.read_text()))
    table = variables((ROOT / "docs" / "operations.md").read_text().split("## The database")[0])
    assert read <= table, f"not in operations.md's table: {sorted(read - table)}"
    # slack-bolt reads SLACK_REDIRECT_URI itself, for the OAuth flow ZeroQuiz hands it.
    from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings

    by_libraries = {"SLACK_REDIRECT_URI"}
    assert all(name in inspect.getsource(AsyncOAuthSettings) for name in by_libraries)
    documented = {v for doc in DOCS for v in variables(doc.read_text())}
    assert documented - read <= by_libraries, f"read by nothing: {sorted(documented - read)}"


def test_the_documented_question_limits_are_the_validators() -> None:
    text = " ".join((ROOT / "docs" / "questions.md").read_text().split())
    stated = re.search(
        r"prompt (\d+) characters, option (\d+), explanation (\d+), source (\d+)", text
    )
    assert stated, "the limits sentence is gone from docs/questions.md"
    assert tuple(map(int, stated.groups())) == (
        limits.MAX_PROMPT, limits.MAX_OPTION, limits.MAX_EXPLANATION, limits.MAX_SOURCE,
    )  # fmt: skip
    assert f"[a-z0-9-], ≤ {limits.MAX_ID} chars" in text
    assert f"{limits.MIN_OPTIONS} to {limits.MAX_OPTIONS} options" in text
    assert f"≤ {MAX_TEMPLATE_ID} chars" in text
    assert f"nested at most {limits.MAX_DEPTH} lists" in text
    size = limits.MAX_FILE_BYTES // 1_000_000
    assert f"at most {size} MB and {limits.MAX_VALUES:,} values" in text


def test_the_bundled_bank_is_described_as_it_ships() -> None:
    bank = load_bank()
    text = " ".join((ROOT / "docs" / "questions.md").read_text().split())
    stated = re.search(r"ships (\d+) hand-written questions .*? and (\d+) generated", text)
    assert stated and tuple(map(int, stated.groups())) == (len(bank.questions), len(bank.templates))
    tags = re.search(r"Topic tags, [^:]*: (.*?); difficulty", text)
    assert tags and set(re.findall(r"`([a-z0-9-]+)`", tags[1])) == set(topics(bank))


def test_every_dependency_is_in_the_table_with_its_reason() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [*project["dependencies"], *project["optional-dependencies"]["test"]]
    names = {re.split(r"[<>=!~\[ ]", spec, maxsplit=1)[0].lower() for spec in wanted}
    text = (ROOT / "docs" / "dependencies.md").read_text().lower()
    rows = [line.split("|")[1] for line in text.splitlines() if line.startswith("| ")]
    listed = {n.strip() for row in rows for n in row.replace("test extras:", "").split(",")}
    assert names <= listed, f"not in docs/dependencies.md: {sorted(names - listed)}"
