"""The token never appears anywhere a test can reach (extends test_token_safety.py, which covers repr of the
Client, its pickle and one echoed 403): every kind of exception, including servers that echo the token back
in error bodies of every status, in a 200 body that fails to decode, and in Retry-After responses; their
str/repr/args/__dict__/pickle/formatted traceback; every log record at DEBUG; every result object; and the
CLI's output in a separate process with the token in its environment and -vv logging."""

from __future__ import annotations

import logging
import os
import pickle
import subprocess
import sys
import traceback
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest

import trunk_api
from trunk_api import Client, TrunkError

from scripted_server import Received, Reply, ScriptedServer

SECRET = "tok-REACH-3e9a1c77-never-show"
UUID = "0f3c6a8e-5b7d-4c1e-9a2f-3b4c5d6e7f80"


def _texts_of(value: Any) -> Iterator[str]:
    """Every textual rendering of `value` a program could log or show."""
    yield str(value)
    yield repr(value)
    if isinstance(value, BaseException):
        yield "".join(traceback.format_exception(value))
        yield repr(value.args)
        yield repr(getattr(value, "__dict__", {}))
        for name in ("body", "path", "operation", "errors"):
            if hasattr(value, name):
                yield repr(getattr(value, name))
    try:
        yield pickle.dumps(value).decode("latin-1")
    except (TypeError, pickle.PicklingError, AttributeError):
        pass


def assert_clean(*values: Any) -> None:
    for value in values:
        for text in _texts_of(value):
            assert SECRET not in text, f"token leaked through {type(value).__name__}"


def _echo(status: int, headers: dict[str, str] | None = None, as_json: bool = False):
    def respond(request: Received) -> Reply:
        token = request.headers.get("x-api-token", "")
        body: Any = {"error": f"bad token {token}", "token": token} if as_json else f"token={token} rejected"
        return Reply(status, body, headers or {})
    return respond


