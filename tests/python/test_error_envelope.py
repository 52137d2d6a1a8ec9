"""Trunk v2's error envelope ({"error": {"code": ..., "message": ...}}) and X-Request-Id, read into the ApiError
classes: ``.code`` and ``.request_id`` from a real (scripted) HTTP server, in the message, kept by pickling; v1's
plain text and the edge's plain 429 leave ``.code`` empty."""

from __future__ import annotations

import json
import pickle

import pytest

import trunk_api
from trunk_api import (
    ApiError,
    BadRequestError,
    ConflictError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
)

from scripted_server import Received, Reply, ScriptedServer

TOKEN = "tok"
REPO = "github.com/acme/storefront"


def envelope(code: str, message: str) -> dict[str, object]:
    return {"error": {"code": code, "message": message}}


def get_queue_error(reply: Reply, cls: type[ApiError] = ApiError, token: str = TOKEN) -> ApiError:
    with ScriptedServer([reply]) as server:
        client = trunk_api.Client(token=token, base_url=server.url, max_retries=0)
        with pytest.raises(cls) as caught:
            client.get_queue(REPO, "main")
    return caught.value


def test_conflict_with_envelope_and_request_id() -> None:
    body = envelope("QUEUE_ALREADY_EXISTS", "A merge queue for main exists already")
    error = get_queue_error(Reply(409, body, {"X-Request-Id": "req-1"}), ConflictError)
    assert type(error) is ConflictError
    assert error.status_code == 409
    assert error.code == "QUEUE_ALREADY_EXISTS"
    assert error.request_id == "req-1"
    assert error.operation == "get_queue"
    assert json.loads(error.body) == body  # the raw body, as it came
    assert str(error) == ("get_queue: HTTP 409 (QUEUE_ALREADY_EXISTS): A merge queue for main exists already "
                          "[request id: req-1]")


def test_pickle_keeps_code_and_request_id() -> None:
    error = get_queue_error(Reply(409, envelope("QUEUE_ALREADY_EXISTS", "exists"), {"X-Request-Id": "req-1"}),
                            ConflictError)
    restored = pickle.loads(pickle.dumps(error))
    assert type(restored) is ConflictError
    assert (restored.status_code, restored.body, restored.operation) == (409, error.body, "get_queue")
    assert (restored.code, restored.request_id) == ("QUEUE_ALREADY_EXISTS", "req-1")
    assert str(restored) == str(error)


def test_rate_limit_pickle_keeps_retry_after_code_and_request_id() -> None:
    error = get_queue_error(Reply(429, envelope("RATE_LIMITED", "slow down"),
                                  {"Retry-After": "4", "X-Request-Id": "r-429"}), RateLimitError)
    assert isinstance(error, RateLimitError)
    assert (error.retry_after, error.code, error.request_id) == (4.0, "RATE_LIMITED", "r-429")
    assert str(error) == "get_queue: HTTP 429 (RATE_LIMITED): slow down (retry after 4 s) [request id: r-429]"
    restored = pickle.loads(pickle.dumps(error))
    assert type(restored) is RateLimitError
    assert (restored.retry_after, restored.code, restored.request_id) == (4.0, "RATE_LIMITED", "r-429")


def test_old_call_sites_and_old_pickles_default_to_empty() -> None:
    # Built as before the envelope (positional arguments only), and as a pickle of that time unpickles.
    for error in (ApiError("m", 500, "b", "op"), RateLimitError("m", 429, "b", "op", 1.0)):
        assert (error.code, error.request_id) == ("", "")
        restored = pickle.loads(pickle.dumps(error))
        assert (restored.code, restored.request_id, restored.status_code) == ("", "", error.status_code)
    old_reduce = (ConflictError, ("m", 409, "b", "op"))  # what __reduce__ gave before
    rebuilt = old_reduce[0](*old_reduce[1])
    assert (rebuilt.code, rebuilt.request_id) == ("", "")
    made = ServerError("m", 503, "b", "op", code="UNAVAILABLE", request_id="x")
    assert (made.code, made.request_id) == ("UNAVAILABLE", "x")


def test_permission_denied_names_the_operation() -> None:
    error = get_queue_error(Reply(403, envelope("INSUFFICIENT_PERMISSIONS", "The key may not read queues"),
                                  {"X-Request-Id": "req-403"}), PermissionDeniedError)
    assert type(error) is PermissionDeniedError
    assert error.code == "INSUFFICIENT_PERMISSIONS" and error.request_id == "req-403"
    assert str(error) == ("get_queue: HTTP 403 (INSUFFICIENT_PERMISSIONS): the credential sent lacks a permission "
                          "that get_queue needs: The key may not read queues [request id: req-403]")


