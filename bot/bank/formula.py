"""A tiny safe arithmetic language for question templates: numbers, names, + - * / and ( ).

Parsed with Python's `ast` and walked by hand, never `eval`: a bank file is data from a team, and
anything beyond the four operations (calls, attributes, `**`, which can take seconds and memory)
is refused when the file is checked, so evaluating a checked formula is always cheap and safe.
(No well-kept evaluator library is among the packages this project may use; this walker is short.)
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from typing import NamedTuple

MAX_FORMULA = 200

_OPERATORS: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}


class FormulaError(ValueError):
    """Why a formula text is refused; the message is one line for a `file:line:` problem."""


class Formula(NamedTuple):
    text: str
    tree: ast.expr
    names: frozenset[str]

    def evaluate(self, env: Mapping[str, float]) -> float:
        """The value for these names; ZeroDivisionError for a division by zero."""
        return _walk(self.tree, env)


def parse(text: str) -> Formula:
    """A checked formula, or FormulaError naming the first thing that is not allowed."""
    if len(text) > MAX_FORMULA:
        raise FormulaError(f"formula is {len(text)} characters; the limit is {MAX_FORMULA}")
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as exc:
        raise FormulaError(f"formula syntax error: {exc.msg}") from None
    names: set[str] = set()
    for node in ast.walk(tree):
        _allowed(node, names)
    return Formula(text, tree, frozenset(names))


def _allowed(node: ast.AST, names: set[str]) -> None:
    if isinstance(node, ast.BinOp):
        if type(node.op) not in _OPERATORS:
            raise FormulaError("only + - * / and parentheses are allowed in a formula")
    elif isinstance(node, ast.Name):
        names.add(node.id)
    elif isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise FormulaError(f"'{node.value!r}' is not a number")
    elif not isinstance(node, ast.operator | ast.expr_context):
        raise FormulaError("only numbers, names, + - * / and parentheses are allowed in a formula")


def _walk(node: ast.expr, env: Mapping[str, float]) -> float:
    if isinstance(node, ast.BinOp):
        return _OPERATORS[type(node.op)](_walk(node.left, env), _walk(node.right, env))
    if isinstance(node, ast.Name):
        return env[node.id]
    assert isinstance(node, ast.Constant) and isinstance(node.value, int | float)
    return float(node.value)
