"""The systemd unit: hardened to an OK score and clean in `systemd-analyze verify`.

Runs where systemd-analyze is installed (the CI installs the systemd package); `verify` wants the
ExecStart binary to exist, so it checks a copy pointing at the zeroquiz this suite runs.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

UNIT = Path(__file__).resolve().parents[2] / "deploy" / "zeroquiz.service"
ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed")


def test_the_unit_does_not_restart_a_configuration_error() -> None:
    text = UNIT.read_text()
    assert re.search(r"^RestartPreventExitStatus=78$", text, re.M)
    assert re.search(r"^Type=notify$", text, re.M)  # serve says READY=1 (adapters/sdnotify.py)
    assert re.search(r"^Restart=on-failure$", text, re.M)
    assert re.search(r"^StateDirectory=zeroquiz$", text, re.M)


@needs_analyze
def test_security_score_is_ok() -> None:
    assert ANALYZE is not None
    out = subprocess.run(
        [ANALYZE, "security", "--offline=yes", str(UNIT)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    found = re.search(r"Overall exposure level for zeroquiz.service: (\d+\.\d+) (\w+)", out.stdout)
    assert found, out.stdout + out.stderr
    assert float(found.group(1)) <= 2.0 and found.group(2) == "OK", found.group(0)


@needs_analyze
def test_verify_is_clean(tmp_path: Path) -> None:
    assert ANALYZE is not None
    zeroquiz = Path(sys.executable).parent / "zeroquiz"
    text = UNIT.read_text().replace("/usr/local/bin/zeroquiz", str(zeroquiz))
    unit = tmp_path / "zeroquiz.service"
    unit.write_text(text)
    out = subprocess.run([ANALYZE, "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout + out.stderr == "", out.stdout + out.stderr


def test_the_unit_gives_the_http_listener_room_for_its_connection_cap() -> None:
    """systemd's default soft limit (1,024 open files) is below the cap plus what the rest
    needs; the unit can't raise it itself (setrlimit is in @resources, which it filters)."""
    from adapters.front import DEFAULT_MAX_CONNECTIONS, RESERVED_FILES

    found = re.search(r"^LimitNOFILE=(\d+)$", UNIT.read_text(), re.M)
    assert found is not None
    assert int(found.group(1)) >= 2 * (DEFAULT_MAX_CONNECTIONS + RESERVED_FILES)
