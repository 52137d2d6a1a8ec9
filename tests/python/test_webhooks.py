"""Webhooks (trunk_api.webhooks): typed events, Svix-compatible verification checked against the published
vector and the svix package itself, the receiving helpers over real local HTTP, and `trunk-api webhooks
listen`."""

from __future__ import annotations

import asyncio
import copy
import datetime as dt
import http.client
import json
import os
import pickle
import subprocess
import sys
import threading
import time
import wsgiref.simple_server
from typing import Any

import pytest
import svix.webhooks

import trunk_api
from trunk_api import webhooks
from trunk_api._core import declarations
from trunk_api.webhooks import WebhookVerificationError



def program_env() -> dict[str, str]:
    """The environment of a started `trunk-api`, without the TRUNK_ variables of the one running the tests."""
    return {name: value for name, value in os.environ.items() if not name.startswith("TRUNK_")}

# The vector Svix's own libraries test their signing with.
VECTOR_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
VECTOR_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
VECTOR_TIMESTAMP = 1614265330
VECTOR_BODY = b'{"test": 2432232314}'
VECTOR_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
VECTOR_NOW = dt.datetime.fromtimestamp(VECTOR_TIMESTAMP, dt.timezone.utc)

FAILED = (b'{"type":"pull_request.failed","timestamp":"2026-03-02T17:04:11Z","action":"failed","status":"failed",'
          b'"author":"octo-dev","pr_number":4211,"repository":{"host":"github.com","owner":"acme","name":"webapp"},'
          b'"target_branch":"main","http_details_url":"https://app.trunk.io/gh/acme/webapp/merge/main/4211",'
          b'"batched":true,"is_bisection":false,"test_branch":"trunk-merge/pr-4209-4211/9f1c2e",'
          b'"test_branch_sha":"3b7e0c9d5a1f","test_pr_number":4230,"failure_reason":"TEST_RUN_REQUIRED_STATUS_FAILED"}')

TEST_CASE = {"id": "c1d2e3f4-0000-4a4a-8b8b-123456789abc", "name": "logs in with SSO", "classname": "AuthSpec",
             "file_path": "spec/auth_spec.rb", "codeowners": ["@acme/identity"], "quarantined": False, "variant": ""}
REPOSITORY = {"id": "0f7c2b9a-3e44-4c1e-8f0e-6b1f9a2d7c33", "html_url": "https://github.com/acme/webapp"}

EXAMPLES: dict[str, tuple[dict[str, Any], type]] = {
    **{f"pull_request.{action}": ({"type": f"pull_request.{action}", "action": action, "status": action,
                                   "pr_number": 7}, webhooks.PullRequestEvent)
       for action in ("submitted", "queued", "testing", "merged", "failed", "canceled", "pending_failure")},
    **{f"pull_request_batch.{action}": ({"type": f"pull_request_batch.{action}", "action": action, "status": action,
                                         "target_branch": "main", "pr_numbers": [4209, 4211],
                                         "pr_numbers_in_batch": [4209, 4211], "test_pr_number": 9},
                                        webhooks.PullRequestBatchEvent)
       for action in ("submitted", "queued", "testing", "merged", "failed", "canceled", "pending_failure")},
    "v2.test_case.status_changed": ({"type": "v2.test_case.status_changed", "timestamp": "2026-04-20T09:15:00Z",
                                     "previous_status": "HEALTHY", "new_status": "FLAKY",
                                     "triggered_by": {"monitor_id": "5a0d6c1e-7d1b-4c59-9a53-1d0f3b8e2a11",
                                                      "monitor_type": "pass_on_retry", "monitor_status": "active"},
                                     "repository": REPOSITORY, "test_case": TEST_CASE},
                                    webhooks.TestCaseStatusChangedEvent),
    "test_case.monitor_status_changed": ({"type": "test_case.monitor_status_changed",
                                          "monitor": {"id": "m1", "type": "pass_on_retry", "status": "resolved"},
                                          "evidence": {"runs": [1, 2]}, "repository": REPOSITORY,
                                          "test_case": TEST_CASE}, webhooks.TestCaseMonitorStatusChangedEvent),
    "test_case.quarantining_setting_changed": (
        {"type": "test_case.quarantining_setting_changed",
         "quarantine_setting_changed": {"actor": {"email": "dev@acme.io", "full_name": "Dana Dev"},
                                        "previous_quarantining_setting": "UNSPECIFIED",
                                        "updated_quarantining_setting": "ALWAYS_QUARANTINE",
                                        "reason": "blocks deploys", "timestamp": "2026-05-01T12:00:00Z"},
         "test_case": {**TEST_CASE, "test_suite": "spec/auth_spec.rb", "status": {"value": "flaky"}}},
        webhooks.TestCaseQuarantiningSettingChangedEvent),
    "test_case.investigation_completed": (
        {"type": "test_case.investigation_completed", "investigation_id": "9b2f", "confidence": 0.8,
         "created_at": "2026-04-21T08:00:00Z", "markdown_summary": "Race in session cache",
         "failure_message": "Timeout", "facts": [{"fact_type": "CI_LOGS", "content": "Seen", "confidence": 0.9}],
         "repository": REPOSITORY, "test_case": {**TEST_CASE, "parent": "AuthSpec"}},
        webhooks.TestCaseInvestigationCompletedEvent),
    "test_case.status_changed": ({"type": "test_case.status_changed",
                                  "status_change": {"previous_status": "healthy",
                                                    "current_status": {"value": "flaky"}},
                                  "test_case": {**TEST_CASE, "quarantine": False}},
                                 webhooks.LegacyTestCaseStatusChangedEvent),
}


