"""Shared fixtures: one sandbox for the whole session (fixed clock, so the data is the same every run) and
clients pointed at it. Tests that need faults start their own small sandbox."""

from __future__ import annotations

from collections.abc import Iterator
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


@pytest.fixture(scope="session")
def sandbox() -> Iterator[trunk_api.Sandbox]:
    with trunk_api.Sandbox(seed=7, tests=600, now=NOW, token=SANDBOX_TOKEN, switching_modes_seconds=0.3) as box:
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