ECHOING = [
    (400, trunk_api.BadRequestError, {}),
    (401, trunk_api.AuthenticationError, {}),
    (403, trunk_api.PermissionDeniedError, {}),
    (404, trunk_api.NotFoundError, {}),
    (422, trunk_api.ApiError, {}),
    (429, trunk_api.RateLimitError, {"Retry-After": "0"}),
    (500, trunk_api.ServerError, {}),
    (503, trunk_api.ServerError, {}),
]


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
@pytest.mark.parametrize("status,error_type,headers", ECHOING, ids=[str(s) for s, _, _ in ECHOING])
def test_error_bodies_that_echo_the_token_are_redacted(status: int, error_type: type[TrunkError],
                                                       headers: dict[str, str], as_json: bool,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with ScriptedServer(responder=_echo(status, headers, as_json)) as server:
        client = Client(SECRET, server.url, max_retries=1)
        with pytest.raises(error_type) as caught:
            client.get_test_details("github.com/a/b", "org", UUID)
        assert server.received[0].headers["x-api-token"] == SECRET  # it was sent, and echoed back
    assert caught.value.status_code == status  # type: ignore[attr-defined]
    assert_clean(caught.value, client)
    assert caplog.records
    for record in caplog.records:
        assert SECRET not in record.getMessage() and SECRET not in repr(record.args)


def test_a_200_body_that_echoes_the_token_and_fails_to_decode(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)

    def respond(request: Received) -> Reply:
        token = request.headers["x-api-token"]
        return Reply(200, {"test": {"id": UUID, token: 1, "quarantined": token}})

    with ScriptedServer(responder=respond) as server:
        with pytest.raises(trunk_api.DecodeError) as caught:
            Client(SECRET, server.url).get_test_details("github.com/a/b", "org", UUID)
    assert_clean(caught.value)
    for record in caplog.records:
        assert SECRET not in record.getMessage()


def test_unknown_fields_keep_an_echoed_token_only_in_the_data_the_server_sent() -> None:
    """A server may put anything in unknown fields; the client keeps them (contract), but the token we sent
    must not be mixed into our own renderings of the request side."""
    with ScriptedServer([Reply(200, {"test": {"id": UUID, "name": "n"}})]) as server:
        test = Client(SECRET, server.url).get_test_details("github.com/a/b", "org", UUID)
    assert_clean(test)


def test_transport_timeout_and_pagination_errors(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    errors: list[BaseException] = []
    with pytest.raises(trunk_api.TransportError) as refused:
        Client(SECRET, "http://127.0.0.1:1", max_retries=1).get_test_details("github.com/a/b", "org", UUID)
    errors.append(refused.value)

    def slow(request: Received) -> Reply:
        import time
        time.sleep(1.5)
        return Reply(200, {"test": {"id": UUID}})

    with ScriptedServer(responder=slow) as server:
        with pytest.raises(trunk_api.RequestTimeout) as timed_out:
            Client(SECRET, server.url, timeout=0.2, max_retries=0).get_test_details("github.com/a/b", "org", UUID)
    errors.append(timed_out.value)

    page = {"total_rows": 2, "total_pages": 2, "next_page_token": SECRET, "prev_page_token": "",
            "last_page_token": SECRET, "page_index": 0}
    with ScriptedServer([Reply(200, {"tests": [{"id": UUID}], "page": page})]) as server:
        with pytest.raises(trunk_api.PaginationError) as repeated:
            Client(SECRET, server.url).iter_failing_tests("github.com/a/b", "org", "2026-11-19T00:00:00Z",
                                                          "2026-11-20T00:00:00Z").to_list()
    errors.append(repeated.value)
    assert_clean(*errors)
    for record in caplog.records:
        assert SECRET not in record.getMessage()


def test_validation_errors_never_quote_the_token() -> None:
    errors = []
    for bad in (SECRET + "\n", SECRET + "\r\nx-other: 1", "\x00" + SECRET):
        with pytest.raises(TrunkError) as caught:
            Client(bad, "http://127.0.0.1:1")
        errors.append(caught.value)
    with pytest.raises(TrunkError) as insecure:
        Client(SECRET, "http://example.com")
    errors.append(insecure.value)
    assert_clean(*errors)


def test_every_result_and_the_sandbox_hide_the_token() -> None:
    with trunk_api.Sandbox(tests=80, token=SECRET, now="2026-11-20T12:00:00Z") as box:
        client = box.client()
        repo = box.repos[0]
        page = client.list_failing_tests(repo, box.org_url_slug, box.now - timedelta(days=7), box.now, page_size=5)
        unhealthy = client.list_unhealthy_tests(repo, box.org_url_slug, "FLAKY", page_size=5)
        test = client.get_test_details(repo, box.org_url_slug, box.test_ids(repo)[0])
        settings = client.update_queue(repo, "main", concurrency=2)
        iterator = client.iter_failing_tests(repo, box.org_url_slug, box.now - timedelta(days=1), box.now)
        values: list[Any] = [client, box, page, page.page, unhealthy, test, test.status, settings, iterator,
                             box.requests, box.faults]
        values += list(page.tests) + list(iterator)
        assert_clean(*values)
        for request in box.requests:
            assert request.headers["x-api-token"] == "<redacted>"
            assert SECRET.encode() not in request.raw_body


def test_cli_in_its_own_process_never_prints_the_token() -> None:
    """The CLI as users run it: token only in the environment, debug logging on, success and failure."""
    with trunk_api.Sandbox(tests=80, token=SECRET, now="2026-11-20T12:00:00Z") as box:
        repo = box.repos[0]
        env = {**os.environ, "TRUNK_API_TOKEN": SECRET, "TRUNK_BASE_URL": box.url}
        env.pop("TRUNK_API_KEY", None)
        target = ["--repo", str(repo), "--org", box.org_url_slug]
        runs = [
            ["failing", "-vv", *target, "--since", "1d", "--format", "json"],
            ["unhealthy", "-vv", *target, "--format", "csv"],
            ["test", "-vv", *target, box.test_ids(repo)[0]],
            ["queue", "update", "-vv", "--repo", str(repo), "--branch", "main", "--concurrency", "3"],
            ["test", "-vv", *target, "not-a-uuid"],
            ["unhealthy", "-vv", "--base-url", "http://127.0.0.1:1", "--max-retries", "0", *target],
        ]
        codes = []
        for argv in runs:
            result = subprocess.run([sys.executable, "-m", "trunk_api", *argv], env=env, capture_output=True,
                                    text=True, timeout=120)
            codes.append(result.returncode)
            assert SECRET not in result.stdout and SECRET not in result.stderr, argv
    assert codes[:4] == [0, 0, 0, 0], codes
    assert all(code != 0 for code in codes[4:]), codes
