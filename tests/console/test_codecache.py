"""Dataclasses' and namedtuples' code kept between starts (adapters/codecache.py): every class on
serve's path is built from the same code as without the cache, a second start takes it all from
the file, and a file that is missing, garbage, someone else's or unwritable is a miss, never an
error."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

from adapters.codecache import FORMAT, NAME, CodeCache, read

# Every dataclass and namedtuple in every loaded module, and of each method generated for it
# (compiled from "<string>") all a caller could notice: code (recursively), annotations, defaults.
FINGERPRINT = r"""
import dataclasses, json, re, sys, types
if sys.argv[1] == "without":  # the same imports with dataclasses' own exec
    sys.modules["adapters.codecache"] = types.ModuleType("adapters.codecache")
import adapters.cli, adapters.serve, adapters.discord.surface, adapters.slack.surface

def code(c):
    return [c.co_name, c.co_qualname, c.co_filename, c.co_firstlineno, c.co_flags,
            c.co_argcount, c.co_posonlyargcount, c.co_kwonlyargcount, c.co_stacksize,
            c.co_code.hex(), c.co_linetable.hex(), c.co_exceptiontable.hex(), c.co_names,
            c.co_varnames, c.co_freevars, c.co_cellvars,
            [code(k) if isinstance(k, types.CodeType) else repr(k) for k in c.co_consts]]

def plain(value):
    return re.sub(r" at 0x[0-9a-f]+", "", repr(value))

found = {}
for name, module in list(sys.modules.items()):
    for cls in list(vars(module).values()):
        if not isinstance(cls, type):
            continue
        named = issubclass(cls, tuple) and "_fields" in vars(cls)
        if not (dataclasses.is_dataclass(cls) or named):
            continue
        methods = {}
        for attr, fn in vars(cls).items():
            fn = getattr(fn, "__func__", fn)  # a namedtuple's __new__ is a staticmethod
            if isinstance(fn, types.FunctionType) and fn.__code__.co_filename == "<string>":
                methods[attr] = [code(fn.__code__), plain(fn.__annotations__),
                                 plain(fn.__defaults__), plain(fn.__kwdefaults__),
                                 fn.__qualname__, fn.__module__]
        found[f"{cls.__module__}.{cls.__qualname__}"] = methods
from_cache = None
if sys.argv[1] == "with":
    from adapters.codecache import CACHE
    from_cache = [len(CACHE.used), len(CACHE.added)]
print(json.dumps({"classes": found, "from_cache": from_cache}))
"""


def fingerprint(mode: str, cache: Path) -> dict[str, Any]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache), "HOME": str(cache)}
    done = subprocess.run(
        [sys.executable, "-c", FINGERPRINT, mode],
        capture_output=True, text=True, env=env, timeout=120, check=True,
    )  # fmt: skip
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_every_dataclass_on_serves_path_is_built_from_the_same_code(tmp_path: Path) -> None:
    without = fingerprint("without", tmp_path)
    first = fingerprint("with", tmp_path)  # compiles and writes the file
    second = fingerprint("with", tmp_path)  # takes every text from it
    classes = without["classes"]
    assert isinstance(classes, dict) and len(classes) > 120
    assert sum(len(methods) for methods in classes.values()) > 400
    assert any("<lambda>" in str(methods.get("__new__")) for methods in classes.values())
    assert first["classes"] == classes
    assert second["classes"] == classes
    assert first["from_cache"][1] > 400
    used, added = second["from_cache"]
    assert used > 400 and added == 0
    written = tmp_path / "zeroquiz" / NAME
    assert stat.S_IMODE(written.stat().st_mode) == 0o600


def test_the_code_of_a_text_is_what_exec_compiles(tmp_path: Path) -> None:
    text = "def __create_fn__(_type_x):\n def f(self, x: _type_x) -> None:\n  return x\n return f"
    cache = CodeCache(tmp_path / NAME, {})
    ns: dict[str, object] = {}
    cache.exec(text, {}, ns)
    made = ns["__create_fn__"](int)  # type: ignore[operator]
    ns_plain: dict[str, object] = {}
    # exec as dataclasses calls it: from code without `from __future__ import annotations`
    runner = compile("exec(text, {}, ns)", "<runner>", "exec", dont_inherit=True)
    exec(runner, {"text": text, "ns": ns_plain})
    want = ns_plain["__create_fn__"](int)  # type: ignore[operator]
    # this module has `from __future__ import annotations`: the cached code doesn't inherit it
    assert made.__annotations__ == want.__annotations__ == {"x": int, "return": None}
    assert made.__code__ == want.__code__
    cache.save()
    again = CodeCache(tmp_path / NAME, read(tmp_path / NAME))
    assert again.code(text) == compile(text, "<string>", "exec", dont_inherit=True)
    assert not again.added


def test_eval_is_evals_own_with_the_cache(tmp_path: Path) -> None:
    cache = CodeCache(tmp_path / NAME, {})
    namespace = {"_tuple_new": tuple.__new__, "__builtins__": {}}
    text = " \tlambda _cls, a, b: _tuple_new(_cls, (a, b))"  # eval strips the leading blanks
    made = cache.eval(text, namespace)
    # eval as namedtuple calls it: from code without `from __future__ import annotations`
    runner = compile("eval(text, namespace)", "<runner>", "eval", dont_inherit=True)
    want = eval(runner, {"text": text, "namespace": namespace})
    assert made.__code__ == want.__code__ and made.__globals__ is want.__globals__
    assert made(tuple, 1, 2) == (1, 2)
    assert cache.eval("x + 1", None, {"x": 41}) == 42
    cache.save()
    assert set(read(tmp_path / NAME)) == {("eval", text.lstrip()), ("eval", "x + 1")}


def test_garbage_someone_elses_or_a_foreign_python_is_a_miss(tmp_path: Path) -> None:
    where = tmp_path / NAME
    cache = CodeCache(where, {})
    cache.code("x = 1")
    cache.save()
    assert set(read(where)) == {("exec", "x = 1")}
    data = where.read_bytes()
    where.write_bytes(data[: len(data) // 2])
    assert read(where) == {}
    where.write_bytes(b"zeroquiz code cache 2\n3.99.0 (another)\n" + data[len(FORMAT) :])
    assert read(where) == {}
    where.write_bytes(data)
    where.chmod(0o644)
    assert read(where) == {}
    where.chmod(0o600)
    tmp_path.chmod(0o777)
    try:
        assert read(where) == {}
    finally:
        tmp_path.chmod(0o700)
    assert set(read(where)) == {("exec", "x = 1")}
    assert read(tmp_path / "missing" / NAME) == {}


def test_a_cache_that_cannot_be_written_is_no_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    cache = CodeCache(blocker / "sub" / NAME, {})
    cache.code("y = 2")
    cache.save()  # the folder can't be made: nothing raised, nothing written
    assert list(tmp_path.iterdir()) == [blocker]
