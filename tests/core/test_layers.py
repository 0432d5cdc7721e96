"""The core's layers, each depending only on those below it (see docs/architecture.md).

Walks every import statement of every module in bot/, those under TYPE_CHECKING included (a
hidden cycle is still a cycle), and fails when a module imports one of a higher layer, or one of
its own layer in another package (values, text and time, layer 0, use each other freely).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

LAYERS: dict[int, tuple[str, ...]] = {
    0: ("bot.model", "bot.views", "bot.i18n", "bot.bank", "bot.clock", "bot.periods",
        "bot.shuffle", "bot.selection", "bot.topics", "bot.config", "bot.export", "bot.daily",
        "bot.daily.spec", "bot.daily.timing", "bot.controls", "bot.controls.words",
        "bot.charts", "bot.limits", "bot.fanout",
        "bot.typed"),
    1: ("bot.storage", "bot.ports"),
    2: (
        "bot.presenter", "bot.delivery", "bot.review", "bot.analysis", "bot.library",
        "bot.liveness",
    ),
    3: ("bot.rounds", "bot.reviewing", "bot.teampacks", "bot.results"),
    4: ("bot.runs", "bot.reveals", "bot.daily.service", "bot.tally", "bot.scheduler",
        "bot.controls.service", "bot.insights", "bot.drills", "bot.reports", "bot.reminders",
        "bot.typed_answers"),
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


def core_services() -> set[str]:
    """The classes bot/app.py builds: the core's services (it is their one composition root)."""
    defined = {
        node.name
        for path in (ROOT / "bot").rglob("*.py")
        if "storage" not in path.parts
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ClassDef)
    }
    built = {
        node.func.id
        for node in ast.walk(ast.parse((ROOT / "bot" / "app.py").read_text()))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    return (defined & built) - {"Core"}  # Core is the record app.py returns, no service


def _names(annotation: ast.expr | None) -> set[str]:
    if annotation is None:
        return set()
    return {n.id for n in ast.walk(annotation) if isinstance(n, ast.Name)} | {
        n.value
        for n in ast.walk(annotation)
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }


def reach_throughs(source: str, services: set[str]) -> list[str]:
    """Where code uses an attribute of an attribute of another service: `self.x.a.b` with `x`
    a service it was given, `x.a.b` with `x` a service-typed parameter, or a collaborator taken
    from another service in a constructor (`self.s = x.store`). Each service gets what it uses
    from bot/app.py instead."""
    tree = ast.parse(source)
    found: list[str] = []
    for fn in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]:
        params = {
            a.arg for a in [*fn.args.args, *fn.args.kwonlyargs] if _names(a.annotation) & services
        }
        held: set[str] = set()  # self.<attr> that holds a service
        cls = next(
            (c for c in ast.walk(tree) if isinstance(c, ast.ClassDef) and fn in c.body), None
        )
        if cls is not None:
            held = _held_services(cls, services)
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)):
                continue
            base = node.value.value
            if (isinstance(base, ast.Name) and base.id in params) or (
                isinstance(base, ast.Attribute)
                and isinstance(base.value, ast.Name)
                and base.value.id == "self"
                and base.attr in held
            ):
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
        if fn.name == "__init__":
            for node in ast.walk(fn):
                if (
                    isinstance(node, ast.Assign | ast.AnnAssign)
                    and isinstance(node.value, ast.Attribute)
                    and isinstance(node.value.value, ast.Name)
                    and node.value.value.id in params
                ):
                    found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return sorted(set(found))


def _held_services(cls: ast.ClassDef, services: set[str]) -> set[str]:
    """The attributes of `self` that hold a service: a dataclass's service-typed fields, and
    those its constructor sets from a service-typed parameter."""
    fields = {
        node.target.id
        for node in cls.body
        if isinstance(node, ast.AnnAssign)
        and isinstance(node.target, ast.Name)
        and _names(node.annotation) & services
    }
    init = next(
        (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None
    )
    if init is None:
        return fields
    typed = {
        a.arg for a in [*init.args.args, *init.args.kwonlyargs] if _names(a.annotation) & services
    }
    held = set(fields)
    for node in ast.walk(init):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            from_param = isinstance(node.value, ast.Name) and node.value.id in typed
            annotated = isinstance(node, ast.AnnAssign) and _names(node.annotation) & services
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                    and (from_param or annotated)
                ):
                    held.add(target.attr)
    return held


def test_no_service_reaches_through_another() -> None:
    services = core_services() - {"Quiz"}  # the record the surfaces call: see below
    assert {"Delivery", "Rounds", "Runs", "Reveals", "Reviews"} <= services  # the rule has teeth
    problems = [
        f"{path.relative_to(ROOT)} {found}"
        for path in sorted((ROOT / "bot").rglob("*.py"))
        for found in reach_throughs(path.read_text(), services)
    ]
    assert problems == []


def test_the_reach_through_check_flags_what_it_should() -> None:
    sample = """
class Runs:
    def __init__(self, rounds: Rounds, store: Store) -> None:
        self.rounds = rounds
        self.store = store
        self.bank = rounds.bank

    async def go(self) -> None:
        await self.rounds.store.rounds.get(1)
        self.rounds.notify_changed()
        await self.store.rounds.get(1)


def command(runs: Runs, store: Store) -> None:
    runs.rounds.start()
    runs.answer()
    store.rounds.get(1)


@dataclass
class Reveals:
    rounds: Rounds

    def now(self) -> None:
        self.rounds.clock.now()
"""
    assert reach_throughs(sample, {"Rounds", "Runs"}) == [
        "line 15: runs.rounds.start",
        "line 25: self.rounds.clock.now",
        "line 6: self.bank = rounds.bank",
        "line 9: self.rounds.store.rounds",
    ]