def test_v1_plain_text_has_no_code_but_keeps_the_request_id() -> None:
    error = get_queue_error(Reply(400, "target_branch must not be empty", {"X-Request-Id": "v1-req"}),
                            BadRequestError)
    assert (error.code, error.request_id) == ("", "v1-req")
    assert error.body == "target_branch must not be empty"
    assert str(error) == "get_queue: HTTP 400: target_branch must not be empty [request id: v1-req]"
    bare = get_queue_error(Reply(400, "nope"), BadRequestError)
    assert (bare.code, bare.request_id, str(bare)) == ("", "", "get_queue: HTTP 400: nope")


def test_edge_rate_limit_without_envelope() -> None:
    error = get_queue_error(Reply(429, "Too Many Requests", {"Retry-After": "2"}), RateLimitError)
    assert isinstance(error, RateLimitError)
    assert (error.retry_after, error.code, error.request_id) == (2.0, "", "")
    assert str(error) == "get_queue: HTTP 429: Too Many Requests (retry after 2 s)"


def test_edge_rate_limit_is_still_retried() -> None:
    replies = [Reply(429, "Too Many Requests", {"Retry-After": "0"}),
               Reply(409, envelope("QUEUE_ALREADY_EXISTS", "exists"), {"X-Request-Id": "after-retry"})]
    with ScriptedServer(replies) as server:
        client = trunk_api.Client(token=TOKEN, base_url=server.url, max_retries=1)
        with pytest.raises(ConflictError) as caught:
            client.get_queue(REPO, "main")
    assert len(server.received) == 2
    assert (caught.value.code, caught.value.request_id) == ("QUEUE_ALREADY_EXISTS", "after-retry")


@pytest.mark.parametrize(
    "body",
    [
        {"error": "x"},
        {"error": {"code": 5}},
        {"error": {"message": "no code"}},
        {"error": None},
        [{"error": {"code": "X"}}],
        "{not json",
        "x" * 200_000,
        json.dumps(envelope("HUGE", "m" * 200_000)),
    ],
    ids=["error_string", "code_number", "no_code", "error_null", "array", "invalid_json", "huge_text",
         "huge_envelope"],
)
def test_malformed_envelopes_leave_code_empty(body: object) -> None:
    error = get_queue_error(Reply(400, body, {"X-Request-Id": "m-1"}), BadRequestError)  # type: ignore[arg-type]
    assert error.code == "" and error.request_id == "m-1"
    assert str(error).startswith("get_queue: HTTP 400") and str(error).endswith("[request id: m-1]")
    assert len(str(error)) < 600 and len(error.body) <= 4096


def test_token_echoed_in_the_envelope_is_redacted() -> None:
    secret = "tok-SECRET-0123456789"

    def echo(request: Received) -> Reply:
        token = request.headers.get("x-api-token", "")
        return Reply(400, envelope("VALIDATION_FAILED", f"token {token} is not valid here"),
                     {"X-Request-Id": f"id-{token}"})

    with ScriptedServer(responder=echo) as server:
        client = trunk_api.Client(token=secret, base_url=server.url, max_retries=0)
        with pytest.raises(BadRequestError) as caught:
            client.get_queue(REPO, "main")
    error = caught.value
    # Asserted without printing the texts, which could hold the token.
    leaks = [name for name, text in (("message", str(error)), ("body", error.body), ("code", error.code),
                                     ("request_id", error.request_id)) if secret in text]
    assert not leaks, f"the token is in: {leaks}"
    assert error.code == "VALIDATION_FAILED" and error.request_id == "id-[REDACTED]"
    assert "token [REDACTED] is not valid here" in str(error)


@pytest.mark.asyncio
async def test_async_client_carries_code_and_request_id() -> None:
    reply = Reply(409, envelope("PR_ALREADY_ENQUEUED", "PR 7 is in the queue"), {"X-Request-Id": "async-1"})
    with ScriptedServer([reply]) as server:
        async with trunk_api.AsyncClient(token=TOKEN, base_url=server.url, max_retries=0) as client:
            with pytest.raises(ConflictError) as caught:
                await client.get_queue(REPO, "main")
    assert (caught.value.code, caught.value.request_id) == ("PR_ALREADY_ENQUEUED", "async-1")
