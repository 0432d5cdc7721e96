"""Load and validate question files, reporting every problem as `file:line: message`.

The YAML is composed into nodes (not loaded into dicts) so each problem can name its line. Hostile
input (too large, not UTF-8, nested too deep, aliases) ends in a problem too, never an exception.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import BinaryIO

import yaml

from bot.bank import limits
from bot.bank.bank import ID_PATTERN, Bank, BankError, Problem, bundled_paths, expand_paths
from bot.bank.compose import AliasUsed, TooDeep, TooMany, compose
from bot.bank.template_check import TemplateChecker
from bot.bank.templates import Template
from bot.model import LANGS, Lang, Question, Text

QUESTION_KEYS = {"id", "prompt", "options", "answer", "explanation", "source", "tags", "difficulty"}
REQUIRED_KEYS = ("id", "prompt", "options", "explanation")
OPTION_KEYS = {"en", "id", "correct", "why"}
FILE_KEYS = {"questions", "templates", "language", "lang", "name"}
ONE_LANGUAGE_OPTION_KEYS = {"text", "correct", "why"}
REQUIRE_REASONS = True  # every bundled wrong option (and template mistake) says why it is wrong


def load_bank(paths: Iterable[str | Path] | None = None, *, stdin: BinaryIO | None = None) -> Bank:
    """Load every file; raise BankError listing all problems if any file is invalid. Given
    `stdin`, the path `-` is read from it (`zeroquiz validate -`) and named `<stdin>`."""
    problems: list[Problem] = []
    files = bundled_paths() if paths is None else expand_paths(paths, problems)
    sources: list[tuple[str, BinaryIO | None]] = []
    for path in files:
        source = stdin if stdin is not None and str(path) == "-" else None
        sources.append(("<stdin>" if source is not None else str(path), source))
    return check_files(sources, problems)


def check_files(sources: Sequence[tuple[str, BinaryIO | None]], problems: list[Problem]) -> Bank:
    """The bank of these files, each named as given and read from its stream (None: opened by
    its name); BankError with `problems` and every problem found in them."""
    questions: list[Question] = []
    templates: list[Template] = []
    seen: dict[str, str] = {}
    if not sources and not problems:
        raise BankError([Problem("<bank>", 0, "no question files found")])
    bundled = _bundled_names()
    for name, source in sources:
        strict = REQUIRE_REASONS and _resolved(name) in bundled
        checker = FileChecker(name, problems, seen, source, strict=strict)
        for found in checker.check():
            if isinstance(found, Template):
                templates.append(found)
            else:
                questions.append(found)
    if problems:
        raise BankError(problems)
    if not questions and not templates:
        raise BankError([Problem("<bank>", 0, "the bank holds no questions")])
    return Bank(questions, templates)


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def _resolved(name: str) -> str:
    try:
        return str(Path(name).resolve())
    except (OSError, RuntimeError):
        return name


def _bundled_names() -> set[str]:
    """The shipped files, resolved: they must give a reason for every wrong option (a team's
    own files and packs may leave them out)."""
    return {_resolved(str(p)) for p in bundled_paths()}


def _quoted(text: str, limit: int = limits.MAX_ID) -> str:
    """The file's own text inside a message, kept to one short line: a problem is one line."""
    short = text if len(text) <= limit else text[:limit] + "…"
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in short)


def _field(node: yaml.Node, key: str) -> yaml.Node | None:
    """One field of a mapping node (the mapping's own check reports unknown and repeated ones)."""
    if not isinstance(node, yaml.MappingNode):
        return None
    found = (v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == key)
    return next(found, None)


