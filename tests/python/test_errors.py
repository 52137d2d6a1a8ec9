"""Every exception type, produced by a real server: the sandbox where it can (401, 404, 429, 500, 503,
dropped and truncated answers, latency) and a scripted Python HTTP server for the rest (400, 403, 418, bad
JSON, a repeated page token)."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

import trunk_api
from trunk_api import (
    ApiError,
    AuthenticationError,
    BadRequestError,
    DecodeError,
    NotFoundError,
    PaginationError,
    PermissionDeniedError,
    RateLimitError,
    RequestTimeout,
    ServerError,
    TransportError,
    TrunkError,
)

from conftest import NOW, WEEK_START
from scripted_server import Reply, ScriptedServer

UUID = "0f3c6a8e-5b7d-4c1e-9a2f-3b4c5d6e7f80"
TOKEN = "scripted-server-token"
GOOD_PAGE = {
    "tests": [{"id": UUID, "name": "t"}],
    "page": {"total_rows": 1, "total_pages": 1, "next_page_token": "", "prev_page_token": "",
             "last_page_token": "", "page_index": 0},
}


@pytest.fixture(scope="module")
def faulty() -> Iterator[trunk_api.Sandbox]:
    with trunk_api.Sandbox(seed=3, tests=40, now=NOW) as box:
        yield box


@pytest.fixture
def fault_box(faulty: trunk_api.Sandbox) -> trunk_api.Sandbox:
    faulty.set_faults(latency_ms=0, jitter_ms=0, error_rate=0, rate_limit=0, drop_rate=0, truncate_rate=0)
    faulty.clear_requests()
    return faulty


def details(client: trunk_api.Client, box: trunk_api.Sandbox) -> trunk_api.TestCase:
    repo = box.repos[0]
    return client.get_test_details(repo, box.org_url_slug, box.test_ids(repo)[0])


def test_hierarchy() -> None:
    assert issubclass(trunk_api.ValidationError, ValueError)
    assert issubclass(TransportError, ConnectionError) and issubclass(RequestTimeout, TimeoutError)
    assert issubclass(RequestTimeout, TransportError)
    for cls in (BadRequestError, AuthenticationError, PermissionDeniedError, NotFoundError, RateLimitError,
                ServerError):
        assert issubclass(cls, ApiError) and issubclass(cls, TrunkError)
    for cls in (DecodeError, PaginationError, TransportError, ApiError, trunk_api.ValidationError):
        assert issubclass(cls, TrunkError)


def test_401_wrong_token(fault_box: trunk_api.Sandbox) -> None:
    client = trunk_api.Client("wrong-token", fault_box.url)
    with pytest.raises(AuthenticationError) as caught:
        details(client, fault_box)
    error = caught.value
    assert error.status_code == 401 and error.operation == "get_test_details"
    assert error.body and "401" in str(error)
    assert len(fault_box.requests) == 1  # 401 is not retried


def test_404_unknown_repo_and_unknown_test(fault_box: trunk_api.Sandbox) -> None:
    client = fault_box.client()
    with pytest.raises(NotFoundError) as caught:
        client.get_test_details("github.com/nobody/nothing", fault_box.org_url_slug, UUID)
    assert caught.value.status_code == 404
    with pytest.raises(NotFoundError):
        client.get_test_details(fault_box.repos[0], fault_box.org_url_slug, UUID)


def test_500_for_a_foreign_page_token(fault_box: trunk_api.Sandbox) -> None:
    client = fault_box.client(max_retries=0)
    with pytest.raises(ServerError) as caught:
        client.list_failing_tests(fault_box.repos[0], fault_box.org_url_slug, WEEK_START, NOW,
                                  page_token="not-a-token-we-issued")
    assert caught.value.status_code == 500 and caught.value.operation == "list_failing_tests"


def test_503_after_retries_run_out(fault_box: trunk_api.Sandbox) -> None:
    fault_box.set_faults(error_rate=1.0)
    client = fault_box.client(max_retries=1)
    with pytest.raises(ServerError) as caught:
        details(client, fault_box)
    assert caught.value.status_code == 503
    assert len(fault_box.requests) == 2  # first attempt + one retry


def test_429_carries_retry_after(fault_box: trunk_api.Sandbox) -> None:
    fault_box.set_faults(rate_limit=1.0)
    client = fault_box.client(max_retries=0)
    with pytest.raises(RateLimitError) as caught:
        for _ in range(5):
            details(client, fault_box)
    assert caught.value.status_code == 429
    assert isinstance(caught.value.retry_after, float) and caught.value.retry_after > 0


def test_dropped_connection_is_transport_error(fault_box: trunk_api.Sandbox) -> None:
    fault_box.set_faults(drop_rate=1.0)
    with pytest.raises(TransportError) as caught:
        details(fault_box.client(max_retries=0), fault_box)
    assert isinstance(caught.value, ConnectionError) and not isinstance(caught.value, RequestTimeout)


def test_truncated_body_is_transport_error(fault_box: trunk_api.Sandbox) -> None:
    fault_box.set_faults(truncate_rate=1.0)
    with pytest.raises(TransportError):
        details(fault_box.client(max_retries=0), fault_box)


def test_refused_connection_is_transport_error() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = trunk_api.Client(TOKEN, f"http://127.0.0.1:{port}", max_retries=0)
    with pytest.raises(TransportError):
        client.get_test_details("github.com/a/b", "org", UUID)


def test_slow_answer_is_request_timeout(fault_box: trunk_api.Sandbox) -> None:
    fault_box.set_faults(latency_ms=2000)
    with pytest.raises(RequestTimeout) as caught:
        details(fault_box.client(max_retries=0, timeout=0.2), fault_box)
    assert isinstance(caught.value, TimeoutError) and isinstance(caught.value, TransportError)


@pytest.mark.parametrize(
    ("status", "cls"),
    [(400, BadRequestError), (403, PermissionDeniedError), (418, ApiError), (502, ServerError)],
)
def test_status_codes_from_a_scripted_server(status: int, cls: type[ApiError]) -> None:
    with ScriptedServer([Reply(status, f"answer {status}: nope")]) as server:
        client = trunk_api.Client(TOKEN, server.url, max_retries=0)
        with pytest.raises(cls) as caught:
            client.get_test_details("github.com/a/b", "org", UUID)
    assert type(caught.value) is cls
    assert caught.value.status_code == status
    assert caught.value.body == f"answer {status}: nope"
    assert caught.value.operation == "get_test_details"


def test_json_error_body_is_kept() -> None:
    with ScriptedServer([Reply(400, {"error": "bad field"})]) as server:
        with pytest.raises(BadRequestError) as caught:
            trunk_api.Client(TOKEN, server.url).get_test_details("github.com/a/b", "org", UUID)
    assert caught.value.body == '{"error": "bad field"}'


def test_retry_then_success() -> None:
    replies = [Reply(503, "busy"), Reply(503, "busy"), Reply(200, {"test": {"id": UUID}})]
    with ScriptedServer(replies) as server:
        test = trunk_api.Client(TOKEN, server.url, max_retries=3).get_test_details("github.com/a/b", "org", UUID)
    assert test.id == UUID and len(server.received) == 3


def test_rate_limit_retry_after_from_scripted_server() -> None:
    with ScriptedServer([Reply(429, "slow down", {"Retry-After": "7"})]) as server:
        with pytest.raises(RateLimitError) as caught:
            trunk_api.Client(TOKEN, server.url, max_retries=0).get_test_details("github.com/a/b", "org", UUID)
    assert caught.value.retry_after == 7.0


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ("this is not json", ""),
        ({"tests": "many", "page": {}}, "tests"),
        ({"tests": [{"id": UUID}, {"failure_rate_last_7d": "high"}], "page": {}}, "tests[1].failure_rate_last_7d"),
    ],
)
def test_decode_error_names_the_path(body: object, path: str) -> None:
    with ScriptedServer([Reply(200, body)]) as server:  # type: ignore[arg-type]
        client = trunk_api.Client(TOKEN, server.url, max_retries=0)
        with pytest.raises(DecodeError) as caught:
            client.list_failing_tests("github.com/a/b", "org", WEEK_START, NOW)
    assert caught.value.path == path


def test_repeated_page_token_is_pagination_error() -> None:
    looping = {"tests": [{"id": UUID}], "page": {"next_page_token": "same-again", "page_index": 0}}
    with ScriptedServer([Reply(200, looping)]) as server:
        client = trunk_api.Client(TOKEN, server.url, max_retries=0)
        with pytest.raises(PaginationError):
            client.iter_failing_tests("github.com/a/b", "org", WEEK_START, NOW).to_list()
    assert 2 <= len(server.received) <= 3  # stopped at once, no endless loop


def test_errors_pickle() -> None:
    import pickle

    with ScriptedServer([Reply(429, "slow", {"Retry-After": "2"})]) as server:
        with pytest.raises(RateLimitError) as caught:
            trunk_api.Client(TOKEN, server.url, max_retries=0).get_test_details("github.com/a/b", "org", UUID)
    restored = pickle.loads(pickle.dumps(caught.value))
    assert type(restored) is RateLimitError
    assert (restored.status_code, restored.body, restored.retry_after) == (429, "slow", 2.0)
    assert str(restored) == str(caught.value)