def signed(body: bytes, secret: str = VECTOR_SECRET, msg_id: str = "msg_1", at: int | None = None) -> dict[str, str]:
    timestamp = int(time.time()) if at is None else at
    return {"svix-id": msg_id, "svix-timestamp": str(timestamp),
            "svix-signature": webhooks.sign(secret, msg_id, timestamp, body)}


def reason_of(body: Any, headers: Any, secret: Any = VECTOR_SECRET, **kwargs: Any) -> str:
    with pytest.raises(WebhookVerificationError) as caught:
        webhooks.verify(body, headers, secret, **kwargs)
    return caught.value.reason


# ---- the published vector and the svix package as oracles ----------------------------------------------------

def test_the_published_vector_signs_and_verifies_on_its_clock() -> None:
    assert webhooks.sign(VECTOR_SECRET, VECTOR_ID, VECTOR_TIMESTAMP, VECTOR_BODY) == VECTOR_SIGNATURE
    assert webhooks.sign(VECTOR_SECRET, VECTOR_ID, VECTOR_NOW, VECTOR_BODY) == VECTOR_SIGNATURE
    headers = {"svix-id": VECTOR_ID, "svix-timestamp": str(VECTOR_TIMESTAMP), "svix-signature": VECTOR_SIGNATURE}
    event = webhooks.verify(VECTOR_BODY, headers, VECTOR_SECRET, now=VECTOR_NOW)
    assert isinstance(event, webhooks.UnknownEvent) and event.type is None and event.extra == {"test": 2432232314}
    # On the real clock the 2021 vector is stale; the published negative case never matches.
    assert reason_of(VECTOR_BODY, headers) == "timestamp_outside_tolerance"
    forged = {**headers, "svix-signature": "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="}
    assert reason_of(VECTOR_BODY, forged, now=VECTOR_NOW) == "bad_signature"


def test_svix_signs_we_verify_and_we_sign_svix_verifies() -> None:
    secret = webhooks.WebhookSecret.generate().reveal()
    theirs = svix.webhooks.Webhook(secret)
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    for number, (body_dict, cls) in enumerate(EXAMPLES.values()):
        body = json.dumps(body_dict, separators=(",", ":"))
        msg_id = f"msg_oracle_{number}"
        headers = {"svix-id": msg_id, "svix-timestamp": str(int(now.timestamp())),
                   "svix-signature": theirs.sign(msg_id, now, body)}
        assert isinstance(webhooks.verify(body.encode(), headers, secret), cls)
        ours = {**headers, "svix-signature": webhooks.sign(secret, msg_id, now, body.encode())}
        assert ours["svix-signature"] == headers["svix-signature"]
        theirs.verify(body, ours)  # raises when it disagrees
    # A body svix would refuse, we refuse too.
    tampered = {"svix-id": "msg_x", "svix-timestamp": str(int(now.timestamp())),
                "svix-signature": webhooks.sign(secret, "msg_x", now, b"{}")}
    with pytest.raises(svix.webhooks.WebhookVerificationError):
        theirs.verify("{} ", tampered)
    assert reason_of(b"{} ", tampered, secret) == "bad_signature"


# ---- the rules of verification -------------------------------------------------------------------------------

