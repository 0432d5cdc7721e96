"""What a PostgreSQL failure at start-up says to an operator, in one line without secrets.

asyncpg's own messages can quote the connection string's parts; these are written from the
error's kind alone, so the password never reaches a log.
"""

from __future__ import annotations

import asyncpg

from bot.storage.engine import DB_TIMEOUTS


def pg_problem(exc: BaseException, seconds: float = DB_TIMEOUTS.connect) -> str | None:
    """The problem, or None when the error says nothing about the database (a bug); `seconds`:
    the connect timeout a TimeoutError ran out."""
    if isinstance(exc, asyncpg.InvalidPasswordError):
        return "refused the user name or password in the URL (check them, or the server's roles)"
    if isinstance(exc, asyncpg.InvalidAuthorizationSpecificationError):
        return "refused the connection (pg_hba.conf has no entry for this user, host or database)"
    if isinstance(exc, asyncpg.InvalidCatalogNameError):
        return "has no such database: create it first (createdb), or fix the URL's database name"
    if isinstance(exc, asyncpg.InsufficientPrivilegeError):
        return "refused ZeroQuiz the right to create or change its tables (grant it on the schema)"
    if isinstance(exc, asyncpg.ReadOnlySQLTransactionError):
        return "only accepts reads (a standby, or default_transaction_read_only is on)"
    if isinstance(exc, asyncpg.TooManyConnectionsError):
        return "has no connection slot left (max_connections)"
    if isinstance(exc, TimeoutError):
        return f"did not answer within {seconds:g} s"
    if isinstance(exc, ConnectionRefusedError):
        return "cannot be reached: nothing listens at that host and port"
    if isinstance(exc, OSError):
        return f"cannot be reached ({exc.strerror or type(exc).__name__})"
    if isinstance(exc, asyncpg.PostgresError):
        code = getattr(exc, "sqlstate", "") or ""
        return f"failed with PostgreSQL error {code} ({type(exc).__name__})"
    if isinstance(exc, asyncpg.InterfaceError | asyncpg.ClientConfigurationError):
        return "could not be used: check the URL's form (postgresql://user:password@host/db)"
    return None


def pg_transient(exc: BaseException) -> bool:
    """Whether trying again later may work (the server is down, slow or full), as opposed to a
    setting that is wrong (password, database name, rights)."""
    return isinstance(exc, TimeoutError | OSError | asyncpg.TooManyConnectionsError)
