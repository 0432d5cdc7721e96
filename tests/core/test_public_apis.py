"""Only the public APIs of the libraries and of the standard library (issue 32): no module of
bot/ or adapters/ imports a private or internal module, and none reads or writes a private name
(`x._y`) that isn't ZeroQuiz's own, or a public name its library leaves undocumented. Each
library's couplings the speed push once made are named below, and a self-test shows the check
catches each kind.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("bot", "adapters")

# Internal modules, by library: importing any of them (or anything below them) is refused.
FORBIDDEN_MODULES = {
    "discord": ("discord.webhook.async_", "discord.state", "discord.gateway", "discord.http"),
    "slack_bolt": ("slack_bolt.request.async_internals", "slack_bolt.request.internals"),
    "aiohttp": ("aiohttp.web_protocol", "aiohttp.base_protocol", "aiohttp.http_parser"),
    "cpython": ("marshal", "_thread", "adapters.codecache"),
}
# Private names once used, by library: named so a reader sees what the check is about; the
# rule below refuses any other private name too.
FORBIDDEN_NAMES = {
    "discord": ("_state", "_session", "_response_type", "_from_value", "_connection", "_parsers"),
    "aiosqlite": ("_execute", "_conn"),
    "aiohttp": ("_server", "_runner", "_host", "_port", "_backlog"),
    "cpython": ("_getframe", "_VersionAction", "_SubParsersAction"),
}
# Public but undocumented, by library: names without an underscore that are not in the library's
# documentation, so they change without notice like a private one (issue 32's last couplings).
UNDOCUMENTED = {
    "discord": ("http", "get_bot_gateway", "get_translated_payload"),
}
# Public API that starts with an underscore by design: a named tuple's methods, named so to stay
# clear of its field names (https://docs.python.org/3/library/collections.html#collections.somenamedtuple._replace).
DOCUMENTED = frozenset({"_replace", "_fields", "_asdict", "_make", "_field_defaults"})


def product_files() -> list[Path]:
    return sorted(p for top in PRODUCT for p in (ROOT / top).rglob("*.py"))


def own_private_names(files: list[Path]) -> set[str]:
    """Every `_name` ZeroQuiz defines itself (functions, classes, module names, attributes its
    objects set on themselves), so reading one of them across our own modules is fine; the
    FORBIDDEN_NAMES stay refused on anything but `self`."""
    names: set[str] = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
        names |= set_on_self(ast.parse(path.read_text()))  # our objects' own state
    return {n for n in names if n.startswith("_")}


def set_on_self(tree: ast.AST) -> set[str]:
    """The attributes a module's own code sets on `self` or `cls`: its objects' own state."""
    return {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id in ("self", "cls")
    }


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def problems(source: str, where: str, own: set[str]) -> list[str]:
    found: list[str] = []
    forbidden = tuple(m for mods in FORBIDDEN_MODULES.values() for m in mods)
    named = {n for names in FORBIDDEN_NAMES.values() for n in names}
    undocumented = {n for names in UNDOCUMENTED.values() for n in names}
    tree = ast.parse(source)
    on_self = set_on_self(tree)
    for node in ast.walk(tree):
        modules: list[str] = []
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            found += [
                f"{where}:{node.lineno}: imports {a.name} from {node.module}"
                for a in node.names
                if _private(a.name) and not node.module.startswith(PRODUCT)
            ]
        for module in modules:
            parts = module.split(".")
            own_module = module.startswith(PRODUCT)  # our own modules' privates are ours to share
            internal = any(_private(p) for p in parts) and module != "__future__" and not own_module
            if internal or module.startswith(forbidden) or module in forbidden:
                found.append(f"{where}:{line}: imports {module}")
        if isinstance(node, ast.Attribute) and node.attr in undocumented:
            found.append(f"{where}:{node.lineno}: uses .{node.attr} (undocumented)")
        if isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in DOCUMENTED:
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                # Our object's own state or method; not a library base class's private.
                bad = node.attr not in on_self and node.attr not in own
            else:
                bad = node.attr in named or node.attr not in own
            if bad:
                found.append(f"{where}:{node.lineno}: uses .{node.attr}")
    return sorted(set(found))


def test_no_library_internals_in_the_product() -> None:
    files = product_files()
    own = own_private_names(files)
    found = [
        p for path in files for p in problems(path.read_text(), str(path.relative_to(ROOT)), own)
    ]
    assert found == []


def test_the_check_catches_each_kind_of_coupling() -> None:
    """Self-test: the couplings issue 32 removed, written again, are each caught."""
    own = {"_mine"}
    samples = {
        "interaction._state": "uses ._state",
        "response._response_type = 4": "uses ._response_type",
        "discord.MessageFlags._from_value(0)": "uses ._from_value",
        "await conn._execute(fn)": "uses ._execute",
        "site._server": "uses ._server",
        "sys._getframe(1)": "uses ._getframe",
        "import discord.webhook.async_": "imports discord.webhook.async_",
        "from slack_bolt.request.async_internals import build_async_context": (
            "imports slack_bolt.request.async_internals"
        ),
        "from aiohttp import web_protocol": "imports aiohttp.web_protocol",
        "from argparse import _SubParsersAction": "imports _SubParsersAction from argparse",
        "import marshal": "imports marshal",
        "await self.http.get_bot_gateway()": "uses .get_bot_gateway (undocumented)",
        "client.http": "uses .http (undocumented)",
        "await command.get_translated_payload(tree, t)": "uses .get_translated_payload",
        "thing._whatever_else": "uses ._whatever_else",
        "class Site(BaseSite):\n    def f(self):\n        return self._server": "uses ._server",
    }
    for source, expected in samples.items():
        found = problems(source, "sample.py", own)
        assert any(expected in p for p in found), (source, found)
    assert problems("self._x = 1\nself._x\nother._mine\nx.__class__", "ok.py", own) == []
    assert problems("view._replace(title='t')\nrow._fields", "ok.py", own) == []