def test_rotation_any_listed_v1_signature_passes() -> None:
    old = webhooks.WebhookSecret.generate()
    new = webhooks.WebhookSecret.generate()
    headers = signed(FAILED, secret=new.reveal())
    both = f"{headers['svix-signature']} {old.sign('msg_1', int(headers['svix-timestamp']), FAILED)}"
    for secret in (old, new):
        assert webhooks.verify(FAILED, {**headers, "svix-signature": both}, secret).pr_number == 4211
    assert reason_of(FAILED, {**headers, "svix-signature": both}, webhooks.WebhookSecret.generate()) == "bad_signature"
    # Other versions are skipped, not failed on.
    assert webhooks.verify(FAILED, {**headers, "svix-signature": "v1a,AAAA " + headers["svix-signature"]}, new)


@pytest.mark.parametrize(("offset", "accepted"), [(300, True), (301, False), (-300, True), (-301, False), (0, True)])
def test_tolerance_boundaries_both_ways(offset: int, accepted: bool) -> None:
    headers = signed(FAILED, at=VECTOR_TIMESTAMP)
    now = VECTOR_NOW + dt.timedelta(seconds=offset)
    if accepted:
        assert webhooks.verify(FAILED, headers, VECTOR_SECRET, now=now).pr_number == 4211
    else:
        assert reason_of(FAILED, headers, now=now) == "timestamp_outside_tolerance"


def test_the_tolerance_is_the_callers() -> None:
    headers = signed(FAILED, at=VECTOR_TIMESTAMP)
    later = VECTOR_NOW + dt.timedelta(minutes=10)
    assert webhooks.verify(FAILED, headers, VECTOR_SECRET, now=later, tolerance=dt.timedelta(minutes=10))
    assert reason_of(FAILED, headers, now=later, tolerance=dt.timedelta(seconds=599)) == "timestamp_outside_tolerance"
    with pytest.raises(ValueError):
        webhooks.verify(FAILED, headers, VECTOR_SECRET, tolerance=dt.timedelta(seconds=-1))


def test_forged_truncated_and_altered_deliveries_are_refused() -> None:
    headers = signed(FAILED)
    assert reason_of(FAILED[:-1], headers) == "bad_signature"
    assert reason_of(FAILED.replace(b"4211", b"4212"), headers) == "bad_signature"
    assert reason_of(FAILED, {**headers, "svix-id": "msg_2"}) == "bad_signature"
    assert reason_of(FAILED, {**headers, "svix-signature": headers["svix-signature"][:-4]}) == "bad_signature"
    assert reason_of(FAILED, headers, webhooks.WebhookSecret.generate()) == "bad_signature"
    # Re-serialised JSON is other bytes: the check is on what was received.
    assert reason_of(json.dumps(json.loads(FAILED)).encode(), headers) == "bad_signature"


@pytest.mark.parametrize("missing", ["svix-id", "svix-timestamp", "svix-signature"])
def test_every_header_is_required(missing: str) -> None:
    headers = signed(FAILED)
    without = {name: value for name, value in headers.items() if name != missing}
    assert reason_of(FAILED, without) == "missing_header"
    assert reason_of(FAILED, {**headers, missing: ""}) == "missing_header"
    error = pytest.raises(WebhookVerificationError, webhooks.verify, FAILED, without, VECTOR_SECRET).value
    assert missing in str(error)


@pytest.mark.parametrize("timestamp", ["1614265330.0", "soon", "", " 1614265330", "0x10", "1e9"])
def test_timestamps_that_are_not_whole_seconds(timestamp: str) -> None:
    headers = {**signed(FAILED), "svix-timestamp": timestamp}
    assert reason_of(FAILED, headers) in ("malformed_header", "missing_header")
    if timestamp:
        assert reason_of(FAILED, headers) == "malformed_header"


@pytest.mark.parametrize("secret", ["", "whsec_", "whsk_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
                                    "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS", "whsec_MfKQ9r8GKYqrTwjU%D8ILPZIo2LaLaSw",
                                    "WHSEC_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n"])
def test_wrong_secret_formats(secret: str) -> None:
    with pytest.raises(WebhookVerificationError) as caught:
        webhooks.verify(FAILED, signed(FAILED), secret)
    assert caught.value.reason == "bad_secret_format"
    if len(secret) > 10:
        assert secret[6:] not in str(caught.value) and secret[5:] not in str(caught.value)


