"""Who holds a shard lease, named so that a process on the same machine can tell whether the
holder still runs.

A holder is this process: host name and pid for people, and for the check the kernel's boot id,
the pid namespace and the process's start time. Where those three match, `/proc/<pid>` says for
certain whether the holder is alive, so a restart after a crash (systemd, a shell) takes its
shards over at once instead of waiting for the lease to expire. Anywhere else (another machine or
container, no /proc) nobody can tell, and the lease's expiry decides.
"""

from __future__ import annotations

import os
import secrets
import socket
from pathlib import Path
from typing import NamedTuple

PROC = Path("/proc")


class Holder(NamedTuple):
    host: str
    pid: int
    started: str  # the process's start time in clock ticks since boot ("" when unknown)
    boot: str  # the kernel's boot id ("" when unknown)
    pidns: str  # the pid namespace, as /proc/self/ns/pid names it ("" when unknown)
    nonce: str  # tells apart two holders in one process (tests run several bots)

    @property
    def token(self) -> str:
        fields = ("host", "pid", "started", "boot", "pidns", "nonce")
        return " ".join(f"{name}={getattr(self, name)}" for name in fields)

    @classmethod
    def parse(cls, token: str) -> Holder | None:
        fields = dict(part.partition("=")[::2] for part in token.split())
        try:
            return cls(
                host=fields["host"],
                pid=int(fields["pid"]),
                started=fields["started"],
                boot=fields["boot"],
                pidns=fields["pidns"],
                nonce=fields["nonce"],
            )
        except (KeyError, ValueError):
            return None

    @property
    def where(self) -> str:
        return f"{self.host} pid {self.pid}"


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def _stat(pid: int | str) -> tuple[str, str] | None:
    """(state, start time) of a process from /proc/<pid>/stat, or None if there is none."""
    text = _read(PROC / str(pid) / "stat")
    fields = text.rpartition(")")[2].split()  # the command name may hold spaces or parentheses
    if len(fields) < 20:
        return None
    return fields[0], fields[19]


def _pidns() -> str:
    try:
        return os.readlink(PROC / "self" / "ns" / "pid")
    except OSError:
        return ""


def this_process() -> Holder:
    stat = _stat("self")
    return Holder(
        host=socket.gethostname().replace(" ", "_") or "unknown",
        pid=os.getpid(),
        started=stat[1] if stat else "",
        boot=_read(PROC / "sys" / "kernel" / "random" / "boot_id"),
        pidns=_pidns(),
        nonce=secrets.token_hex(4),
    )


def alive(holder: Holder, here: Holder) -> bool | None:
    """Whether `holder` still runs, when `here` (this process) can tell; None when it can't."""
    if not (holder.boot and holder.pidns and holder.started):
        return None
    if (holder.boot, holder.pidns) != (here.boot, here.pidns):
        return None
    stat = _stat(holder.pid)
    if stat is None:
        return False
    state, started = stat
    return started == holder.started and state not in ("Z", "X")  # a zombie has ended
