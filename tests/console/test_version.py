"""`zeroquiz --version` and the licence, as an operator filing a bug report would see them."""

from __future__ import annotations

import re
import subprocess
import sys
import sysconfig
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def zeroquiz() -> list[str]:
    script = Path(sys.executable).parent / "zeroquiz"
    return [str(script)] if script.exists() else [sys.executable, "-m", "adapters.cli"]


def installed() -> metadata.Distribution:
    """The copy pip installed, not a stale zeroquiz.egg-info that a build left in the checkout."""
    found = list(metadata.distributions(name="zeroquiz", path=[sysconfig.get_paths()["purelib"]]))
    assert len(found) == 1, "zeroquiz is not installed in this interpreter"
    return found[0]


def test_version_prints_the_installed_version_and_exits_0(tmp_path: Path) -> None:
    result = subprocess.run(
        [*zeroquiz(), "--version"], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert result.returncode == 0, result.stderr
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["dynamic"] == ["version"]  # from the one constant the code reads
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "bot.__version__"}
    match = re.search(r'^__version__ = "(.+)"$', (ROOT / "bot" / "__init__.py").read_text(), re.M)
    assert match is not None
    declared = match.group(1)
    assert result.stdout == f"zeroquiz {declared}\n"
    assert installed().version == declared


def test_the_installed_package_carries_the_mit_licence_and_its_text() -> None:
    meta = installed().metadata
    assert meta["License-Expression"] == "MIT"
    assert meta.get_all("License-File") == ["LICENSE"]
    licence = ROOT / "LICENSE"
    text = licence.read_text()
    assert text.startswith("MIT License")
    assert "Copyright (c) 2026 the ZeroQuiz authors" in text
    files = installed().files or []
    copies = [f for f in files if f.name == "LICENSE" and "dist-info" in str(f)]
    assert copies, "LICENSE is not in the wheel's dist-info"
    assert copies[0].read_text() == text
