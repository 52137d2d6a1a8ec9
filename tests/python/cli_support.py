"""Shared fixtures and helpers of the trunk-api command-line tests (test_cli*.py).

`sandbox` here is a module-scoped sandbox of the CLI tests (its clock is the wall clock, since `--since`
windows end now); it overrides conftest's session sandbox in the modules that import it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import os
import shutil
import subprocess
import socket
import sys
import sysconfig
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from trunk_api import Sandbox
from trunk_api.cli import main

from conftest import ensure_queue

__all__ = ["WRONG_TOKEN", "Run", "Terminal", "cli", "expected_failing_ids", "free_port_nobody_listens_on",
           "installed_script", "last_body", "one_line_error", "program_env", "queue_args", "read_banner", "sandbox",
           "sandbox_command", "target", "window"]

WRONG_TOKEN = "cli-test-wrong-token-7f3a9"


class Terminal(io.StringIO):
    """A StringIO that says it is a terminal (to test the table default and the progress line)."""

    def isatty(self) -> bool:
        return True


class Run:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def lines(self) -> list[str]:
        return [line for line in self.out.splitlines() if line]

    def ndjson(self) -> list[dict]:
        return [json.loads(line) for line in self.lines()]


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(seed=5, tests=600) as sb:
        yield sb


@pytest.fixture()
def cli(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch):
    """Runs main(argv) with the sandbox's address and token in the environment (as users configure it) and
    checks that the token appears in neither stdout nor stderr."""
    monkeypatch.setenv("TRUNK_BASE_URL", sandbox.url)
    monkeypatch.setenv("TRUNK_API_TOKEN", sandbox.token)
    monkeypatch.delenv("TRUNK_API_KEY", raising=False)

    def run(*argv: str, stdout: io.StringIO | None = None, stderr: io.StringIO | None = None) -> Run:
        out = stdout if stdout is not None else io.StringIO()
        err = stderr if stderr is not None else io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(argv))
        result = Run(code, out.getvalue(), err.getvalue())
        for secret in (sandbox.token, WRONG_TOKEN):
            assert secret not in result.out and secret not in result.err
        assert "Traceback" not in result.err, result.err
        return result

    return run


@pytest.fixture()
def target(sandbox: Sandbox) -> list[str]:
    repo = sandbox.repos[0]
    return ["--repo", f"{repo.host}/{repo.owner}/{repo.name}", "--org", sandbox.org_url_slug]


def window(sandbox: Sandbox, hours: float = 24) -> list[str]:
    end = sandbox.now
    return ["--start", (end - dt.timedelta(hours=hours)).isoformat(), "--end", end.isoformat()]


def last_body(sandbox: Sandbox, path_end: str) -> dict:
    bodies = [r.body for r in sandbox.requests if r.path.endswith(path_end)]
    assert bodies, f"no request to {path_end}"
    return bodies[-1]


def expected_failing_ids(sandbox: Sandbox, hours: float = 24) -> list[str]:
    end = sandbox.now
    tests = sandbox.client().iter_failing_tests(sandbox.repos[0], sandbox.org_url_slug,
                                                end - dt.timedelta(hours=hours), end)
    return [t.id for t in tests]


def one_line_error(run: Run) -> str:
    lines = run.err.strip().splitlines()
    assert len(lines) == 1, run.err
    assert lines[0].startswith("trunk-api")
    return lines[0]


def free_port_nobody_listens_on() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def program_env(sandbox: Sandbox, token: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUNK_")}
    env.update(TRUNK_BASE_URL=sandbox.url, TRUNK_API_TOKEN=token)
    return env


def installed_script() -> Path:
    """Where `pip install .` put the trunk-api console script (this interpreter's scripts directory)."""
    candidates = [Path(sysconfig.get_path("scripts")) / "trunk-api", Path(sys.executable).with_name("trunk-api")]
    found = shutil.which("trunk-api")
    if found:
        candidates.append(Path(found))
    for candidate in candidates:
        if candidate.exists():
            return candidate
    raise AssertionError(f"pip install . should have installed the trunk-api script (looked in {candidates})")


def queue_args(sandbox: Sandbox, branch: str) -> list[str]:
    """`queue update` of `branch`, whose queue is created first when it has none (only main has one)."""
    repo = sandbox.repos[0]
    ensure_queue(sandbox, repo, branch)
    return ["queue", "update", "--repo", f"{repo.host}/{repo.owner}/{repo.name}", "--branch", branch]


def read_banner(process: subprocess.Popen[str]) -> dict[str, str]:
    """What `trunk-api sandbox` prints before it serves: its exports (TRUNK_BASE_URL, TRUNK_API_TOKEN,
    TRUNK_API_KEY), its v2 API key, its first repository and its org."""
    assert process.stdout is not None
    printed: dict[str, str] = {}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        assert line, "the sandbox command ended early: " + (process.stderr.read() if process.stderr else "")
        if line.startswith("export "):
            name, value = line[len("export "):].strip().split("=", 1)
            printed[name] = value
        elif line.startswith("repo:"):
            printed.setdefault("repo", line.split()[1])
        elif line.startswith("org:"):
            printed["org"] = line.split()[1]
        elif line.startswith("api key (v2):"):  # the key v2's clients send as a bearer token
            printed["v2_api_key"] = line.split(":", 1)[1].strip()
        elif line.startswith("webhook:"):  # webhook: <id> <url> secret <whsec_...>
            printed.setdefault("webhook_secret", line.split()[4])
        if line.startswith("Press Ctrl-C"):
            break
    return printed


@contextlib.contextmanager
def sandbox_command(*args: str) -> Iterator[subprocess.Popen[str]]:
    """`trunk-api sandbox ARGS` as a child process; killed on the way out if the test did not stop it."""
    process = subprocess.Popen([sys.executable, "-m", "trunk_api", "sandbox", *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
