"""listPullRequests' `until` (v1's documented addition) from Python and the command line against the sandbox: only
pull requests concluded at or before it, only sent when given (docs/reference/service.md)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest

from trunk_api import PullRequestState, Sandbox
from cli_support import cli, last_body, sandbox  # noqa: F401  (fixtures are used by name)

NOW = datetime(2026, 11, 20, 12, 0, 0, tzinfo=timezone.utc)


@pytest.fixture
def queue_box() -> Iterator[Sandbox]:
    with Sandbox(seed=11, tests=50, now=NOW, clock="virtual", flaky_failure_rate=0.0,
                 broken_pull_request_rate=0.0) as box:
        yield box


def test_until_keeps_what_concluded_at_or_before_it(queue_box):
    client, repo = queue_box.client(), queue_box.repos[0]
    client.submit_pull_request(repo, 1, "main")
    queue_box.advance(hours=4)
    merged = client.get_submitted_pull_request(repo, 1, "main")
    assert merged.state == PullRequestState.MERGED
    concluded = merged.state_changed_at

    def numbers(**filters) -> list[int]:
        return [pr.pr_number for pr in client.iter_pull_requests(repo, "main", **filters)]

    assert numbers(until=concluded) == [1]  # inclusive
    assert numbers(until=concluded - timedelta(seconds=1)) == []
    assert numbers(since=concluded - timedelta(seconds=1), until=concluded) == [1]
    assert client.list_pull_requests(repo, "main", until=concluded + timedelta(hours=1)).pull_requests[0].pr_number == 1
    assert [r.body for r in queue_box.requests if r.path.endswith("listPullRequests")][-1]["until"]
    client.list_pull_requests(repo, "main")
    assert "until" not in [r.body for r in queue_box.requests if r.path.endswith("listPullRequests")][-1]


def test_the_command_line_sends_until(cli, sandbox):
    repo = sandbox.repos[0]
    run = cli("pr", "list", "--repo", f"{repo.host}/{repo.owner}/{repo.name}", "--branch", "main",
              "--until", "2020-01-01T00:00:00Z", "--format", "ndjson")
    assert run.code == 0, run.err
    assert run.ndjson() == []
    assert last_body(sandbox, "listPullRequests")["until"].startswith("2020-01-01T00:00:00")
