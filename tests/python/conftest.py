"""Shared fixtures: one sandbox for the whole session (fixed clock, so the data is the same every run) and
clients pointed at it. Tests that need faults start their own small sandbox."""

from __future__ import annotations

import contextlib
import io

import signal
from collections.abc import Iterator
from pathlib import Path
from datetime import datetime, timedelta, timezone

import pytest

import trunk_api

NOW = datetime(2026, 11, 20, 12, 0, 0, tzinfo=timezone.utc)
WEEK_START = NOW - timedelta(days=7)
SANDBOX_TOKEN = "tok-SECRET-5f2b9c1e-do-not-leak"


def ensure_queue(box: trunk_api.Sandbox, repo: trunk_api.Repo, branch: str) -> str:
    """Creates the merge queue of `branch` unless it exists (only main has one from the start) and returns the
    branch, so a test can use a queue of its own in the shared sandbox. The sandbox's request record is cleared
    afterwards: call it first, and the record holds only what the test sends."""
    try:
        box.client().create_queue(repo, branch)
    except trunk_api.ConflictError:
        pass
    box.clear_requests()
    return branch


def virtual_sandbox(seed: int) -> trunk_api.Sandbox:
    """A sandbox of a v2 module's own, on the virtual clock with neither flaky nor broken runs, so every state a test
    reaches is reached on purpose (use it as a context manager)."""
    return trunk_api.Sandbox(seed=seed, tests=60, clock="virtual", flaky_failure_rate=0.0, broken_pull_request_rate=0.0)


def run_v2_cli(monkeypatch: pytest.MonkeyPatch, box: trunk_api.Sandbox, *args: str) -> tuple[int, str, str]:
    """`trunk-api ARGS` run in this process against the sandbox with its API key: (exit code, stdout, stderr)."""
    from trunk_api.cli import main

    monkeypatch.setenv("TRUNK_BASE_URL", box.url)
    monkeypatch.setenv("TRUNK_API_KEY", box.api_key)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def main_queue_of(client: trunk_api.Client, repo: trunk_api.Repo) -> trunk_api.MergeQueue:
    """The v2 merge queue of `repo`'s main branch, found as a v2 caller finds it: by address."""
    repository = client.v2.repositories.resolve_page(f"https://{repo}").data[0]
    return next(q for q in client.v2.merge_queues.list(repository_id=repository.id) if q.target_branch == "main")


@pytest.fixture
def sigint_as_in_a_terminal() -> Iterator[None]:
    """SIGINT as a program started from an interactive shell has it: Python's default handler
    (KeyboardInterrupt) in this process, and the default action in the programs it starts.

    A shell that starts the suite in the background (`scripts/test &`, `nohup scripts/test &`, CI runners)
    makes it ignore SIGINT, and an ignored signal stays ignored across fork and exec: a Ctrl-C test would then
    test how the suite was started rather than the library. Setting the handler here is enough for the children
    too, because exec resets a handled signal to its default action (POSIX), so every program a test starts
    begins as if typed at a prompt, with no code added to it; preexec_fn, the other way, is unsafe in a
    process with threads (the sandboxes' server threads run here)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.fixture(scope="session")
def sandbox() -> Iterator[trunk_api.Sandbox]:
    with trunk_api.Sandbox(seed=7, tests=600, now=NOW, token=SANDBOX_TOKEN) as box:
        yield box


@pytest.fixture
def box(sandbox: trunk_api.Sandbox) -> trunk_api.Sandbox:
    """The session sandbox with an empty request record and no faults."""
    sandbox.set_faults(latency_ms=0, jitter_ms=0, error_rate=0, rate_limit=0, drop_rate=0, truncate_rate=0)
    sandbox.clear_requests()
    return sandbox


@pytest.fixture
def client(box: trunk_api.Sandbox) -> trunk_api.Client:
    return box.client()


@pytest.fixture
def repo(box: trunk_api.Sandbox) -> trunk_api.Repo:
    return box.repos[0]


@pytest.fixture()
def acme(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[trunk_api.Sandbox]:
    """A sandbox serving the organization "acme", with the environment the README's and the docs' blocks are
    written for (``Client()`` works as written); blocks that write files write them in a temporary directory."""
    with trunk_api.Sandbox(org_url_slug="acme", tests=800) as sandbox:
        monkeypatch.setenv("TRUNK_API_TOKEN", sandbox.token)
        monkeypatch.setenv("TRUNK_BASE_URL", sandbox.url)
        monkeypatch.delenv("TRUNK_API_KEY", raising=False)
        monkeypatch.chdir(tmp_path)
        yield sandbox


@contextlib.contextmanager
def a_teams_week_sandbox() -> Iterator[tuple[trunk_api.Sandbox, str]]:
    """A sandbox that played a team's service for eight simulated days (the twin's tests): Poisson arrivals of 2.5
    an hour, CI of 10 or 30 minutes, 8 % broken pull requests, 5 % flaky runs, two pull requests tested at once.
    Yields the sandbox and its main queue's v2 id."""
    from trunk_api.sandbox import Arrivals, EmpiricalRunDuration

    # A fixed start: the same seed and start, the same week (the virtual clock otherwise starts at the wall clock).
    with trunk_api.Sandbox(seed=5, tests=60, clock="virtual", now=datetime(2026, 10, 5, tzinfo=timezone.utc)) as box:
        client = box.client()
        repo = box.repos[0]
        queue = main_queue_of(client, repo)
        client.v2.merge_queues.update_config(queue.id, concurrency=2)
        box.set_queue_controls(repo, run_duration=EmpiricalRunDuration([10] * 7 + [30] * 3), flaky_run_rate=0.05,
                               broken_pull_request_rate=0.08, arrivals=Arrivals.poisson(2.5, first_number=1000))
        box.advance(hours=24 * 8)
        yield box, queue.id