def test_non_utf8_bodies() -> None:
    body = b'{"type":"pull_request.merged","author":"\xff\xfe"}'
    assert reason_of(body, signed(FAILED)) == "bad_signature"  # not signed: refused before anything is read
    assert reason_of(body, signed(body)) == "malformed_body"  # signed, but not an event
    for not_an_event in (b"[1]", b"nope", b'{"pr_number":', b'{"type":"pull_request.merged","pr_number":"seven"}'):
        assert reason_of(not_an_event, signed(not_an_event)) == "malformed_body"


@pytest.mark.parametrize("size", [64 * 1024 - 100, 64 * 1024 + 100, 8 << 20])
def test_huge_bodies_with_and_without_the_gil(size: int) -> None:
    body = b'{"type":"pull_request.merged","pad":"' + b"x" * size + b'"}'
    headers = signed(body)
    assert isinstance(webhooks.verify(body, headers, VECTOR_SECRET), webhooks.PullRequestEvent)
    assert isinstance(webhooks.verify(bytearray(body), headers, VECTOR_SECRET), webhooks.PullRequestEvent)
    altered = body[:-10] + b"y" + body[-9:]
    assert reason_of(altered, headers) == "bad_signature"
    # Read without the GIL too from 64 KiB on: a signed body that is no event, or of an unknown type.
    truncated = body[:-2]
    assert reason_of(truncated, signed(truncated)) == "malformed_body"
    unknown = body.replace(b"pull_request.merged", b"pull_request.teleported", 1)
    assert webhooks.verify(unknown, signed(unknown), VECTOR_SECRET).type == "pull_request.teleported"


def test_errors_never_show_the_secret_or_the_body() -> None:
    body = b'{"type":"pull_request.merged","author":"private-author-name"}'
    for headers, secret in ((signed(FAILED), VECTOR_SECRET), (signed(body, at=0), VECTOR_SECRET),
                            ({}, VECTOR_SECRET), (signed(body), VECTOR_SECRET + "!")):
        with pytest.raises(WebhookVerificationError) as caught:
            webhooks.verify(body, headers, secret)
        text = str(caught.value) + repr(caught.value) + repr(pickle.loads(pickle.dumps(caught.value)))
        assert "private-author-name" not in text and "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" not in text
    error = pickle.loads(pickle.dumps(caught.value))
    assert isinstance(error, trunk_api.TrunkError) and isinstance(error, ValueError)
    assert error.reason == caught.value.reason


def test_secrets_are_never_shown_or_pickled() -> None:
    secret = webhooks.WebhookSecret(VECTOR_SECRET)
    assert "MfKQ" not in repr(secret) and "MfKQ" not in str(secret)
    with pytest.raises(TypeError):
        pickle.dumps(secret)
    assert copy.copy(secret).reveal() == copy.deepcopy(secret).reveal() == VECTOR_SECRET
    receiver = webhooks.Receiver(VECTOR_SECRET, lambda event, message_id: None)
    assert "MfKQ" not in repr(receiver)
    with pytest.raises(TypeError):
        pickle.dumps(receiver)
    with pytest.raises(TypeError, match="not int"):
        webhooks.verify(FAILED, signed(FAILED), 1234)  # type: ignore[arg-type]


def test_headers_from_any_mapping_in_any_case() -> None:
    headers = signed(FAILED)
    forms: list[Any] = [
        {name.upper(): value for name, value in headers.items()},
        [(name.encode(), value.encode()) for name, value in headers.items()],  # ASGI's raw headers
        {name.replace("svix-", "webhook-"): value for name, value in headers.items()},  # Standard Webhooks
        http.client.parse_headers(__import__("io").BytesIO(
            "".join(f"{name}: {value}\r\n" for name, value in headers.items()).encode() + b"\r\n")),
    ]
    for form in forms:
        assert webhooks.verify(FAILED, form, VECTOR_SECRET).pr_number == 4211
        assert webhooks.delivery_id(form) == "msg_1"
    for body in (FAILED.decode(), memoryview(FAILED), bytearray(FAILED)):
        assert webhooks.verify(body, headers, VECTOR_SECRET).pr_number == 4211
    with pytest.raises(TypeError):
        webhooks.verify(12, headers, VECTOR_SECRET)  # type: ignore[arg-type]


