"""Client.get_test_details_many: input order, per-id failures as BulkError after every id finished, retries,
validation before sending, the GIL released for the whole call, and Ctrl-C."""

from __future__ import annotations

import _thread
import json
import pickle
import threading

import pytest

import trunk_api
from trunk_api import BulkError, NotFoundError, Repo, ServerError, TrunkError, ValidationError

from scripted_server import Received, Reply, ScriptedServer

TOKEN = "bulk-test-token-SECRET"
UNKNOWN = "00000000-0000-4000-8000-00000000dead"


def test_results_are_in_input_order_and_equal_single_calls(
    box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo
) -> None:
    ids = box.test_ids(repo)[:30]
    ids.append(ids[0])  # a duplicate is answered in place
    got = client.get_test_details_many(repo, box.org_url_slug, ids, concurrency=4)
    assert [test.id for test in got] == ids
    assert got[5] == client.get_test_details(repo, box.org_url_slug, ids[5])
    assert sum(1 for r in box.requests if r.path.endswith("get-test-details")) == len(ids) + 1


def test_any_iterable_of_ids_is_accepted(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    ids = box.test_ids(repo)[:3]
    assert [t.id for t in client.get_test_details_many(str(repo), box.org_url_slug, iter(ids))] == ids
    assert [t.id for t in client.get_test_details_many(repo, box.org_url_slug, tuple(ids))] == ids
    assert client.get_test_details_many(repo, box.org_url_slug, []) == []


def test_failed_ids_raise_bulk_error_with_every_other_result(
    box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo
) -> None:
    ids = box.test_ids(repo)[:6]
    ids[2] = UNKNOWN
    ids[4] = UNKNOWN.upper()
    with pytest.raises(BulkError) as caught:
        client.get_test_details_many(repo, box.org_url_slug, ids)
    error = caught.value
    assert isinstance(error, TrunkError)
    assert sorted(error.errors) == [2, 4]
    assert all(isinstance(e, NotFoundError) and e.status_code == 404 for e in error.errors.values())
    assert [r is None for r in error.results] == [False, False, True, False, True, False]
    assert [r.id for r in error.results if r is not None] == [ids[0], ids[1], ids[3], ids[5]]
    assert "2 of 6 test ids failed" in str(error) and "[2] NotFoundError" in str(error)
    again = pickle.loads(pickle.dumps(error))
    assert again.results == error.results and sorted(again.errors) == [2, 4]


def test_every_bad_id_is_named_and_nothing_is_sent(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    good = box.test_ids(repo)[0]
    with pytest.raises(ValidationError) as caught:
        client.get_test_details_many(repo, box.org_url_slug, [good, "nope", good, "", 42])
    fields = [v.field for v in caught.value.errors]
    assert fields == ["test_ids[4]"]  # a wrong type is found while converting, before the UUID rule
    with pytest.raises(ValidationError) as caught:
        client.get_test_details_many(repo, box.org_url_slug, [good, "nope", good, ""])
    assert [v.field for v in caught.value.errors] == ["test_ids[1]", "test_ids[3]"]
    assert "'nope'" in str(caught.value) or "nope" in str(caught.value)
    with pytest.raises(ValidationError) as caught:
        client.get_test_details_many(repo, box.org_url_slug, "0f3c6a8e-5b7d-4c1e-9a2f-3b4c5d6e7f80")
    assert [v.field for v in caught.value.errors] == ["test_ids"]
    assert box.requests == []


@pytest.mark.parametrize("concurrency", [0, -1, 257, 2**64])
def test_concurrency_out_of_range_is_a_validation_error(
    box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo, concurrency: int
) -> None:
    with pytest.raises(ValidationError) as caught:
        client.get_test_details_many(repo, box.org_url_slug, box.test_ids(repo)[:2], concurrency=concurrency)
    assert [v.field for v in caught.value.errors] == ["concurrency"]
    assert box.requests == []


@pytest.mark.parametrize("concurrency", [1, 256])
def test_concurrency_bounds_are_accepted(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo, concurrency: int) -> None:
    ids = box.test_ids(repo)[:3]
    assert [t.id for t in client.get_test_details_many(repo, box.org_url_slug, ids, concurrency=concurrency)] == ids


def test_server_errors_are_retried_per_id() -> None:
    calls: dict[str, int] = {}
    lock = threading.Lock()

    def respond(request: Received) -> Reply:
        test_id = json.loads(request.body)["test_id"]
        with lock:
            calls[test_id] = calls.get(test_id, 0) + 1
            attempt = calls[test_id]
        if attempt == 1:
            return Reply(503, "busy")
        return Reply(200, {"test": {"id": test_id}})

    ids = [f"00000000-0000-4000-8000-{n:012x}" for n in range(6)]
    with ScriptedServer(responder=respond) as server:
        client = trunk_api.Client(TOKEN, server.url, max_retries=2)
        got = client.get_test_details_many("github.com/a/b", "org", ids, concurrency=3)
    assert [t.id for t in got] == ids
    assert calls == {test_id: 2 for test_id in ids}


def test_exhausted_retries_end_up_in_errors() -> None:
    with ScriptedServer([Reply(500, "down")]) as server:
        client = trunk_api.Client(TOKEN, server.url, max_retries=1)
        with pytest.raises(BulkError) as caught:
            client.get_test_details_many("github.com/a/b", "org", [UNKNOWN, UNKNOWN])
    assert all(isinstance(e, ServerError) for e in caught.value.errors.values())
    assert caught.value.results == [None, None]
    assert len(server.received) == 4
    assert TOKEN not in str(caught.value) and all(TOKEN not in repr(e) for e in caught.value.errors.values())


def test_the_gil_is_released_for_the_whole_call() -> None:
    """The server's responder is Python: it could not run if the bulk call held the GIL."""
    ids = [f"00000000-0000-4000-8000-{n:012x}" for n in range(8)]
    barrier = threading.Barrier(4, timeout=20)

    def respond(request: Received) -> Reply:
        barrier.wait()  # four requests at once, or the barrier breaks and the server answers 500
        return Reply(200, {"test": {"id": json.loads(request.body)["test_id"]}})

    with ScriptedServer(responder=respond) as server:
        client = trunk_api.Client(TOKEN, server.url, max_retries=0)
        got = client.get_test_details_many("github.com/a/b", "org", ids, concurrency=4)
    assert [t.id for t in got] == ids


@pytest.mark.usefixtures("sigint_as_in_a_terminal")
def test_ctrl_c_interrupts_a_bulk_call() -> None:
    release = threading.Event()

    def respond(request: Received) -> Reply:
        release.wait(30)
        return Reply(200, {"test": {"id": json.loads(request.body)["test_id"]}})

    with ScriptedServer(responder=respond) as server:
        client = trunk_api.Client(TOKEN, server.url, max_retries=0, timeout=60)
        timer = threading.Timer(0.3, _thread.interrupt_main)
        timer.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                client.get_test_details_many("github.com/a/b", "org", [UNKNOWN] * 4, concurrency=2)
        finally:
            timer.cancel()
            release.set()
