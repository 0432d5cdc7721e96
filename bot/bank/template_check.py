"""Check the `templates:` of a bank file as strictly as its questions, each problem on its line.

Beyond the shape (params, formulas, placeholders) a sample of seeds is drawn, so a division by
zero, mistakes that coincide with the answer once rounded, or a text over the limits with the
longest numbers are found by `zeroquiz validate`, not by a person in a channel.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator
from typing import TYPE_CHECKING

import yaml

from bot.bank import limits, memchart
from bot.bank.formula import Formula, FormulaError, parse
from bot.bank.numbers import UNITS, parse_tolerance
from bot.bank.templates import (
    ANSWER,
    CASE,
    MAX_TEMPLATE_ID,
    OPTIONS,
    Case,
    Distractor,
    Template,
    placeholders,
)
from bot.model import LANGS, Text

if TYPE_CHECKING:
    from bot.bank.loader import FileChecker

TEMPLATE_KEYS = {
    "id", "prompt", "explanation", "params", "values", "answer", "distractors", "unit", "source",
    "tags", "difficulty", "cases", "chart", "tolerance",
}  # fmt: skip
REQUIRED_KEYS = ("id", "prompt", "explanation", "params", "answer", "distractors")
RANGE_KEYS = {"from", "to", "step"}
DISTRACTOR_KEYS = {"formula", "mistake", "why"}  # why: what a learner who picks it is told
CASE_KEYS = {"label", "values"}
RESERVED = (ANSWER, CASE)  # placeholders the texts get besides the names
MAX_CASES = 100
MAX_CASE_LABEL = 100
MAX_PARAM_VALUES = 1000
MAX_DISTRACTORS = 8
SAMPLE_SEEDS = 16  # seeds drawn for the texts' lengths (the tests draw 1,000), and more until
MAX_SEEDS = 1024  # every case was drawn once (a case's label may be the longest text)
GRID_SAMPLE = 1024  # combinations of params and case checked for the numbers; all up to this size


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def _grid(template: Template) -> Iterator[tuple[dict[str, float], Case | None]]:
    """Every combination of the params' values with every case, or GRID_SAMPLE of them drawn with
    a fixed seed, each case in turn."""
    names = [name for name, _ in template.params]
    allowed = [values for _, values in template.params]
    cases: tuple[Case | None, ...] = template.cases or (None,)
    size = math.prod(len(values) for values in allowed) * len(cases)
    if size <= GRID_SAMPLE:
        for case in cases:
            for combo in itertools.product(*allowed):
                yield dict(zip(names, combo, strict=True)), case
        return
    rng = random.Random(0)
    for i in range(GRID_SAMPLE):
        params = {name: values[rng.randrange(len(values))] for name, values in template.params}
        yield params, cases[i % len(cases)]


def _text_seeds(template: Template) -> Iterator[int]:
    """SAMPLE_SEEDS seeds, then more until each case has been drawn (or MAX_SEEDS in all)."""
    unseen = set(range(len(template.cases)))
    for seed in range(MAX_SEEDS):
        if seed >= SAMPLE_SEEDS and not unseen:
            return
        case = template.drawn(seed)[1]
        unseen.discard(template.cases.index(case) if case else -1)
        yield seed


class TemplateChecker:
    def __init__(self, files: FileChecker) -> None:
        self.files = files
        self.names_unknown = False  # a broken `cases:` declares names no one can tell

    def report(self, node: yaml.Node, message: str) -> None:
        self.files.report(node, message)

    def check(self, node: yaml.Node) -> Template | None:
        f = self.files
        fields = f.mapping(node, TEMPLATE_KEYS, "template")
        if fields is None:
            return None
        n_before = len(f.problems)
        for key in REQUIRED_KEYS:
            if key not in fields:
                self.report(node, f"template is missing field '{key}'")
        tid = f.check_id(fields["id"], MAX_TEMPLATE_ID) if "id" in fields else None
        keys = {k.value: k for k, _ in node.value} if isinstance(node, yaml.MappingNode) else {}
        # A broken param or value is still declared: its formulas report nothing more.
        names: set[str] = set()
        params = self.params(fields["params"], names) if "params" in fields else {}
        cases = self.cases(fields["cases"], names) if "cases" in fields else ()
        values = self.values(fields["values"], names) if "values" in fields else {}
        answer = self.formula(fields["answer"], names) if "answer" in fields else None
        has_cases = "cases" in fields
        distractors = (
            self.distractors(fields["distractors"], names, keys["distractors"], has_cases)
            if "distractors" in fields
            else ()
        )
        unit = f.scalar(fields["unit"], "unit", 10) if "unit" in fields else "GB"
        if unit is not None and unit not in UNITS:
            self.report(fields["unit"], f"unit must be one of {', '.join(UNITS)}")
        prompt = self.text(fields, "prompt", limits.MAX_PROMPT, names, has_cases)
        explanation = self.text(
            fields, "explanation", limits.MAX_EXPLANATION, names | {ANSWER}, has_cases
        )
        source = (
            f.scalar(fields["source"], "source", limits.MAX_SOURCE) if "source" in fields else None
        )
        tags = f.tags(fields["tags"]) if "tags" in fields else ()
        difficulty = f.difficulty(fields["difficulty"]) if "difficulty" in fields else None
        chart = self.chart(fields["chart"], params) if "chart" in fields else None
        tolerance = None
        if "tolerance" in fields:  # a typed answer's: "0.5" (in the unit) or "2%" (of the answer)
            given = f.scalar(fields["tolerance"], "tolerance", 20)
            tolerance = parse_tolerance(given) if given else None
            if given and tolerance is None:
                self.report(fields["tolerance"], "tolerance must be above 0, or a % below 100")
        if len(f.problems) > n_before:
            return None
        assert tid and prompt and explanation and answer and unit
        template = Template(
            id=tid,
            prompt=prompt,
            explanation=explanation,
            params=tuple(params.items()),
            values=tuple(values.items()),
            answer=answer,
            distractors=distractors,
            unit=unit,
            source=source,
            tags=tags,
            difficulty=difficulty,
            origin=f"{f.path}:{_line(node)}",
            cases=cases,
            chart=chart,
            tolerance=tolerance,
        )
        return template if self.sample(template, keys) else None

    def chart(self, node: yaml.Node, params: dict[str, tuple[float, ...]]) -> int | None:
        """The stage a memory template asks about, drawn beside the others from its params psi
        (billions) and nd (GPUs); the sample then checks that stage's bar is the answer."""
        stage = self.files.scalar(node, "chart", 10)
        if stage is None:
            return None
        if stage not in memchart.STAGES:
            self.report(node, f"chart must be one of {', '.join(memchart.STAGES)}")
            return None
        missing = [name for name in memchart.PARAMS if name not in params]
        if missing:
            self.report(node, f"chart needs the params {' and '.join(memchart.PARAMS)}")
            return None
        return memchart.STAGES.index(stage)

    def sample(self, template: Template, keys: dict[str, yaml.Node]) -> bool:
        """Every combination of params (or a fixed sample of a large grid) for the numbers, a
        sample of seeds for the texts; each kind of problem reported once, at its field."""
        reported: set[str] = set()

        def report(field: str, message: str) -> None:
            if field not in reported:
                reported.add(field)
                self.report(keys[field], f"template '{template.id}': {message}")

        for params, case in _grid(template):
            found = template.check_numbers(params, case)
            if found is not None:
                report(*found)
        if reported:
            return False
        for seed in _text_seeds(template):
            for field, message in template.check_texts(seed):
                report(field, message)
        return not reported

    def params(self, node: yaml.Node, declared: set[str]) -> dict[str, tuple[float, ...]]:
        fields = self.files.mapping(node, None, "params")
        out: dict[str, tuple[float, ...]] = {}
        for name, value in (fields or {}).items():
            if not name.isidentifier() or name in RESERVED:
                self.report(
                    value, f"param name '{name}' must be a plain name other than 'answer' or 'case'"
                )
                continue
            declared.add(name)
            allowed = self.allowed(value, name)
            if allowed:
                out[name] = allowed
        if fields is not None and not fields:
            self.report(node, "params is empty; a template needs at least one param")
        return out

    def allowed(self, node: yaml.Node, name: str) -> tuple[float, ...]:
        """A list of numbers, or {from, to, step} integers."""
        if isinstance(node, yaml.SequenceNode):
            numbers = [self.number(item, f"a value of param '{name}'") for item in node.value]
            if not node.value:
                self.report(node, f"param '{name}' has no values")
            if len(node.value) > MAX_PARAM_VALUES:
                self.report(node, f"param '{name}' has more than {MAX_PARAM_VALUES} values")
                return ()
            return tuple(n for n in numbers if n is not None) if None not in numbers else ()
        fields = self.files.mapping(node, RANGE_KEYS, f"param '{name}'")
        if fields is None:
            return ()
        if set(fields) != RANGE_KEYS:
            self.report(node, f"param '{name}' needs a list of values or from, to and step")
            return ()
        start, stop, step = (
            self.number(fields[k], k, integer=True) for k in ("from", "to", "step")
        )
        if start is None or stop is None or step is None:
            return ()
        if step <= 0 or stop < start:
            self.report(
                node, f"param '{name}' has no values (from {start:g} to {stop:g} step {step:g})"
            )
            return ()
        if (stop - start) // step + 1 > MAX_PARAM_VALUES:
            self.report(node, f"param '{name}' has more than {MAX_PARAM_VALUES} values")
            return ()
        return tuple(float(v) for v in range(int(start), int(stop) + 1, int(step)))

    def number(self, node: yaml.Node, what: str, integer: bool = False) -> float | None:
        kinds = ("int",) if integer else ("int", "float")
        if isinstance(node, yaml.ScalarNode) and node.tag in {
            f"tag:yaml.org,2002:{k}" for k in kinds
        }:
            try:
                value = float(str(node.value).replace("_", ""))
            except ValueError:
                value = float("nan")
            if value == value and abs(value) != float("inf"):
                return value
        self.report(node, f"{what} must be {'a whole number' if integer else 'a number'}")
        return None

    def cases(self, node: yaml.Node, declared: set[str]) -> tuple[Case, ...]:
        """Named rows, one drawn per seed; every case defines the same value names, which are
        declared (even for a broken case, so its formulas report nothing more)."""
        if not isinstance(node, yaml.SequenceNode) or not node.value or len(node.value) > MAX_CASES:
            self.names_unknown = True
            if not isinstance(node, yaml.SequenceNode):
                self.report(node, "cases must be a list")
            elif not node.value:
                self.report(node, "cases is empty; leave it out or list at least one case")
            else:
                self.report(node, f"template has more than {MAX_CASES} cases")
            return ()
        params = frozenset(declared)
        out: list[Case] = []
        first: list[str] | None = None
        labels: set[str] = set()
        ok = True
        for item in node.value:
            case, values_node = self.case(item, params, declared)
            if case is None or values_node is None:
                ok = False
                continue
            names = [name for name, _ in case.values]
            if first is None:
                first = names
            elif set(names) != set(first):
                self.report(
                    values_node,
                    f"case '{case.label.en}' has values {', '.join(sorted(names))}; "
                    f"the first case has {', '.join(sorted(first))}",
                )
                ok = False
                continue
            for lang in self.files.languages():
                if case.label.get(lang) in labels:
                    self.report(item, f"case label '{case.label.get(lang)}' appears twice")
                    ok = False
                labels.add(case.label.get(lang))
            out.append(case)
        return tuple(out) if ok else ()

    def case(
        self, node: yaml.Node, params: frozenset[str], declared: set[str]
    ) -> tuple[Case | None, yaml.Node | None]:
        """A case, and its values' node (where a differing set of names is reported)."""
        f = self.files
        fields = f.mapping(node, CASE_KEYS, "case")
        if fields is None:
            return None, None
        for key in sorted(CASE_KEYS - set(fields)):
            self.report(node, f"case is missing field '{key}'")
        label = f.text(fields["label"], "case label", MAX_CASE_LABEL) if "label" in fields else None
        values_node = fields.get("values")
        numbers = f.mapping(values_node, None, "case values") if values_node else None
        values: list[tuple[str, float]] = []
        ok = numbers is not None
        for name, value in (numbers or {}).items():
            if not name.isidentifier() or name in RESERVED or name in params:
                self.report(
                    value, f"case value name '{name}' must be a plain name (not a param or 'case')"
                )
                ok = False
                continue
            declared.add(name)
            number = self.number(value, f"case value '{name}'")
            if number is None:
                ok = False
            else:
                values.append((name, number))
        if numbers is not None and not numbers:
            self.report(values_node or node, "case values is empty; a case needs at least one")
            ok = False
        if label is None or not ok:
            return None, None
        return Case(label, tuple(values)), values_node

    def values(self, node: yaml.Node, declared: set[str]) -> dict[str, Formula]:
        """Named steps, each using the params and the steps before it."""
        fields = self.files.mapping(node, None, "values")
        out: dict[str, Formula] = {}
        for name, value in (fields or {}).items():
            if not name.isidentifier() or name in RESERVED or name in declared:
                self.report(
                    value,
                    f"value name '{name}' must be a new plain name (not a param or a case value)",
                )
                continue
            formula = self.formula(value, set(declared))
            declared.add(name)
            if formula is not None:
                out[name] = formula
        return out

    def formula(self, node: yaml.Node, names: set[str]) -> Formula | None:
        text = self.files.scalar(node, "formula", 1000)
        if text is None:
            return None
        try:
            formula = parse(text)
        except FormulaError as exc:
            self.report(node, str(exc))
            return None
        unknown = sorted(formula.names - names)
        if unknown and self.names_unknown:
            return None  # `cases:` is reported
        if unknown:
            known = ", ".join(sorted(names)) or "none"
            self.report(node, f"unknown name '{unknown[0]}' in formula (known: {known})")
            return None
        return formula

    def distractors(
        self, node: yaml.Node, names: set[str], key: yaml.Node, has_cases: bool
    ) -> tuple[Distractor, ...]:
        if not isinstance(node, yaml.SequenceNode):
            self.report(node, "distractors must be a list")
            return ()
        if not OPTIONS - 1 <= len(node.value) <= MAX_DISTRACTORS:
            self.report(
                key,
                f"template has {len(node.value)} distractors; "
                f"it needs {OPTIONS - 1} to {MAX_DISTRACTORS}",
            )
        out = []
        for item in node.value:
            fields = self.files.mapping(item, DISTRACTOR_KEYS, "distractor")
            if fields is None:
                continue
            if not {"formula", "mistake"} <= set(fields):
                self.report(item, "a distractor needs a formula and the mistake it stands for")
                continue
            if "why" not in fields and self.files.strict:
                self.report(item, "a distractor needs 'why': what a learner who picks it is told")
            formula = self.formula(fields["formula"], names)
            mistake = self.files.scalar(fields["mistake"], "mistake", limits.MAX_SOURCE)
            why = (
                self.text(fields, "why", limits.MAX_WHY, names | {ANSWER}, has_cases)
                if "why" in fields
                else None
            )
            if formula is not None and mistake is not None:
                out.append(Distractor(formula, mistake, why))
        return tuple(out)

    def text(
        self,
        fields: dict[str, yaml.Node],
        key: str,
        max_len: int,
        names: set[str],
        has_cases: bool,
    ) -> Text | None:
        """The text, its placeholders known; a template with cases shows the drawn case's label
        in its prompt, or a reader could not tell which row the numbers belong to."""
        if key not in fields:
            return None
        text = self.files.text(fields[key], key, max_len)
        node = fields[key]
        if text is None:
            return None
        if isinstance(node, yaml.MappingNode):
            lines = {k.value: v for k, v in node.value}
        else:  # a one-language file's plain text: the same node for every language
            lines = {lang: node for lang in LANGS}
        ok = True
        for lang in self.files.languages():
            try:
                used = placeholders(text.get(lang))
            except ValueError as exc:
                self.report(lines[lang], f"{key} ({lang}): {exc}")
                ok = False
                continue
            if CASE in used and not has_cases:
                self.report(
                    lines[lang], f"placeholder '{{case}}' in {key} ({lang}) needs 'cases:' to draw"
                )
                ok = False
                continue
            if has_cases and key == "prompt" and CASE not in used:
                self.report(
                    lines[lang], f"prompt ({lang}) must show the drawn case with '{{case}}'"
                )
                ok = False
                continue
            shown = names | {CASE} if has_cases else names
            unknown = [name for name in used if name not in shown]
            if unknown and self.names_unknown:
                ok = False  # `cases:` is reported
            elif unknown:
                known = ", ".join("{" + n + "}" for n in sorted(shown))
                self.report(
                    lines[lang],
                    f"unknown placeholder '{{{unknown[0]}}}' in {key} ({lang}); known: {known}",
                )
                ok = False
        return text if ok else None