def test_headers_dicts_with_odd_entries_read_as_any_mapping() -> None:
    """A plain dict is walked in place (the fast path); what it may hold besides str reads as in any mapping."""
    headers = signed(FAILED)
    odd: dict[Any, Any] = {7: "seven", None: "no name", "x-other": None, b"svix-id": b"msg_1",
                           "webhook-id": "msg_ignored", **{k: v for k, v in headers.items() if k != "svix-id"}}
    assert webhooks.verify(FAILED, odd, VECTOR_SECRET).pr_number == 4211
    assert webhooks.delivery_id(odd) == "msg_1"  # svix-* wins over webhook-*, bytes names and values read

    class Lowered(dict):  # type: ignore[type-arg]
        """A dict subclass with its own items(): read through items(), as any mapping."""

        def items(self):  # type: ignore[no-untyped-def]
            return [(name.lower(), value) for name, value in super().items()]

    assert webhooks.delivery_id(Lowered({"SVIX-ID": "msg_9"})) == "msg_9"
    assert webhooks.delivery_id({"svix-id": 12}) == "12"  # str() of a value that is not text
    assert reason_of(FAILED, {"svix-id": None, "svix-timestamp": headers["svix-timestamp"],
                              "svix-signature": headers["svix-signature"]}) == "missing_header"


# ---- events ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("event_type", sorted(EXAMPLES))
def test_every_declared_type_reads_as_its_class(event_type: str) -> None:
    body_dict, cls = EXAMPLES[event_type]
    event = webhooks.construct_event(json.dumps(body_dict).encode())
    assert type(event) is cls
    assert event.type == webhooks.WebhookEventType(event_type)
    assert event.to_dict() == body_dict  # unknown fields included: nothing lost
    assert pickle.loads(pickle.dumps(event)) == event
    assert cls.from_dict(event.to_dict()) == event


def test_every_event_type_has_an_example_here() -> None:
    assert {member.value for member in webhooks.WebhookEventType} == set(EXAMPLES)


def test_typed_fields() -> None:
    failed = webhooks.construct_event(FAILED)
    assert failed.action is webhooks.QueueEventAction.FAILED and failed.repository.owner == "acme"
    assert failed.timestamp == dt.datetime(2026, 3, 2, 17, 4, 11, tzinfo=dt.timezone.utc)
    status = webhooks.construct_event(json.dumps(EXAMPLES["v2.test_case.status_changed"][0]))
    assert status.new_status is trunk_api.QuarantinedTestStatus.FLAKY
    assert status.triggered_by.monitor_status is webhooks.MonitorStatus.ACTIVE
    assert isinstance(status.test_case, trunk_api.TestCase) and status.test_case.codeowners == ["@acme/identity"]
    quarantine = webhooks.construct_event(json.dumps(EXAMPLES["test_case.quarantining_setting_changed"][0]))
    change = quarantine.quarantine_setting_changed
    assert change.updated_quarantining_setting is webhooks.QuarantiningSetting.ALWAYS_QUARANTINE
    assert change.actor.full_name == "Dana Dev" and quarantine.test_case.extra == {"test_suite": "spec/auth_spec.rb"}
    monitor = webhooks.construct_event(json.dumps(EXAMPLES["test_case.monitor_status_changed"][0]))
    assert monitor.evidence == {"runs": [1, 2]} and monitor.monitor.status is webhooks.MonitorStatus.RESOLVED
    investigation = webhooks.construct_event(json.dumps(EXAMPLES["test_case.investigation_completed"][0]))
    assert investigation.facts[0].confidence == 0.9 and investigation.test_case.parent == "AuthSpec"
    batch = webhooks.construct_event(json.dumps(EXAMPLES["pull_request_batch.pending_failure"][0]))
    assert batch.pr_numbers == [4209, 4211] and batch.action is webhooks.QueueEventAction.PENDING_FAILURE
    queued = webhooks.construct_event(b'{"type":"pull_request.queued","queued_reason":"BISECTION_REQUIRED"}')
    assert queued.queued_reason is webhooks.QueuedReason.BISECTION_REQUIRED
    later = webhooks.construct_event(b'{"type":"pull_request.failed","failure_reason":"A_REASON_FROM_LATER"}')
    assert later.failure_reason == "A_REASON_FROM_LATER"  # a value Trunk adds later: kept as sent


