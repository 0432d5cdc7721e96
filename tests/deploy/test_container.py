"""The container image's contract, checked from deploy/Dockerfile and deploy/compose.yaml.

No container engine can build or run the image on the development machine (no base image can be
pulled, and crun may not set rlimits there), so these tests read the files an engine would read
and hold them to what the README promises: `zeroquiz` as the entry point, a non-root user, the
database on the /data volume, secrets only from the environment, and a health check that calls
/healthz. The health check's command itself is run for real against a local HTTP server.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
COMPOSE = ROOT / "deploy" / "compose.yaml"
SECRET_NAMES = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|API_KEY", re.IGNORECASE)
SECRET_VALUES = re.compile(r"xox[abp]-|xapp-|postgres(ql)?://[^@\s]*:[^@\s]*@")


@dataclass(frozen=True)
class Instruction:
    keyword: str
    args: str

    def exec_form(self) -> list[str]:
        """The JSON array of an exec-form ENTRYPOINT/CMD/HEALTHCHECK CMD; fails on shell form."""
        value = json.loads(self.args)
        assert isinstance(value, list) and all(isinstance(v, str) for v in value), self
        return value


def instructions(text: str) -> list[Instruction]:
    """Dockerfile lines with comments dropped and backslash continuations joined.

    The Dockerfile is ours and simple (no heredocs, no escape directive), so this subset of the
    syntax is all it needs; a construct outside it would show up as a failing assertion below.
    """
    joined: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        joined.append(pending + line)
        pending = ""
    assert not pending, "the Dockerfile ends inside a continued line"
    out = []
    for line in joined:
        keyword, _, args = line.partition(" ")
        out.append(Instruction(keyword.upper(), " ".join(args.split())))
    return out


def final_stage(parsed: list[Instruction]) -> list[Instruction]:
    """What the image runs with: everything after the last FROM."""
    starts = [i for i, ins in enumerate(parsed) if ins.keyword == "FROM"]
    assert starts, "no FROM"
    return parsed[starts[-1] :]


def env_of(stage: list[Instruction]) -> dict[str, str]:
    env: dict[str, str] = {}
    for ins in stage:
        if ins.keyword == "ENV":
            for pair in ins.args.split():
                name, sep, value = pair.partition("=")
                assert sep, f"ENV {ins.args!r}: use the NAME=value form"
                env[name] = value
    return env


@pytest.fixture(scope="module")
def parsed() -> list[Instruction]:
    return instructions(DOCKERFILE.read_text())


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(data, dict)
    return data


def the_service(compose: dict[str, Any]) -> dict[str, Any]:
    services = compose["services"]
    assert list(services) == ["zeroquiz"]
    service = services["zeroquiz"]
    assert isinstance(service, dict)
    return service


def test_the_image_runs_zeroquiz_serve(parsed: list[Instruction]) -> None:
    stage = final_stage(parsed)
    (entry,) = [ins for ins in stage if ins.keyword == "ENTRYPOINT"]
    (cmd,) = [ins for ins in stage if ins.keyword == "CMD"]
    assert entry.exec_form() == ["zeroquiz"]
    assert cmd.exec_form() == ["serve"]
    assert [ins.args for ins in stage if ins.keyword == "STOPSIGNAL"] == ["SIGTERM"]


def test_the_image_runs_as_a_non_root_user(parsed: list[Instruction]) -> None:
    users = [ins.args for ins in final_stage(parsed) if ins.keyword == "USER"]
    assert users, "no USER: the bot would run as root"
    user, _, group = users[-1].partition(":")
    assert user not in ("0", "root", "") and group not in ("0", "root")
    # The uid is created in the image (a bare number with no passwd entry confuses tools).
    assert any(
        ins.keyword == "RUN" and f"--uid {user}" in ins.args for ins in final_stage(parsed)
    ), f"uid {user} is never created"


def test_the_database_lives_on_the_data_volume(parsed: list[Instruction]) -> None:
    stage = final_stage(parsed)
    volumes = [v for ins in stage if ins.keyword == "VOLUME" for v in json.loads(ins.args)]
    assert volumes == ["/data"]
    assert env_of(stage)["ZEROQUIZ_DB"] == "/data/zeroquiz.sqlite3"
    # A fresh named volume takes the ownership of the image's /data, so it must be the user's.
    run = " ".join(ins.args for ins in stage if ins.keyword == "RUN")
    assert "mkdir /data" in run and "chown zeroquiz:zeroquiz /data" in run


def test_no_secret_is_baked_into_the_image(parsed: list[Instruction]) -> None:
    for ins in parsed:
        if ins.keyword in ("ENV", "ARG", "LABEL"):
            assert not SECRET_NAMES.search(ins.args), f"{ins.keyword} {ins.args}"
        assert not SECRET_VALUES.search(ins.args), f"{ins.keyword} {ins.args}"
    copied = " ".join(ins.args for ins in parsed if ins.keyword in ("COPY", "ADD"))
    assert ".env" not in copied


def test_the_ports_are_exposed_and_listened_on(parsed: list[Instruction]) -> None:
    stage = final_stage(parsed)
    env = env_of(stage)
    exposed = {p for ins in stage if ins.keyword == "EXPOSE" for p in ins.args.split()}
    assert exposed == {env["ZEROQUIZ_HTTP_PORT"], env["ZEROQUIZ_METRICS_PORT"]}
    assert env["ZEROQUIZ_METRICS_PORT"] == "9100"
    # 127.0.0.1 inside a container is unreachable through a published port.
    assert env["ZEROQUIZ_HTTP_HOST"] == "0.0.0.0"


def test_the_build_copies_everything_the_package_needs(parsed: list[Instruction]) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    needed = {project["project"]["readme"], *project["project"]["license-files"]}
    needed.add("pyproject.toml")
    for pattern in project["tool"]["setuptools"]["packages"]["find"]["include"]:
        needed.add(pattern.rstrip("*"))
    copied: set[str] = set()
    for ins in parsed:
        if ins.keyword == "COPY" and not ins.args.startswith("--from"):
            copied.update(s.rstrip("/").removeprefix("./") for s in ins.args.split()[:-1])
    assert needed <= copied, f"not copied into the build: {sorted(needed - copied)}"
    lines = (ROOT / ".dockerignore").read_text().splitlines()
    ignore = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    assert ignore[0] == "**", "the context must be deny-by-default"
    kept = {line.removeprefix("!").removesuffix("/**") for line in ignore if line.startswith("!")}
    assert copied <= kept, f"copied but excluded by .dockerignore: {sorted(copied - kept)}"
    assert "**/*.env" in ignore and "**/*.sqlite3" in ignore


def healthcheck_command(parsed: list[Instruction]) -> list[str]:
    (check,) = [ins for ins in final_stage(parsed) if ins.keyword == "HEALTHCHECK"]
    options, sep, command = check.args.partition(" CMD ")
    assert sep, "HEALTHCHECK without CMD"
    for option in ("--interval=", "--timeout=", "--start-period="):
        assert option in options
    return Instruction("CMD", command).exec_form()


class Health(BaseHTTPRequestHandler):
    status = 200

    def do_GET(self) -> None:
        self.send_response(self.status if self.path == "/healthz" else 404)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def health_server() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Health)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def run_check(command: list[str], port: int) -> int:
    assert command[0] == "python"
    env = {**os.environ, "ZEROQUIZ_METRICS_PORT": str(port)}
    done = subprocess.run([sys.executable, *command[1:]], env=env, capture_output=True, timeout=30)
    return done.returncode


def test_the_health_check_calls_healthz_on_the_metrics_port(
    parsed: list[Instruction], health_server: ThreadingHTTPServer
) -> None:
    command = healthcheck_command(parsed)
    assert "/healthz" in command[-1] and "127.0.0.1" in command[-1]
    port = health_server.server_address[1]
    assert run_check(command, port) == 0
    Health.status = 503
    try:
        assert run_check(command, port) != 0, "an unhealthy answer passed the health check"
    finally:
        Health.status = 200
    health_server.server_close()
    assert run_check(command, port) != 0, "nothing listening passed the health check"


def test_compose_keeps_the_database_on_a_named_volume(compose: dict[str, Any]) -> None:
    service = the_service(compose)
    mounts = [str(v).split(":") for v in service["volumes"]]
    assert len(mounts) == 1
    source, target = mounts[0][0], mounts[0][1]
    assert target == "/data"
    assert source in compose["volumes"], f"{source} is a bind mount, not a named volume"
    build = service["build"]
    assert (COMPOSE.parent / build["context"]).resolve() == ROOT
    assert (ROOT / build["dockerfile"]).resolve() == DOCKERFILE


def test_compose_takes_secrets_from_an_env_file_only(compose: dict[str, Any]) -> None:
    service = the_service(compose)
    assert service["env_file"] == ["zeroquiz.env"]
    environment = service.get("environment", {})
    names = list(environment) if isinstance(environment, dict) else environment
    assert not [n for n in names if SECRET_NAMES.search(str(n))]
    assert not SECRET_VALUES.search(COMPOSE.read_text())
    example = COMPOSE.parent / "zeroquiz.env.example"
    for line in example.read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.partition("=")
            assert value == "", f"{name} has a value in the example"
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", "deploy/zeroquiz.env"], cwd=ROOT, timeout=30
    )
    assert ignored.returncode == 0, "deploy/zeroquiz.env would be committed"


def test_compose_publishes_only_exposed_ports(
    compose: dict[str, Any], parsed: list[Instruction]
) -> None:
    exposed = {
        p for ins in final_stage(parsed) if ins.keyword == "EXPOSE" for p in ins.args.split()
    }
    published = {str(p).rsplit(":", 1)[-1] for p in the_service(compose)["ports"]}
    assert published <= exposed