class FileChecker:
    """Walks one file's node tree; appends problems and yields the questions that are valid."""

    def __init__(
        self,
        path: str,
        problems: list[Problem],
        seen_ids: dict[str, str],
        source: BinaryIO | None = None,
        *,
        strict: bool = False,
    ) -> None:
        self.path = path
        self.strict = strict  # a bundled file: every wrong option (and distractor) needs its why
        self.source = source  # already open (stdin): read from it instead of opening `path`
        self.problems = problems
        self.seen_ids = seen_ids  # id -> "file:line" across every file of the bank
        # A file may be written in one language (`language: en` at the top): then each text is
        # given once, as plain text, and shown in every channel whatever its language.
        self.language: Lang | None = None
        self.name: str | None = None  # a pack's `name:`, if the file gives one

    def report(self, node: yaml.Node | None, message: str) -> None:
        self.report_line(_line(node) if node is not None else 1, message)

    def report_line(self, line: int, message: str) -> None:
        self.problems.append(Problem(self.path, line, message))

    def read(self) -> str | None:
        """The file's text, or None after reporting why it cannot be checked."""
        try:
            if self.source is not None:
                data = self.source.read(limits.MAX_FILE_BYTES + 1)
            else:
                with open(self.path, "rb") as fh:
                    data = fh.read(limits.MAX_FILE_BYTES + 1)
        except OSError as exc:
            self.report_line(0, f"cannot read file: {exc.strerror or exc}")
            return None
        if len(data) > limits.MAX_FILE_BYTES:
            self.report_line(0, f"file is larger than the limit of {limits.MAX_FILE_BYTES} bytes")
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.report_line(data.count(b"\n", 0, exc.start) + 1, "file is not UTF-8 text")
            return None

    def check(self) -> list[Question | Template]:
        text = self.read()
        if text is None:
            return []
        try:
            root = compose(text)
        except TooDeep as exc:
            self.report_line(
                exc.line,
                f"nested more than {limits.MAX_DEPTH} lists and mappings deep; "
                f"a question file needs {limits.NEEDED_DEPTH}",
            )
            return []
        except TooMany as exc:
            self.report_line(
                exc.line, f"more than {limits.MAX_VALUES} values in one file; split it into several"
            )
            return []
        except AliasUsed as exc:
            self.report_line(
                exc.line, f"alias '*{exc.name}' is not supported in question files; write it out"
            )
            return []
        except yaml.reader.ReaderError as exc:
            line = text.count("\n", 0, int(exc.position)) + 1
            self.report_line(line, f"character #x{int(exc.character):04x} is not allowed in YAML")
            return []
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line = int(mark.line) + 1 if mark is not None else 1
            self.report_line(line, f"YAML syntax error: {exc.problem or exc.context}")
            return []
        except yaml.YAMLError as exc:
            self.report_line(1, f"YAML error: {' '.join(str(exc).split())}")
            return []
        if root is None:
            self.report_line(1, "file is empty; expected a mapping with a 'questions' list")
            return []
        top = self.mapping(root, FILE_KEYS, "file")
        if top is None:
            return []
        if not self._header(top):
            return []
        if "questions" not in top and "templates" not in top:
            self.report(root, "missing field 'questions'")
            return []
        out: list[Question | Template] = []
        for key, one in (("questions", self._question), ("templates", self._template)):
            items = top.get(key)
            if items is None:
                continue
            if not isinstance(items, yaml.SequenceNode):
                self.report(items, f"'{key}' must be a list")
                continue
            for item in items.value:
                found = one(item)
                if found is not None:
                    out.append(found)
        return out

    def _header(self, top: dict[str, yaml.Node]) -> bool:
        """The file's `language:` (or `lang:`) and `name:`; False when they are wrong."""
        if "language" in top and "lang" in top:
            self.report(top["lang"], "give 'language' or 'lang', not both")
            return False
        node = top.get("language", top.get("lang"))
        if node is not None:
            code = node.value if isinstance(node, yaml.ScalarNode) else None
            if code not in LANGS:
                self.report(node, f"language must be one of {', '.join(LANGS)}")
                return False
            self.language = next(lang for lang in LANGS if lang == code)
        if "name" in top:
            name = self.scalar(top["name"], "name", limits.MAX_ID)
            if name is not None and not ID_PATTERN.match(name):
                self.report(top["name"], "name must use lowercase letters, digits and '-'")
                return False
            self.name = name
        return True

    def _template(self, node: yaml.Node) -> Template | None:
        return TemplateChecker(self).check(node)

    def mapping(
        self, node: yaml.Node, allowed: set[str] | None, what: str
    ) -> dict[str, yaml.Node] | None:
        """Its fields by name; None allows any plain name (the params of a template)."""
        if not isinstance(node, yaml.MappingNode):
            self.report(node, f"{what} must be a mapping")
            return None
        result: dict[str, yaml.Node] = {}
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, str) or (allowed is not None and key not in allowed):
                self.report(key_node, f"unknown field '{_quoted(str(key))}' in {what}")
                continue
            if key in result:
                self.report(key_node, f"field '{key}' appears twice in {what}")
                continue
            result[key] = value_node
        return result

    def scalar(self, node: yaml.Node, what: str, max_len: int) -> str | None:
        if not isinstance(node, yaml.ScalarNode) or node.tag == "tag:yaml.org,2002:null":
            self.report(node, f"{what} must be text")
            return None
        text = str(node.value).strip()
        if not text:
            self.report(node, f"{what} is empty")
            return None
        if len(text) > max_len:
            self.report(node, f"{what} is {len(text)} characters; the limit is {max_len}")
            return None
        return text

    def text(
        self, node: yaml.Node, what: str, max_len: int, extra: set[str] | None = None
    ) -> Text | None:
        if self.language is not None:
            return self.one_text(node, what, max_len)
        if extra is None:
            extra = set()
        fields = self.mapping(node, set(LANGS) | extra, what)
        if fields is None:
            return None
        values: dict[str, str] = {}
        ok = True
        for lang in LANGS:
            if lang not in fields:
                self.report(node, f"{what} is missing the '{lang}' text")
                ok = False
                continue
            value = self.scalar(fields[lang], f"{what} ({lang})", max_len)
            if value is None:
                ok = False
            else:
                values[lang] = value
        return Text(en=values["en"], id=values["id"]) if ok else None

    def one_text(self, node: yaml.Node, what: str, max_len: int) -> Text | None:
        """A one-language file's text: plain text, the same in every channel."""
        if isinstance(node, yaml.MappingNode):
            self.report(node, f"{what} must be plain text: this file is in '{self.language}' only")
            return None
        value = self.scalar(node, what, max_len)
        return Text(en=value, id=value) if value is not None else None

    def option_text(self, node: yaml.Node, what: str) -> Text | None:
        """An option: `{en:, id:, correct:, why:}`, or in a one-language file
        `{text:, correct:, why:}` or plain text (not the correct one)."""
        if self.language is None:
            return self.text(node, what, limits.MAX_OPTION, extra={"correct", "why"})
        if not isinstance(node, yaml.MappingNode):
            return self.one_text(node, what, limits.MAX_OPTION)
        if any(isinstance(k, yaml.ScalarNode) and k.value in LANGS for k, _ in node.value):
            self.report(
                node,
                f"{what} must be plain text or 'text:' with 'correct:': "
                f"this file is in '{self.language}' only",
            )
            return None
        fields = self.mapping(node, ONE_LANGUAGE_OPTION_KEYS, what)
        if fields is None:
            return None
        if "text" not in fields:
            self.report(node, f"{what} is missing field 'text'")
            return None
        return self.one_text(fields["text"], what, limits.MAX_OPTION)

    def reason(self, node: yaml.Node, what: str, correct: bool) -> Text | None:
        """An option's `why:`: required on every wrong option of a bundled file, never on the
        key (its reason is the explanation)."""
        why = _field(node, "why")
        if why is None:
            if self.strict and not correct:
                self.report(
                    node,
                    f"{what} is wrong but gives no 'why' (what a learner who picks it is told)",
                )
            return None
        if correct:
            self.report(why, f"{what} is the correct one: its reason is the explanation, not 'why'")
            return None
        given = [k.value for k, _ in why.value] if isinstance(why, yaml.MappingNode) else []
        if not self.strict and self.language is None and len(given) == 1 and given[0] in LANGS:
            # A team's bilingual pack may give a reason in one language: shown in both.
            value = self.scalar(why.value[0][1], f"{what} why ({given[0]})", limits.MAX_WHY)
            return Text(en=value, id=value) if value is not None else None
        return self.text(why, f"{what} why", limits.MAX_WHY)

    def _question(self, node: yaml.Node) -> Question | None:
        fields = self.mapping(node, QUESTION_KEYS, "question")
        if fields is None:
            return None
        n_before = len(self.problems)
        for key in REQUIRED_KEYS:
            if key not in fields:
                self.report(node, f"question is missing field '{key}'")
        if "answer" in fields:
            self.report(
                fields["answer"], "mark the correct option with 'correct: true' instead of 'answer'"
            )
        qid = self.check_id(fields["id"], limits.MAX_ID) if "id" in fields else None
        label = f"question '{_quoted(qid)}'" if qid else "question"
        prompt = (
            self.text(fields["prompt"], "prompt", limits.MAX_PROMPT) if "prompt" in fields else None
        )
        explanation = (
            self.text(fields["explanation"], "explanation", limits.MAX_EXPLANATION)
            if "explanation" in fields
            else None
        )
        options, answer, reasons = (
            self._options(fields["options"], label) if "options" in fields else ((), -1, ())
        )
        source = (
            self.scalar(fields["source"], "source", limits.MAX_SOURCE)
            if "source" in fields
            else None
        )
        tags = self.tags(fields["tags"]) if "tags" in fields else ()
        difficulty = self.difficulty(fields["difficulty"]) if "difficulty" in fields else None
        if len(self.problems) > n_before or qid is None or prompt is None or explanation is None:
            return None
        return Question(
            id=qid,
            prompt=prompt,
            options=options,
            answer=answer,
            explanation=explanation,
            source=source,
            tags=tags,
            difficulty=difficulty,
            origin=f"{self.path}:{_line(node)}",
            reasons=reasons if any(r is not None for r in reasons) else (),
        )

    def check_id(self, node: yaml.Node, max_len: int) -> str | None:
        """A question's or template's id: well formed and unique across the bank."""
        qid = self.scalar(node, "id", max_len)
        if qid is not None and not ID_PATTERN.match(qid):
            self.report(node, f"id '{_quoted(qid)}' must use lowercase letters, digits and '-'")
        elif qid is not None and qid in self.seen_ids:
            self.report(node, f"duplicate id '{qid}' (first defined at {self.seen_ids[qid]})")
        elif qid is not None:
            self.seen_ids[qid] = f"{self.path}:{_line(node)}"
        return qid

    def _options(
        self, node: yaml.Node, label: str
    ) -> tuple[tuple[Text, ...], int, tuple[Text | None, ...]]:
        if not isinstance(node, yaml.SequenceNode):
            self.report(node, "options must be a list")
            return (), -1, ()
        count = len(node.value)
        if not limits.MIN_OPTIONS <= count <= limits.MAX_OPTIONS:
            self.report(
                node,
                f"{label} has {count} options; "
                f"it needs {limits.MIN_OPTIONS} to {limits.MAX_OPTIONS}",
            )
        texts: list[Text] = []
        reasons: list[Text | None] = []
        seen: dict[str, set[str]] = {lang: set() for lang in LANGS}  # casefolded, linear time
        correct: list[int] = []
        for i, opt in enumerate(node.value):
            text = self.option_text(opt, f"option {i + 1}")
            is_correct = False
            if isinstance(opt, yaml.MappingNode):
                for k, v in opt.value:
                    if k.value == "correct":
                        if v.value not in ("true", "false", "True", "False"):
                            self.report(v, "'correct' must be true or false")
                        elif v.value.lower() == "true":
                            correct.append(i)
                            is_correct = True
            reasons.append(self.reason(opt, f"option {i + 1}", is_correct))
            if text is not None:
                for lang in self.languages():
                    folded = text.get(lang).casefold()
                    if folded in seen[lang]:
                        self.report(opt, f"option {i + 1} repeats another option's {lang} text")
                    seen[lang].add(folded)
                texts.append(text)
        if len(correct) != 1:
            # Point at the second option marked correct, where the author most likely slipped.
            where = node.value[correct[1]] if len(correct) > 1 else node
            self.report(
                where, f"{label} has {len(correct)} options marked correct; exactly one must be"
            )
        answer = correct[0] if len(correct) == 1 else -1
        return tuple(texts), answer, tuple(reasons)

    def languages(self) -> tuple[Lang, ...]:
        """The languages the file's texts are written in (one, or every supported one)."""
        return (self.language,) if self.language is not None else LANGS

    def tags(self, node: yaml.Node) -> tuple[str, ...]:
        if not isinstance(node, yaml.SequenceNode):
            self.report(node, "tags must be a list")
            return ()
        tags = []
        for item in node.value:
            tag = self.scalar(item, "tag", 40)
            if tag is not None:
                tags.append(tag)
        return tuple(tags)

    def difficulty(self, node: yaml.Node) -> int | None:
        if isinstance(node, yaml.ScalarNode) and node.value in {
            str(d) for d in limits.DIFFICULTIES
        }:
            return int(node.value)
        self.report(node, f"difficulty must be one of {', '.join(map(str, limits.DIFFICULTIES))}")
        return None