def test_unknown_types_and_values_never_fail() -> None:
    event = webhooks.construct_event(b'{"type":"merge_queue.teleported","warp":{"speed":9}}')
    assert isinstance(event, webhooks.UnknownEvent) and event.type == "merge_queue.teleported"
    assert event.extra == {"warp": {"speed": 9}} and event.to_dict()["warp"] == {"speed": 9}
    assert isinstance(webhooks.construct_event(b'{"type":7}'), webhooks.UnknownEvent)
    assert isinstance(webhooks.construct_event(b"{}"), webhooks.UnknownEvent)
    odd = webhooks.construct_event(b'{"type":"pull_request.merged","status":"vanished","new_key":1}')
    assert odd.status == "vanished" and not isinstance(odd.status, webhooks.QueueEventAction)
    assert odd.extra == {"new_key": 1}
    # Older pull_request.* payloads carry no type: the action tells.
    old = webhooks.construct_event(b'{"action":"queued","status":"queued","pr_number":3}')
    assert isinstance(old, webhooks.PullRequestEvent) and old.type is None and old.pr_number == 3
    with pytest.raises(trunk_api.DecodeError):
        webhooks.construct_event(b"[]")


def test_events_match_by_class_and_field() -> None:
    match webhooks.construct_event(FAILED):
        case webhooks.PullRequestEvent(action=webhooks.QueueEventAction.FAILED, pr_number=number):
            assert number == 4211
        case _:
            pytest.fail("no match")


# ---- receiving ------------------------------------------------------------------------------------------------

def test_a_replayed_delivery_is_handled_once() -> None:
    handled: list[str] = []
    receiver = webhooks.Receiver(VECTOR_SECRET, lambda event, message_id: handled.append(message_id))
    headers = signed(FAILED)
    assert [receiver.receive(FAILED, headers) for _ in range(3)] == [204, 204, 204]
    assert handled == ["msg_1"]
    assert receiver.receive(FAILED, signed(FAILED, msg_id="msg_2")) == 204 and handled == ["msg_1", "msg_2"]
    assert receiver.receive(FAILED[:-1], headers) == 400 and receiver.last_error.reason == "bad_signature"


def test_a_failing_handler_gets_the_retry() -> None:
    calls: list[str] = []

    def flaky_handler(event: Any, message_id: str) -> None:
        calls.append(message_id)
        if len(calls) == 1:
            raise RuntimeError("database down")

    receiver = webhooks.Receiver(VECTOR_SECRET, flaky_handler)
    headers = signed(FAILED)
    assert receiver.receive(FAILED, headers) == 500
    assert receiver.receive(FAILED, headers) == 204
    assert receiver.receive(FAILED, headers) == 204
    assert calls == ["msg_1", "msg_1"]


def test_the_deduplicator_forgets_the_oldest() -> None:
    seen = webhooks.Deduplicator(capacity=2)
    # "a" seen again becomes the newest, so "c" pushes "b" out; then "b" pushes "a" out.
    assert [seen.first_time(i) for i in ("a", "b", "a", "c", "b", "a")] == [True, True, False, True, True, True]
    assert len(seen) == 2
    with pytest.raises(ValueError):
        webhooks.Deduplicator(capacity=0)


