"""v2's pull requests and repositories from Python (docs/reference/v2.md): ``client.v2.pull_requests``,
``client.v2.merge_queues.submit_pull_request`` and ``client.v2.repositories``, sync and async and from the command
line, over the sandbox's v2, which shares its queue simulations with v1 (on its virtual clock here, so every state
is reached on purpose)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json

import pytest

import trunk_api
from trunk_api import ApiError, ConflictError, NotFoundError, ValidationError
from trunk_api.enums import Mergeability, PullRequestState, QueueEntryState

from conftest import main_queue_of, virtual_sandbox


@pytest.fixture(scope="module")
def box():
    with virtual_sandbox(seed=5) as sandbox:
        yield sandbox


@pytest.fixture()
def client(box):
    return box.client()


@pytest.fixture()
def main_queue(box, client):
    return main_queue_of(client, box.repos[0])


def test_the_resources_have_their_verbs(client) -> None:
    assert {"resolve", "resolve_page", "get", "reprioritize", "update_queue_entry", "dequeue",
            "restart_tests"} <= set(dir(client.v2.pull_requests))
    assert {"submit_pull_request", "list_pull_requests", "list_pull_requests_page"} <= set(dir(client.v2.merge_queues))
    assert {"get", "resolve", "resolve_page"} <= set(dir(client.v2.repositories))
    assert hasattr(client, "iter_resolve_pull_requests") and hasattr(client, "iter_merge_queue_pull_requests")


def test_a_submission_through_v2_reads_through_v1_and_moves_on_the_sandbox_clock(box, client, main_queue) -> None:
    submitted = client.v2.merge_queues.submit_pull_request(main_queue.id, 101, priority_name="high",
                                                           allow_batching=False)
    assert (submitted.number, submitted.base_branch, submitted.is_currently_submitted_to_queue) == (101, "main", True)
    entry = submitted.queue_entry
    assert (entry.state, entry.priority_value, entry.allow_batching) == (QueueEntryState.NOT_READY, 10, False)
    assert entry.readiness.mergeability == Mergeability.IN_PROGRESS
    assert client.get_submitted_pull_request(box.repos[0], 101, "main").id == entry.id  # v1 sees the same entry
    box.advance(minutes=2)
    assert client.v2.pull_requests.get(submitted.id).queue_entry.state == QueueEntryState.TESTING
    assert client.get_submitted_pull_request(box.repos[0], 101, "main").state == PullRequestState.TESTING
    with pytest.raises(ConflictError) as conflict:
        client.v2.merge_queues.submit_pull_request(main_queue.id, 101)
    assert conflict.value.code == "PR_ALREADY_ENQUEUED" and conflict.value.request_id
    restarted = client.v2.pull_requests.restart_tests(submitted.id)
    assert restarted.queue_entry.state == QueueEntryState.TESTING
    dequeued = client.v2.pull_requests.dequeue(submitted.id)
    assert dequeued.queue_entry.state == QueueEntryState.CANCELLED and not dequeued.is_currently_submitted_to_queue
    with pytest.raises(ConflictError) as again:
        client.v2.pull_requests.dequeue(submitted.id)
    assert again.value.code == "PR_NOT_IN_ACTIVE_STATE"


def test_priority_and_entry_changes_and_their_rules(box, client, main_queue) -> None:
    pr = client.v2.merge_queues.submit_pull_request(main_queue.id, 102)
    try:
        assert client.v2.pull_requests.reprioritize(pr.id, priority_name="urgent").queue_entry.skips_the_line
        patched = client.v2.pull_requests.update_queue_entry(pr.id, allow_batching=False, direct=True)
        assert (patched.queue_entry.allow_batching, patched.queue_entry.direct) == (False, True)
        assert client.v2.pull_requests.reprioritize(pr.id, priority_value=32767).queue_entry.priority_value == 32767
        box.clear_requests()
        for call in (lambda: client.v2.pull_requests.reprioritize(pr.id, priority_value=32768),
                     lambda: client.v2.pull_requests.reprioritize(pr.id, priority_value=-1),
                     lambda: client.v2.pull_requests.reprioritize(pr.id, priority_value=1, priority_name="high"),
                     lambda: client.v2.pull_requests.reprioritize(pr.id),
                     lambda: client.v2.pull_requests.update_queue_entry(pr.id),
                     lambda: client.v2.pull_requests.get("not-a-uuid"),
                     lambda: client.v2.merge_queues.submit_pull_request(main_queue.id, 0),
                     lambda: client.v2.merge_queues.submit_pull_request(main_queue.id, 10000001)):
            with pytest.raises(ValidationError):
                call()
        assert box.requests == []  # each refused before anything was sent
        with pytest.raises(ApiError) as unknown:
            client.v2.pull_requests.reprioritize(pr.id, priority_name="sometime")
        assert unknown.value.status_code == 400 and unknown.value.code == "VALIDATION_FAILED"
    finally:
        client.v2.pull_requests.dequeue(pr.id)


def test_listings_resolve_filter_page_and_go_to_arrow(box, client, main_queue) -> None:
    ids = [client.v2.merge_queues.submit_pull_request(main_queue.id, n).id for n in (111, 112, 113)]
    try:
        client.v2.pull_requests.dequeue(ids[1])
        found = list(client.v2.pull_requests.resolve(main_queue.repository_id, number=[113, 111, 999]))
        assert [pr.number for pr in found] == [113, 111]
        by_branch = client.v2.pull_requests.resolve_page(main_queue.repository_id, branch="pr-112", base_branch="main")
        assert [pr.id for pr in by_branch.data] == [ids[1]]
        with pytest.raises(ValidationError):
            client.v2.pull_requests.resolve_page(main_queue.repository_id, number=[1] * 51)
        newest = [pr.number for pr in client.v2.merge_queues.list_pull_requests(main_queue.id, max_results=3)]
        assert newest == [113, 112, 111]
        cancelled = client.v2.merge_queues.list_pull_requests(main_queue.id, state=[QueueEntryState.CANCELLED])
        assert 112 in [pr.number for pr in cancelled]
        page = client.v2.merge_queues.list_pull_requests_page(main_queue.id, limit=1, include_total=True)
        assert len(page.data) == 1 and page.has_more and page.total >= 3
        table = client.v2.merge_queues.list_pull_requests(main_queue.id, max_results=3).to_arrow()
        assert table.num_rows == 3 and "queue_entry_state" in table.column_names
    finally:
        for pr_id in (ids[0], ids[2]):
            client.v2.pull_requests.dequeue(pr_id)


def test_repositories_by_id_and_by_address(box, client) -> None:
    repo = box.repos[0]
    page = client.v2.repositories.resolve_page(f"https://{repo}.git")
    repository = page.data[0]
    assert repository.path == f"{repo.owner}/{repo.name}" and repository.default_branch == "main"
    assert client.v2.repositories.get(repository.id) == repository
    with pytest.raises(NotFoundError) as nowhere:
        client.v2.repositories.resolve_page("https://github.com/nobody/nothing")
    assert nowhere.value.code == "PROVIDER_URL_NOT_FOUND"


def test_the_async_client_has_the_same_resources(box, main_queue) -> None:
    async def main() -> None:
        async with box.async_client() as client:
            pr = await client.v2.merge_queues.submit_pull_request(main_queue.id, 121)
            got = await client.v2.pull_requests.get(pr.id)
            assert got.queue_entry.id == pr.queue_entry.id
            numbers = [p.number async for p in client.v2.pull_requests.resolve(main_queue.repository_id, number=[121])]
            assert numbers == [121]
            await client.v2.pull_requests.dequeue(pr.id)
            with pytest.raises(NotFoundError):
                await client.v2.pull_requests.get("00000000-0000-4000-8000-000000000000")

    asyncio.run(main())


def _run_cli(*argv: str) -> tuple[int, str, str]:
    from trunk_api.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_the_command_line_submits_resolves_and_dequeues(box, main_queue, monkeypatch) -> None:
    monkeypatch.setenv("TRUNK_BASE_URL", box.url)
    monkeypatch.delenv("TRUNK_API_TOKEN", raising=False)
    monkeypatch.setenv("TRUNK_API_KEY", box.api_key)
    code, out, err = _run_cli("v2", "merge-queues", "submit-pull-request", "--id", main_queue.id, "--number", "131",
                              "--format", "json")
    assert code == 0, err
    pr_id = json.loads(out)["id"]
    code, out, err = _run_cli("v2", "pull-requests", "resolve", "--repository-id", main_queue.repository_id,
                              "--number", "131", "--format", "ndjson")
    assert code == 0 and [json.loads(line)["id"] for line in out.splitlines()] == [pr_id], err
    code, out, err = _run_cli("v2", "pull-requests", "dequeue", "--id", pr_id, "--format", "json")
    assert code == 0 and json.loads(out)["queueEntry"]["state"] == "cancelled", err
    code, out, err = _run_cli("v2", "pull-requests", "dequeue", "--id", pr_id)
    assert code != 0 and "PR_NOT_IN_ACTIVE_STATE" in err
    assert box.api_key not in out + err


def test_a_key_with_some_permissions_reads_and_is_refused_the_rest(box, main_queue) -> None:
    from trunk_api import PermissionDeniedError

    assert "merge_and_cancel_prs" in trunk_api.Sandbox.permission_names()
    key = box.create_api_key(["merge_and_cancel_prs"])
    client = trunk_api.Client(api_key=key, base_url=box.url)
    assert key not in repr(client)
    pr = client.v2.merge_queues.submit_pull_request(main_queue.id, 141)
    try:
        assert client.v2.pull_requests.get(pr.id).number == 141
        with pytest.raises(PermissionDeniedError) as refused:
            client.v2.pull_requests.reprioritize(pr.id, priority_name="urgent")
        assert refused.value.code == "INSUFFICIENT_PERMISSIONS"
        assert "set_priority" in str(refused.value) and "reprioritize_pull_request" in str(refused.value)
        with pytest.raises(PermissionDeniedError):
            client.v2.merge_queues.pause(main_queue.id)
    finally:
        client.v2.pull_requests.dequeue(pr.id)
    with pytest.raises(ValidationError) as unknown:
        box.create_api_key(["merge_and_cancel_prs", "launch_rockets", "admin"])
    assert [v.field for v in unknown.value.errors] == ["permissions[1]", "permissions[2]"]
    assert "merge_and_cancel_prs" in str(unknown.value)


def test_the_documented_rate_limits_are_an_option_off_by_default(box) -> None:
    from trunk_api import RateLimitError

    repository_id = box.client().v2.repositories.resolve_page(f"https://{box.repos[0]}").data[0].id
    impatient = trunk_api.Client(api_key=box.api_key, base_url=box.url, max_retries=0)
    for _ in range(8):  # off: as many as the organization's limit allows
        impatient.v2.pull_requests.resolve_page(repository_id, number=[1])
    with trunk_api.Sandbox(seed=5, tests=20, v2_rate_limits=True) as limited:
        client = trunk_api.Client(api_key=limited.api_key, base_url=limited.url, max_retries=0)
        repository_id = client.v2.repositories.resolve_page(f"https://{limited.repos[0]}").data[0].id
        for _ in range(5):
            client.v2.pull_requests.resolve_page(repository_id, number=[1])
        with pytest.raises(RateLimitError) as limited_error:
            client.v2.pull_requests.resolve_page(repository_id, number=[1])
        assert limited_error.value.code == "RATE_LIMITED" and limited_error.value.retry_after >= 1
        assert len(list(client.v2.merge_queues.list())) >= 1  # another group of operations: not limited
        patient = trunk_api.Client(api_key=limited.api_key, base_url=limited.url, max_retries=2)
        patient.v2.pull_requests.resolve_page(repository_id, number=[1])  # waits out Retry-After, then answered


def test_a_trunk_token_reads_v2_and_is_refused_writes(box, main_queue) -> None:
    import pickle

    from trunk_api import MissingTokenError, PermissionDeniedError

    secret = box.create_trunk_token()
    client = trunk_api.Client(trunk_token=secret, base_url=box.url)
    assert secret not in repr(client) and secret.encode() not in pickle.dumps(client)
    box.clear_requests()
    assert client.v2.merge_queues.get(main_queue.id).id == main_queue.id
    [sent] = box.requests
    assert sent.headers["x-trunk-token"] == "<redacted>" and "authorization" not in sent.headers
    with pytest.raises(PermissionDeniedError) as refused:
        client.v2.merge_queues.pause(main_queue.id)
    assert secret not in str(refused.value)
    with pytest.raises(MissingTokenError) as missing:  # v1 takes only its organization token
        client.get_queue(box.repos[0], "main")
    assert missing.value.needed == "token"
    with pytest.raises(trunk_api.TrunkError) as wrong_kind:
        trunk_api.Client(trunk_token=box.api_key, base_url=box.url)
    assert "api_key" in str(wrong_kind.value) and box.api_key not in str(wrong_kind.value)
