"""The nightly backup unit runs as the bot: the same dynamic user and state directory, the same
hardening, an OK exposure score, and a timer that starts it.

Two units with DynamicUser=yes and the same User= name share one uid (systemd allocates a dynamic
user per name), so neither re-owns /var/lib/zeroquiz from the other; a unit without User= would
get a user named after itself. The hardening is compared directive by directive with the main
unit's, and scored by `systemd-analyze security` where it is installed.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
MAIN = DEPLOY / "zeroquiz.service"
BACKUP = DEPLOY / "zeroquiz-backup.service"
TIMER = DEPLOY / "zeroquiz-backup.timer"
ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze is not installed")

# What differs by the kind of work (a long-running notify service, a oneshot), not by exposure.
OWN = {
    "Type", "NotifyAccess", "TimeoutStartSec", "TimeoutStopSec", "ExecStart", "KillSignal",
    "Restart", "RestartSec", "RestartPreventExitStatus", "EnvironmentFile",
    "LimitNOFILE",  # room for the bot's HTTP connection cap: not hardening, the backup has none
}  # fmt: skip


def directives(unit: Path, section: str = "Service") -> list[tuple[str, str]]:
    """(name, value) of one section, in order, repeated names kept (SystemCallFilter=)."""
    found: list[tuple[str, str]] = []
    current = ""
    for raw in unit.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = line.strip("[]")
            continue
        if current == section:
            name, _, value = line.partition("=")
            found.append((name.strip(), value.strip()))
    return found


def test_the_backup_runs_as_the_bots_user_in_the_bots_state_directory() -> None:
    main, backup = dict(directives(MAIN)), dict(directives(BACKUP))
    for name in ("User", "DynamicUser", "StateDirectory"):
        assert backup.get(name) == main.get(name), name
    assert main["User"] == "zeroquiz" and main["DynamicUser"] == "yes"
    assert backup["Type"] == "oneshot"
    state = f"/var/lib/{main['StateDirectory']}/"
    assert state in backup["ExecStart"] and " backup " in backup["ExecStart"]
    # The database the bot uses: the same variable, the same default, the same secrets file.
    env = [v for n, v in directives(BACKUP) if n == "Environment"]
    assert env == [v for n, v in directives(MAIN) if n == "Environment"]
    assert backup["EnvironmentFile"].lstrip("-") == main["EnvironmentFile"]


def test_the_backup_has_exactly_the_bots_hardening() -> None:
    def hardening(unit: Path) -> list[tuple[str, str]]:
        return sorted((n, v) for n, v in directives(unit) if n not in OWN)

    assert hardening(BACKUP) == hardening(MAIN)


def test_the_timer_starts_the_backup_nightly_and_catches_up() -> None:
    timer = dict(directives(TIMER, "Timer"))
    assert timer["Unit"] == BACKUP.name
    assert timer["OnCalendar"] and timer["Persistent"] == "true"
    assert dict(directives(TIMER, "Install"))["WantedBy"] == "timers.target"


@needs_analyze
def test_the_backup_units_exposure_is_ok() -> None:
    assert ANALYZE is not None
    out = subprocess.run(
        [ANALYZE, "security", "--offline=yes", str(BACKUP)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    line = [x for x in out.stdout.splitlines() if "Overall exposure level" in x]
    assert line, out.stdout + out.stderr
    score, verdict = line[0].split(": ")[1].split()[:2]
    assert float(score) <= 2.0 and verdict == "OK", line[0]


@needs_analyze
def test_the_backup_unit_and_timer_verify_clean(tmp_path: Path) -> None:
    assert ANALYZE is not None
    zeroquiz = Path(sys.executable).parent / "zeroquiz"
    unit = tmp_path / BACKUP.name
    unit.write_text(BACKUP.read_text().replace("/usr/local/bin/zeroquiz", str(zeroquiz)))
    timer = tmp_path / TIMER.name
    timer.write_text(TIMER.read_text())
    out = subprocess.run(
        [ANALYZE, "verify", str(unit), str(timer)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0 and out.stdout + out.stderr == "", out.stdout + out.stderr