@dataclass(frozen=True)
class QuizApi:
    """What a surface may use of `Quiz`: its public names, and of each service field the
    public methods of that service's class."""

    names: frozenset[str]
    services: dict[str, frozenset[str]]


HIDDEN = frozenset({"store"})  # Quiz's own methods read it; a surface never does


def quiz_api() -> QuizApi:
    classes = {
        node.name: node
        for path in (ROOT / "bot").rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ClassDef)
    }
    quiz = classes["Quiz"]
    fields = {
        n.target.id: _names(n.annotation)
        for n in quiz.body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    }
    methods = {n.name for n in quiz.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    services = {
        field: frozenset(
            n.name
            for n in classes[cls].body
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and not n.name.startswith("_")
        )
        for field, names in fields.items()
        for cls in names & (core_services() - {"Quiz"})
    }
    public = {name for name in fields.keys() | methods if not name.startswith("_")}
    return QuizApi(frozenset(public - HIDDEN), services)


def _is_quiz(node: ast.expr) -> bool:
    """`quiz`, `self.quiz`, `self._quiz`, `core.quiz`: how the surfaces hold the quiz."""
    return (isinstance(node, ast.Name) and node.id == "quiz") or (
        isinstance(node, ast.Attribute) and node.attr in ("quiz", "_quiz")
    )


def quiz_misuses(source: str, api: QuizApi) -> list[str]:
    """Where a surface uses what is not its to use of the quiz: the store, a private name, or a
    service's own collaborators (`quiz.rounds.store`) rather than one of its methods."""
    tree = ast.parse(source)
    parents = {kid: node for node in ast.walk(tree) for kid in ast.iter_child_nodes(node)}
    found: list[str] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and _is_quiz(node.value)):
            continue
        outer = parents.get(node)
        if node.attr not in api.names:
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
        elif (
            node.attr in api.services
            and isinstance(outer, ast.Attribute)
            and outer.attr not in api.services[node.attr]
        ):
            found.append(f"line {outer.lineno}: {ast.unparse(outer)}")
    return sorted(set(found))


def test_surfaces_call_the_quizs_services_by_their_methods() -> None:
    """The command set and the adapters call the services bot/app.py built, as Quiz's public
    fields (`quiz.rounds.answer`, `quiz.daily.command`), or what Quiz coordinates itself; never
    the store through it, nor a service's own collaborators (`quiz.rounds.store`)."""
    api = quiz_api()
    assert {"rounds", "runs", "reveals", "packs", "controls", "typed"} <= api.services.keys()
    assert "answer" in api.services["rounds"] and "store" not in api.services["rounds"]
    paths = [ROOT / "bot" / "commands.py", *sorted((ROOT / "adapters").rglob("*.py"))]
    seen = sum(
        isinstance(n, ast.Attribute) and _is_quiz(n.value)
        for path in paths
        for n in ast.walk(ast.parse(path.read_text()))
    )
    assert seen > 50  # the surfaces still hold the quiz by a name the check knows
    problems = [
        f"{path.relative_to(ROOT)} {found}"
        for path in paths
        for found in quiz_misuses(path.read_text(), api)
    ]
    assert problems == []


def test_the_surface_check_flags_what_it_should() -> None:
    sample = """
class Handler:
    def __init__(self, quiz: Quiz) -> None:
        self.quiz = quiz

    async def click(self, quiz: Quiz) -> None:
        await self.quiz.rounds.answer(1, who, 0)
        await quiz.close_round(1, "next")
        len(self.quiz.bank.templates)
        await self.quiz.store.rounds.get(1)
        await quiz.rounds.store.rounds.get(1)
        self.quiz.rounds._facts.clear()
        await core.quiz._answer(1)
        await self.quiz.daily.command(channel, (), "en")
"""
    assert quiz_misuses(sample, quiz_api()) == [
        "line 10: self.quiz.store",
        "line 11: quiz.rounds.store",
        "line 12: self.quiz.rounds._facts",
        "line 13: core.quiz._answer",
    ]


def test_storage_classes_are_named_apart_from_the_core() -> None:
    """`store.rounds` is a RoundTable, never a second `Rounds` beside the core's."""

    def classes(paths: list[Path]) -> set[str]:
        return {
            node.name
            for path in paths
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.ClassDef)
        }

    everything = sorted((ROOT / "bot").rglob("*.py"))
    storage = [p for p in everything if "storage" in p.relative_to(ROOT).parts]
    core = [p for p in everything if p not in storage]
    assert classes(storage) & classes(core) == set()


def test_only_delivery_calls_a_port() -> None:
    """Every post, edit, reveal and notice goes through bot/delivery.py (its one error mapping
    and retry ledger): elsewhere in the core a port method is only ever called on `delivery`."""
    protocol = next(
        node
        for node in ast.walk(ast.parse((ROOT / "bot" / "ports.py").read_text()))
        if isinstance(node, ast.ClassDef) and node.name == "ChatPort"
    )
    methods = {n.name for n in protocol.body if isinstance(n, ast.AsyncFunctionDef)}
    assert {"post_question", "update_question", "post_reveal", "post_notice"} <= methods
    calls = [
        f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(node.func)}"
        for path in sorted((ROOT / "bot").rglob("*.py"))
        if path.name != "delivery.py"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in methods
        and not ast.unparse(node.func.value).endswith("delivery")
    ]
    assert calls == []


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
