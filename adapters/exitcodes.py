"""What `zeroquiz`'s exit status tells a supervisor (systemd, Docker, Kubernetes) to do.

The numbers are sysexits.h's: 78 (EX_CONFIG) means a setting is wrong and restarting with it
won't help (the unit's `RestartPreventExitStatus=78`); 75 (EX_TEMPFAIL) means something outside
went away (a platform connection lost for good, a database server not answering) and a restart
may well work. 2 stays argparse's: the command line itself is wrong. 141 is what a shell reports
for a program SIGPIPE stopped: the reader of its output (`| head`) went away before the end.
"""

from __future__ import annotations

from bot.storage import DatabaseUnreachable, StorageError

OK = 0
EX_USAGE = 2
EX_TEMPFAIL = 75
EX_CONFIG = 78
EX_PIPE = 141  # 128 + SIGPIPE, as `cat` would end in `cat big | head`


def storage_exit(exc: StorageError) -> int:
    """A database server that did not answer is transient; every other database fault is not."""
    return EX_TEMPFAIL if isinstance(exc, DatabaseUnreachable) else EX_CONFIG
