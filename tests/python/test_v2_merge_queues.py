"""v2's merge queues from Python (docs/reference/v2.md): ``client.v2.merge_queues`` sync and async, over the
sandbox's v2, which shares its queues with v1; errors carry v2's codes; bad input fails before sending."""

from __future__ import annotations

import asyncio
import inspect

import pytest

import trunk_api
from trunk_api import ConflictError, NotFoundError, ValidationError
from trunk_api.enums import MergeQueueMode, MergeQueueState, MergeStrategy, QueueState


@pytest.fixture(scope="module")
def sandbox():
    """A sandbox of this module's own: its queues are the main queue of each repository, whatever other modules
    create in the session's."""
    with trunk_api.Sandbox(seed=3, tests=60) as box:
        yield box


def test_every_verb_of_the_resource_is_a_method_with_the_requests_signature(client) -> None:
    queues = client.v2.merge_queues
    verbs = {"list", "list_page", "create", "get", "delete", "pause", "resume", "drain", "switch_modes",
             "update_config"}
    assert verbs <= set(dir(queues))
    assert list(inspect.signature(queues.get).parameters) == ["id"]
    update = inspect.signature(queues.update_config).parameters
    assert update["id"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert update["concurrency"].kind is inspect.Parameter.KEYWORD_ONLY and update["concurrency"].default is None
    assert "cursor" not in inspect.signature(queues.list).parameters  # the iterator walks the pages itself
    assert "cursor" in inspect.signature(queues.list_page).parameters


def test_a_queue_paused_through_v2_reads_paused_through_v1(box, client) -> None:
    main_queues = [queue for queue in client.v2.merge_queues.list() if queue.target_branch == "main"]
    assert len(main_queues) == len(box.repos)
    try:
        for queue in main_queues:
            assert client.v2.merge_queues.pause(queue.id).state == MergeQueueState.PAUSED
        assert {client.get_queue(repo, "main").state for repo in box.repos} == {QueueState.PAUSED}
        for queue in main_queues:
            assert client.v2.merge_queues.resume(queue.id).state == MergeQueueState.RUNNING
        assert {client.get_queue(repo, "main").state for repo in box.repos} == {QueueState.RUNNING}
    finally:
        for queue in main_queues:
            client.v2.merge_queues.resume(queue.id)


def test_create_conflict_update_delete_and_not_found(box, client) -> None:
    queues = client.v2.merge_queues
    repository_id = next(iter(queues.list())).repository_id
    created = queues.create(repository_id, "v2-python", mode=MergeQueueMode.GRAPH, concurrency=3)
    try:
        assert (created.target_branch, created.mode, created.config.concurrency) == ("v2-python", "graph", 3)
        with pytest.raises(ConflictError) as conflict:
            queues.create(repository_id, "v2-python")
        assert conflict.value.code == "QUEUE_ALREADY_EXISTS" and conflict.value.request_id
        updated = queues.update_config(created.id, merge_method="rebase", required_statuses=[])
        assert updated.config.merge_method == MergeStrategy.REBASE and updated.config.required_statuses == []
        assert queues.get(created.id) == updated
    finally:
        queues.delete(created.id)
    with pytest.raises(NotFoundError) as missing:
        queues.get(created.id)
    assert missing.value.code == "MERGE_QUEUE_NOT_FOUND"


def test_bad_input_is_refused_before_anything_is_sent(box, client) -> None:
    queues = client.v2.merge_queues
    box.clear_requests()
    for call in (lambda: queues.list_page(limit=0), lambda: queues.list_page(limit=101),
                 lambda: queues.create("not-a-uuid", "main"), lambda: queues.get(""),
                 lambda: queues.update_config("x", concurrency=1001),
                 lambda: queues.update_config("x", batching_rules=[{"targetPattern": ""}])):
        with pytest.raises(ValidationError):
            call()
    assert box.requests == []
    assert len(queues.list_page(limit=100).data) == len(box.repos)  # the bound itself is fine
    with pytest.raises(TypeError):
        queues.get()  # type: ignore[call-arg]


def test_the_listing_pages_limits_and_goes_to_arrow(client, box) -> None:
    queues = client.v2.merge_queues
    page = queues.list_page(limit=1, include_total=True)
    assert (len(page.data), page.has_more, page.total) == (1, True, len(box.repos))
    second = queues.list_page(limit=1, cursor=page.next_cursor)
    assert second.data[0].id != page.data[0].id
    assert len(list(queues.list(limit=1))) == len(box.repos)
    assert len(list(queues.list(limit=1, max_results=2))) == 2
    table = queues.list().to_arrow()
    assert table.num_rows == len(box.repos) and "target_branch" in table.column_names


def test_the_async_client_has_the_same_resource(box) -> None:
    async def main() -> None:
        async with box.async_client() as client:
            ids = [queue.id async for queue in client.v2.merge_queues.list()]
            assert len(ids) == len(box.repos)
            queue = await client.v2.merge_queues.get(ids[0])
            assert queue.id == ids[0]
            with pytest.raises(NotFoundError):
                await client.v2.merge_queues.get("missing")

    asyncio.run(main())


def test_the_sandbox_issues_an_api_key_and_keeps_it_out_of_its_record(box, client) -> None:
    assert box.api_key.startswith("trunk_v2_")
    box.clear_requests()
    list(client.v2.merge_queues.list())
    recorded = box.requests[-1]
    assert recorded.path == "/v2/merge-queues"
    assert recorded.headers["authorization"] == "<redacted>"
    assert box.api_key not in repr(box) and box.api_key not in str(box.requests)


def test_v1_calls_still_send_the_token_and_v2_calls_the_key(box) -> None:
    box.clear_requests()
    client = box.client()
    client.get_queue(box.repos[0], "main")
    list(client.v2.merge_queues.list())
    v1, v2 = box.requests[-2:]
    assert "x-api-token" in v1.headers and "authorization" not in v1.headers
    assert "authorization" in v2.headers and "x-api-token" not in v2.headers


def _run_cli(*argv: str) -> tuple[int, str, str]:
    import contextlib
    import io

    from trunk_api.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_the_command_line_has_a_command_per_v2_operation(box, monkeypatch) -> None:
    import json

    monkeypatch.setenv("TRUNK_BASE_URL", box.url)
    monkeypatch.delenv("TRUNK_API_TOKEN", raising=False)
    monkeypatch.setenv("TRUNK_API_KEY", box.api_key)
    code, out, err = _run_cli("v2", "merge-queues", "list", "--format", "ndjson")
    assert code == 0, err
    queues = [json.loads(line) for line in out.splitlines()]
    assert len(queues) == len(box.repos) and all(queue["targetBranch"] == "main" for queue in queues)
    queue_id = queues[0]["id"]
    code, out, err = _run_cli("v2", "merge-queues", "pause", "--id", queue_id, "--format", "json")
    assert code == 0 and json.loads(out)["state"] == "paused", err
    code, out, err = _run_cli("v2", "merge-queues", "resume", "--id", queue_id, "--format", "json")
    assert code == 0 and json.loads(out)["state"] == "running", err
    code, out, err = _run_cli("v2", "merge-queues", "list", "--format", "csv")
    assert code == 0 and out.splitlines()[0].startswith("id,") and len(out.splitlines()) == len(box.repos) + 1
    code, out, err = _run_cli("v2", "merge-queues", "get", "--id", "missing")
    assert code == 4 and "MERGE_QUEUE_NOT_FOUND" in err  # the not-found exit code, and v2's code
    code, out, err = _run_cli("v2", "merge-queues", "list", "--limit", "0")
    assert code == 2 and "limit" in err
    assert box.api_key not in out + err


def test_the_command_line_names_the_api_key_a_v2_command_needs(box, monkeypatch) -> None:
    monkeypatch.setenv("TRUNK_BASE_URL", box.url)
    monkeypatch.setenv("TRUNK_API_TOKEN", box.token)
    monkeypatch.delenv("TRUNK_API_KEY", raising=False)
    code, out, err = _run_cli("v2", "merge-queues", "list")
    assert code == 2
    assert "v2 operation" in err and "TRUNK_API_KEY" in err and "--api-key" in err
    assert box.token not in out + err
