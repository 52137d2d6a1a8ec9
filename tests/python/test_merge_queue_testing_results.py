"""list_merge_queue_testing_results (POST /v1/listMergeQueueTestingResults) from Python, sync and async, and
`trunk-api queue testing-results`, against the sandbox on its virtual clock: each entry a run that
get_merge_queue_testing_details describes, newest first, offset and take windowing them with the total, and
take 1..100 and offset 0 or more checked at their edges before anything is sent
(docs/reference/service.md#list-merge-queue-testing-results)."""

from __future__ import annotations

import datetime as dt
import json

import pytest

import trunk_api
from trunk_api import ValidationError
from cli_support import Terminal, cli, last_body, sandbox  # noqa: F401  (fixtures are used by name)
from conftest import virtual_sandbox


@pytest.fixture(scope="module")
def tested():
    """Three pull requests submitted through v1 and tested to the end three hours later; the sandbox, the client
    and the instant before they were submitted."""
    with virtual_sandbox(seed=13) as box:
        client, repo = box.client(), box.repos[0]
        start = box.now
        for number in (51, 52, 53):
            client.submit_pull_request(repo, number, "main")
        box.advance(hours=3)
        yield box, client, start


def test_each_result_is_a_run_the_details_describe_newest_first(tested):
    box, client, start = tested
    repo = box.repos[0]
    answer = client.list_merge_queue_testing_results(repo, "main", start)
    assert isinstance(answer, trunk_api.MergeQueueTestingResults)
    assert answer.results and answer.total == len(answer.results)
    ended = [result.ended_at for result in answer.results]
    assert ended == sorted(ended, reverse=True)
    for result in answer.results:
        assert isinstance(result, trunk_api.MergeQueueTestingResult)
        details = client.get_merge_queue_testing_details(repo, "main", result.test_run_id)
        assert result.pr_number in [pr["number"] for pr in details.tested_pull_requests]
    assert {result.pr_number for result in answer.results} == {51, 52, 53}
    assert answer.to_dict()["results"][0]["testRunId"] == answer.results[0].test_run_id


def test_offset_and_take_window_the_results(tested):
    box, client, start = tested
    repo = box.repos[0]
    everything = client.list_merge_queue_testing_results(repo, "main", start)
    second = client.list_merge_queue_testing_results(repo, "main", start, offset=1, take=1)
    assert second.results == everything.results[1:2] and second.total == everything.total
    assert client.list_merge_queue_testing_results(repo, "main", start, until=start).total == 0
    body = last_body(box, "listMergeQueueTestingResults")
    assert set(body) == {"repo", "targetBranch", "since", "until", "take"}  # offset was not given: not sent


def test_take_and_offset_are_checked_at_their_edges_before_anything_is_sent(tested):
    box, client, start = tested
    repo = box.repos[0]
    sent_before = len(box.requests)
    for take in (0, 101):
        with pytest.raises(ValidationError) as refused:
            client.list_merge_queue_testing_results(repo, "main", start, take=take)
        assert str(refused.value).startswith(f"take: {take}: ")
    with pytest.raises(ValidationError) as negative:
        client.list_merge_queue_testing_results(repo, "main", start, offset=-1)
    assert str(negative.value).startswith("offset: -1: ")
    assert len(box.requests) == sent_before
    for take in (1, 100):
        assert client.list_merge_queue_testing_results(repo, "main", start, take=take).total >= 3
    assert client.list_merge_queue_testing_results(repo, "main", start, offset=0).total >= 3
    with pytest.raises(TypeError):
        client.list_merge_queue_testing_results(repo, "main")  # since is required


@pytest.mark.asyncio
async def test_the_async_client_answers_as_the_sync_one(tested):
    box, client, start = tested
    repo = box.repos[0]
    async with box.async_client() as async_client:
        assert (await async_client.list_merge_queue_testing_results(repo, "main", start, take=2)
                == client.list_merge_queue_testing_results(repo, "main", start, take=2))
        with pytest.raises(ValidationError):
            await async_client.list_merge_queue_testing_results(repo, "main", start, take=0)


def test_the_command_line_lists_a_window_and_its_total(cli, sandbox):
    repo = sandbox.repos[0]
    where = ["--repo", f"{repo.host}/{repo.owner}/{repo.name}", "--branch", "main"]
    since = (sandbox.now - dt.timedelta(days=2)).isoformat().replace("+00:00", "Z")
    run = cli("queue", "testing-results", *where, "--since", since, "--take", "5")
    assert run.code == 0, run.err
    answer = json.loads(run.out)
    assert set(answer) >= {"results", "total"} and len(answer["results"]) <= 5
    assert last_body(sandbox, "listMergeQueueTestingResults")["take"] == 5
    table = cli("queue", "testing-results", *where, "--since", since, stdout=Terminal())
    assert table.code == 0 and "total:" in table.out and "TEST RUN" in table.out
    assert cli("queue", "testing-results", *where, "--since", since, "--take", "0").code != 0
    assert cli("queue", "testing-results", *where).code == 2  # --since is required
