"""The core's layers, each depending only on those below it (see the README's architecture).

Walks every import statement of every module in bot/, those under TYPE_CHECKING included (a
hidden cycle is still a cycle), and fails when a module imports one of a higher layer, or one of
its own layer in another package (values, text and time, layer 0, use each other freely).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

LAYERS: dict[int, tuple[str, ...]] = {
    0: ("bot.model", "bot.views", "bot.i18n", "bot.bank", "bot.clock", "bot.periods",
        "bot.shuffle", "bot.selection", "bot.topics", "bot.config", "bot.export", "bot.daily",
        "bot.daily.spec", "bot.daily.timing"),
    1: ("bot.storage", "bot.ports"),
    2: ("bot.presenter", "bot.delivery", "bot.review"),
    3: ("bot.rounds", "bot.reviewing"),
    4: ("bot.runs", "bot.reveals", "bot.daily.service", "bot.tally", "bot.scheduler"),
    5: ("bot.quiz",),
    6: ("bot.commands", "bot.app"),
}  # fmt: skip


def layer_of(module: str) -> tuple[int, str]:
    """(layer, the package prefix it was classified by); the longest prefix wins."""
    best: tuple[int, str] | None = None
    for layer, prefixes in LAYERS.items():
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (
                best is None or len(prefix) > len(best[1])
            ):
                best = (layer, prefix)
    assert best is not None, f"{module} is in no layer: add it to LAYERS"
    return best


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found |= {f"{node.module}.{alias.name}" for alias in node.names}
    return {name for name in found if name == "bot" or name.startswith("bot.")}


def test_every_module_imports_only_from_lower_layers() -> None:
    problems: list[str] = []
    known = {module_name(p) for p in (ROOT / "bot").rglob("*.py")}
    for path in sorted((ROOT / "bot").rglob("*.py")):
        me = module_name(path)
        if me == "bot":
            continue
        mine, my_package = layer_of(me)
        for name in sorted(imports(path)):
            if name not in known or name == "bot":
                continue  # `from bot.x import Name`: Name is no module
            theirs, their_package = layer_of(name)
            if theirs > mine or (theirs == mine != 0 and their_package != my_package):
                problems.append(f"{me} (layer {mine}) imports {name} (layer {theirs})")
    assert problems == []


def test_nothing_below_quiz_knows_it() -> None:
    for path in (ROOT / "bot").rglob("*.py"):
        if module_name(path) in ("bot.quiz", "bot.commands", "bot.app"):
            continue
        assert "bot.quiz" not in imports(path), path


# Pairs that the layers alone would allow: what a package must not import all the same.
FORBIDDEN: dict[str, tuple[str, ...]] = {
    # Storage returns the core's values (bot.model, bot.storage.records), never the views the
    # adapters are handed: a change to what people see can't reach the database code.
    "bot.storage": ("bot.views",),
}


def test_storage_does_not_import_the_views() -> None:
    problems: list[str] = []
    for package, banned in FORBIDDEN.items():
        folder = ROOT.joinpath(*package.split("."))
        for path in sorted(folder.rglob("*.py")):
            for name in sorted(imports(path)):
                if any(name == b or name.startswith(b + ".") for b in banned):
                    problems.append(f"{module_name(path)} imports {name}")
    assert problems == []
