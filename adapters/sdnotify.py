"""systemd's readiness protocol (sd_notify): one datagram to $NOTIFY_SOCKET per state change.

A few lines rather than a dependency: the PyPI `sdnotify` package has had no release since 2017,
and `systemd-python` needs libsystemd's headers to build. The protocol is a text datagram on an
AF_UNIX socket whose path is given (a leading "@" names an abstract socket).
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Mapping

log = logging.getLogger(__name__)


def notify(message: str, env: Mapping[str, str]) -> bool:
    """Send `message` (e.g. "READY=1") if NOTIFY_SOCKET is set; whether it was sent. Never raises:
    a supervisor that went away must not stop the bot."""
    target = env.get("NOTIFY_SOCKET", "")
    if not target:
        return False
    address = "\0" + target[1:] if target.startswith("@") else target
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall(message.encode())
    except OSError as exc:
        log.warning("could not notify systemd (%s): %s", message, exc)
        return False
    return True
