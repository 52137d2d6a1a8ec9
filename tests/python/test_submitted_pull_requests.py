"""get_submitted_pull_requests (POST /v1/getSubmittedPullRequests) from Python, sync and async, and `trunk-api pr
statuses`, against the sandbox: the pull requests found as the single read answers them, the others in
not_found, bare numbers or dicts, and 1..50 checked before anything is sent (docs/reference/service.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

import trunk_api
from trunk_api import Sandbox, ValidationError
from cli_support import Terminal, cli, last_body, sandbox  # noqa: F401  (fixtures are used by name)


@pytest.fixture
def queue_box() -> Iterator[Sandbox]:
    with Sandbox(seed=11, tests=50, clock="virtual", flaky_failure_rate=0.0, broken_pull_request_rate=0.0) as box:
        yield box


def test_found_ones_as_the_single_read_and_the_others_not_found(queue_box):
    client, repo = queue_box.client(), queue_box.repos[0]
    for number in (7, 8):
        client.submit_pull_request(repo, number, "main")
    answer = client.get_submitted_pull_requests(repo, [8, 99, {"number": 7}], "main")
    assert isinstance(answer, trunk_api.SubmittedPullRequests)
    assert [pr.pr_number for pr in answer.pull_requests] == [8, 7]
    assert answer.pull_requests[1] == client.get_submitted_pull_request(repo, 7, "main")
    assert [item.number for item in answer.not_found] == [99]
    assert isinstance(answer.not_found[0], trunk_api.PullRequestNotFound)
    assert answer.to_dict()["notFound"] == [{"number": 99}]


def test_one_to_fifty_are_checked_before_anything_is_sent(queue_box):
    client, repo = queue_box.client(), queue_box.repos[0]
    sent_before = len(queue_box.requests)
    with pytest.raises(ValidationError) as none:
        client.get_submitted_pull_requests(repo, [], "main")
    assert str(none.value) == "prs: []: must hold at least 1 item"
    with pytest.raises(ValidationError) as too_many:
        client.get_submitted_pull_requests(repo, list(range(1, 52)), "main")
    assert "51 items" in str(too_many.value) and "at most 50" in str(too_many.value)
    with pytest.raises(ValidationError) as negative:
        client.get_submitted_pull_requests(repo, [1, -1], "main")
    assert "prs[1].number" in str(negative.value)
    assert len(queue_box.requests) == sent_before
    assert len(client.get_submitted_pull_requests(repo, [1], "main").not_found) == 1
    assert len(client.get_submitted_pull_requests(repo, list(range(1, 51)), "main").not_found) == 50


@pytest.mark.asyncio
async def test_the_async_client_answers_as_the_sync_one(queue_box):
    sync, repo = queue_box.client(), queue_box.repos[0]
    sync.submit_pull_request(repo, 5, "main")
    async with queue_box.async_client() as client:
        assert await client.get_submitted_pull_requests(repo, [5, 6], "main") == sync.get_submitted_pull_requests(
            repo, [5, 6], "main")
        with pytest.raises(ValidationError):
            await client.get_submitted_pull_requests(repo, [], "main")


def test_the_command_line_takes_repeated_numbers(cli, sandbox):
    repo = sandbox.repos[0]
    where = ["--repo", f"{repo.host}/{repo.owner}/{repo.name}", "--branch", "main"]
    assert cli("pr", "submit", *where, "--number", "41").code == 0
    run = cli("pr", "statuses", *where, "--number", "41", "--number", "42")
    assert run.code == 0, run.err
    answer = json.loads(run.out)
    assert [pr["prNumber"] for pr in answer["pullRequests"]] == [41]
    assert answer["notFound"] == [{"number": 42}]
    assert last_body(sandbox, "getSubmittedPullRequests")["prs"] == [{"number": 41}, {"number": 42}]
    table = cli("pr", "statuses", *where, "--number", "41", "--number", "42", stdout=Terminal())
    assert "#41" in table.out and "not found" in table.out and "#42" in table.out
    assert cli("pr", "statuses", *where).code == 2  # --number is required
