"""v2's dispatch order, dependency graph, testing results and impacted targets from Python (docs/reference/v2.md):
sync, async and the command line, over the sandbox's queue simulation on its virtual clock."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import io
import json

import pytest

import trunk_api
from trunk_api import NotFoundError, ValidationError
from trunk_api.enums import MergeQueueMode, QueueEntryConclusion, TestingOutcome

from conftest import main_queue_of, virtual_sandbox


@pytest.fixture(scope="module")
def box():
    with virtual_sandbox(seed=9) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def queue(box):
    client = box.client()
    main = main_queue_of(client, box.repos[0])
    client.v2.merge_queues.update_config(main.id, concurrency=3, allow_batching=False)
    return main


def test_order_and_graph_of_a_queue_in_queue_mode(box, queue) -> None:
    client = box.client()
    for number in (301, 302, 303):
        client.v2.merge_queues.submit_pull_request(queue.id, number)
    box.advance(minutes=2)
    order = client.v2.merge_queues.order(queue.id)
    assert order.mode == MergeQueueMode.QUEUE
    assert [batch.pull_requests[0].number for batch in order.batches] == [301, 302, 303]
    assert order.pending == [] and order.awaiting_admission_total == 0
    graph = client.v2.merge_queues.graph(queue.id)
    assert {node.pull_request_number for node in graph.nodes} == {301, 302, 303}
    assert [(e.from_pull_request_number, e.to_pull_request_number) for e in graph.edges] == [(301, 302), (302, 303)]
    box.advance(hours=3)


def test_testing_results_within_the_window(box, queue) -> None:
    client = box.client()
    now = box.clock_now
    results = list(client.v2.merge_queues.list_testing_results(queue.id, now - dt.timedelta(days=1)))
    assert {r.pull_request_number for r in results} >= {301, 302, 303}
    assert all(r.outcome == TestingOutcome.PASSED and r.entry_conclusion == QueueEntryConclusion.MERGED
               for r in results if r.pull_request_number in (301, 302, 303))
    table = client.v2.merge_queues.list_testing_results(queue.id, now - dt.timedelta(days=1)).to_arrow()
    assert table.num_rows == len(results) and "testing_duration_ms" in table.column_names
    with pytest.raises(ValidationError):  # until at most 45 days after since
        client.v2.merge_queues.list_testing_results_page(queue.id, now - dt.timedelta(days=46), until=now)
    assert client.v2.merge_queues.list_testing_results_page(queue.id, now - dt.timedelta(days=45), until=now).data


def test_impacted_targets_uploaded_and_read(box, queue) -> None:
    client = box.client()
    pr = client.v2.merge_queues.submit_pull_request(queue.id, 311)
    try:
        with pytest.raises(NotFoundError) as none:
            client.v2.pull_requests.impacted_targets(pr.id)
        assert none.value.code == "IMPACTED_TARGETS_NOT_FOUND"
        answer = client.v2.impacted_targets.upload(queue.repository_id, "main", pr.sha, number=311,
                                                   impacted_targets=["web", "api"])
        assert isinstance(answer, trunk_api.NoContent)
        read = client.v2.pull_requests.impacted_targets(pr.id)
        assert (read.sha, read.impacted_targets, read.impacts_all_targets) == (pr.sha, ["api", "web"], False)
        client.v2.impacted_targets.upload(queue.repository_id, "main", pr.sha, branch="pr-311",
                                          impacts_all_targets=True)
        assert client.v2.pull_requests.impacted_targets(pr.id).impacts_all_targets
        box.clear_requests()
        for bad in ({"number": 311, "branch": "pr-311", "impacted_targets": []},
                    {"number": 311},
                    {"number": 311, "impacts_all_targets": False}):
            with pytest.raises(ValidationError):
                client.v2.impacted_targets.upload(queue.repository_id, "main", pr.sha, **bad)
        assert box.requests == []
    finally:
        client.v2.pull_requests.dequeue(pr.id)


def test_the_async_client_reads_the_order(box, queue) -> None:
    async def main() -> None:
        async with box.async_client() as client:
            order = await client.v2.merge_queues.order(queue.id)
            assert order.mode == MergeQueueMode.QUEUE
            graph = await client.v2.merge_queues.graph(queue.id, include_impacted_targets=True)
            assert graph.edges == []

    asyncio.run(main())


def test_the_command_line_uploads_targets_and_prints_the_order(box, queue, monkeypatch) -> None:
    from trunk_api.cli import main

    client = box.client()
    pr = client.v2.merge_queues.submit_pull_request(queue.id, 321)
    monkeypatch.setenv("TRUNK_BASE_URL", box.url)
    monkeypatch.delenv("TRUNK_API_TOKEN", raising=False)
    monkeypatch.setenv("TRUNK_API_KEY", box.api_key)

    def run(*argv: str) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(argv))
        return code, out.getvalue(), err.getvalue()

    try:
        code, out, err = run("v2", "impacted-targets", "upload", "--repository-id", queue.repository_id,
                             "--target-branch", "main", "--sha", pr.sha, "--number", "321",
                             "--impacted-target", "web")
        assert code == 0, err
        assert client.v2.pull_requests.impacted_targets(pr.id).impacted_targets == ["web"]
        code, out, err = run("v2", "merge-queues", "order", "--id", queue.id, "--format", "json")
        assert code == 0 and json.loads(out)["mode"] == "queue", err
        assert box.api_key not in out + err
    finally:
        client.v2.pull_requests.dequeue(pr.id)