def post(port: int, body: bytes, headers: dict[str, str], method: str = "POST") -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(method, "/hooks", body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def test_the_wsgi_receiver_over_real_http() -> None:
    handled: list[Any] = []
    receiver = webhooks.Receiver(VECTOR_SECRET, lambda event, message_id: handled.append(event), max_body_bytes=4096)
    server = wsgiref.simple_server.make_server("127.0.0.1", 0, receiver.wsgi,
                                               handler_class=type("Quiet", (wsgiref.simple_server.WSGIRequestHandler,),
                                                                  {"log_message": lambda *args: None}))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        headers = signed(FAILED)
        assert post(port, FAILED, headers) == 204
        assert post(port, FAILED, headers) == 204  # the retry
        assert post(port, FAILED + b" ", headers) == 400
        assert post(port, b"", {}, method="GET") == 405
        big = b"{" + b" " * 5000 + b"}"
        assert post(port, big, signed(big)) == 413
        assert [event.pr_number for event in handled] == [4211]
    finally:
        server.shutdown()
        server.server_close()


def test_the_asgi_receiver() -> None:
    handled: list[str] = []
    receiver = webhooks.Receiver(VECTOR_SECRET, lambda event, message_id: handled.append(str(event.type)))
    headers = signed(FAILED)

    async def call(method: str, chunks: list[bytes], raw_headers: list[tuple[bytes, bytes]]) -> int:
        messages = [{"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1}
                    for i, chunk in enumerate(chunks)]
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return messages.pop(0)

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await receiver.asgi({"type": "http", "method": method, "headers": raw_headers}, receive, send)
        return int(sent[0]["status"])

    raw = [(name.encode(), value.encode()) for name, value in headers.items()]
    assert asyncio.run(call("POST", [FAILED[:100], FAILED[100:]], raw)) == 204
    assert asyncio.run(call("POST", [FAILED], raw)) == 204
    assert asyncio.run(call("POST", [FAILED[:-1]], raw)) == 400
    assert asyncio.run(call("GET", [b""], raw)) == 405
    assert handled == ["pull_request.failed"]


def test_cli_listen_verifies_and_prints_ndjson_then_stops_by_itself() -> None:
    secret = webhooks.WebhookSecret.generate().reveal()
    env = {**program_env(), "TRUNK_WEBHOOK_SECRET": secret}
    process = subprocess.Popen([sys.executable, "-m", "trunk_api", "webhooks", "listen", "--port", "0",
                                "--max-events", "2", "--timeout", "60"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = process.stderr.readline()
        assert "listening on http://127.0.0.1:" in line, line
        port = int(line.split("127.0.0.1:")[1].split("/")[0])
        merged = json.dumps(EXAMPLES["pull_request.merged"][0]).encode()
        assert post(port, FAILED, signed(FAILED, secret=secret, msg_id="msg_a")) == 204
        assert post(port, FAILED, signed(FAILED, secret=secret, msg_id="msg_a")) == 204  # a retry: printed once
        assert post(port, FAILED, signed(FAILED, msg_id="msg_forged")) == 400
        assert post(port, merged, signed(merged, secret=secret, msg_id="msg_b")) == 204
        stdout, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0
    lines = [json.loads(line) for line in stdout.splitlines()]
    assert [(line["svix_id"], line["type"]) for line in lines] == [("msg_a", "pull_request.failed"),
                                                                   ("msg_b", "pull_request.merged")]
    assert lines[0]["event"] == json.loads(FAILED)
    assert "refused" in stderr and "bad_signature" in stderr and secret not in stderr + stdout


def test_cli_listen_needs_a_secret() -> None:
    finished = subprocess.run([sys.executable, "-m", "trunk_api", "webhooks", "listen", "--timeout", "1"],
                              capture_output=True, text=True, env=program_env(), timeout=60)
    assert finished.returncode == 2 and "TRUNK_WEBHOOK_SECRET" in finished.stderr


def test_cli_listen_table_on_a_terminal() -> None:
    from trunk_api import _cli_webhooks

    out = __import__("io").StringIO()
    printer = _cli_webhooks._Printer(out, "table")
    printer(webhooks.construct_event(FAILED), "msg_a")
    printer(webhooks.construct_event(json.dumps(EXAMPLES["v2.test_case.status_changed"][0])), "msg_b")
    header, first, second = out.getvalue().splitlines()
    assert header.split() == ["RECEIVED", "SVIX-ID", "TYPE", "SUBJECT"]
    assert "msg_a" in first and "pull_request.failed" in first and "PR #4211 acme/webapp -> main" in first
    assert "v2.test_case.status_changed" in second and second.endswith("logs in with SSO")


# ---- the OpenAPI document -------------------------------------------------------------------------------------

PUBLISHED_FLAKY_TEST_EVENTS = ("test_case.status_changed", "test_case.quarantining_setting_changed")


def test_the_openapi_document_declares_every_webhook() -> None:
    document = json.loads(declarations.openapi_document())
    assert set(document["webhooks"]) == set(EXAMPLES)
    for name, (_, cls) in EXAMPLES.items():
        operation = document["webhooks"][name]["post"]
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
        if name.startswith(("pull_request.", "pull_request_batch.")) or name in PUBLISHED_FLAKY_TEST_EVENTS:
            # An event's own schema (a queue event's fields depend on its type; a published flaky-test event's
            # parts are spelled out with what they always carry), made from the same model.
            assert schema["properties"]["type"]["const"] == name
            assert set(schema["properties"]) <= set(document["components"]["schemas"][cls.__name__]["properties"])
        else:
            assert schema["$ref"] == f"#/components/schemas/{cls.__name__}"
        assert {parameter["name"] for parameter in operation["parameters"]} == {"svix-id", "svix-timestamp",
                                                                                "svix-signature"}
