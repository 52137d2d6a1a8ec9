"""v2's verification runs, queue-entry history and metrics from Python (docs/reference/v2.md): sync, async and
the command line, over the sandbox's queue simulations on its virtual clock."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json

import pytest

import trunk_api
from trunk_api import NotFoundError, ValidationError
from trunk_api.enums import HistoryDirection, QueueEntryState, VerificationRunStatus

from conftest import main_queue_of, virtual_sandbox


@pytest.fixture(scope="module")
def box():
    with virtual_sandbox(seed=7) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def merged(box):
    """Pull request 201 submitted through v2 and merged three hours later; its queue and the client."""
    client = box.client()
    queue = main_queue_of(client, box.repos[0])
    pr = client.v2.merge_queues.submit_pull_request(queue.id, 201)
    box.advance(hours=3)
    return client, queue, pr


def test_the_runs_of_a_queue_and_of_a_pull_request(merged) -> None:
    client, queue, pr = merged
    runs = list(client.v2.merge_queues.list_verification_runs(queue.id))
    assert len(runs) == 1 and runs[0].status == VerificationRunStatus.SUCCEEDED
    assert [p.id for p in runs[0].tested_pull_requests] == [pr.id]
    assert client.v2.verification_runs.get(runs[0].id) == runs[0]
    assert list(client.v2.pull_requests.list_verification_runs(pr.id)) == runs
    assert list(client.v2.merge_queues.list_verification_runs(queue.id, status=VerificationRunStatus.FAILED)) == []
    with pytest.raises(NotFoundError) as missing:
        client.v2.verification_runs.get("nosuchrun")
    assert missing.value.code == "VERIFICATION_RUN_NOT_FOUND"
    table = client.v2.merge_queues.list_verification_runs(queue.id).to_arrow()
    assert table.num_rows == 1 and "status" in table.column_names


def test_the_history_of_one_and_of_several(merged) -> None:
    client, _, pr = merged
    states = [t.state for t in client.v2.pull_requests.queue_entry_history(pr.id)]
    assert states == [QueueEntryState.NOT_READY, QueueEntryState.PENDING, QueueEntryState.TESTING,
                      QueueEntryState.TESTS_PASSED, QueueEntryState.MERGED]
    newest = [t.state for t in client.v2.pull_requests.queue_entry_history(pr.id, direction=HistoryDirection.NEWEST)]
    assert newest == states[::-1]
    unknown = "00000000-0000-4000-8000-000000000000"
    groups = list(client.v2.pull_requests.queue_entry_history_batch([pr.id, unknown]))
    assert [(g.pull_request_id, len(g.transitions)) for g in groups] == [(pr.id, 5), (unknown, 0)]
    for bad in ([pr.id] * 51, [], ["201"]):
        with pytest.raises(ValidationError):
            client.v2.pull_requests.queue_entry_history_batch_page(bad)


def test_metrics_of_the_organization_and_of_a_queue(merged) -> None:
    client, queue, _ = merged
    one = client.v2.merge_queues.metrics(queue.id)
    assert one.gauge("mq_depth_current", branch="main", queue_type="main") == 0
    every = client.v2.merge_queues.organization_metrics()
    assert "mq_depth_current" in every.text and len(every.text) >= len(one.text)


def test_the_async_client_reads_the_same(box, merged) -> None:
    _, queue, pr = merged

    async def main() -> None:
        async with box.async_client() as client:
            runs = [run async for run in client.v2.merge_queues.list_verification_runs(queue.id)]
            assert len(runs) == 1
            history = await client.v2.pull_requests.queue_entry_history(pr.id).to_list()
            assert len(history) == 5
            assert "mq_depth_current" in (await client.v2.merge_queues.metrics(queue.id)).text

    asyncio.run(main())


def test_the_command_line_reads_history_and_runs(box, merged, monkeypatch) -> None:
    from trunk_api.cli import main

    _, queue, pr = merged
    monkeypatch.setenv("TRUNK_BASE_URL", box.url)
    monkeypatch.delenv("TRUNK_API_TOKEN", raising=False)
    monkeypatch.setenv("TRUNK_API_KEY", box.api_key)

    def run(*argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(argv))
        return code, out.getvalue(), err.getvalue()

    code, out, err = run("v2", "pull-requests", "queue-entry-history", "--id", pr.id, "--format", "ndjson")
    assert code == 0, err
    assert [json.loads(line)["state"] for line in out.splitlines()][-1] == "merged"
    code, out, err = run("v2", "merge-queues", "list-verification-runs", "--id", queue.id, "--format", "csv")
    assert code == 0 and len(out.splitlines()) == 2, err
    code, out, err = run("v2", "pull-requests", "queue-entry-history-batch", "--pull-request-id", pr.id,
                         "--format", "ndjson")
    assert code == 0 and json.loads(out.splitlines()[0])["pullRequestId"] == pr.id, err
    assert box.api_key not in out + err
