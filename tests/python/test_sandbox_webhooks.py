"""The sandbox sends webhooks, seen from Python: a real local receiver (trunk_api.webhooks.Receiver served by
wsgiref on 127.0.0.1:0) gets every event of a pull request's life as typed, verified events; a failing receiver
is retried on Svix's schedule on the virtual clock with the same message id; duplicates are injected on request
and the Deduplicator absorbs them; bad endpoints are refused naming the field, never echoing the secret.
(The C++ suite covers the schedule, jitter and batches in detail: tests/cpp/sandbox/webhook_sending_test.cpp.)"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

import trunk_api
from trunk_api import Sandbox
from trunk_api.sandbox import WebhookEndpoint
from trunk_api.webhooks import PullRequestEvent, Receiver, WebhookSecret, verify

from served_wsgi import Served

NOW = datetime(2026, 11, 20, 12, 0, 0, tzinfo=timezone.utc)


@pytest.fixture
def box() -> Iterator[Sandbox]:
    with Sandbox(seed=3, tests=60, now=NOW, clock="virtual", flaky_failure_rate=0.0,
                 broken_pull_request_rate=0.0) as sandbox:
        yield sandbox


def _receiving(box: Sandbox, handler: Any, **options: Any) -> tuple[WebhookEndpoint, Receiver, Served]:
    secret = WebhookSecret.generate()
    receiver = Receiver(secret, handler)
    served = Served(receiver.wsgi)
    endpoint = box.add_webhook(served.url, secret=secret, **options)
    return endpoint, receiver, served


def test_a_pull_requests_life_arrives_as_typed_verified_events(box):
    events: list[tuple[Any, str]] = []
    endpoint, _, served = _receiving(box, lambda event, message_id: events.append((event, message_id)))
    try:
        client = box.client()
        repo = box.repos[0]
        client.submit_pull_request(repo, 42, "main")
        box.advance(minutes=30)
    finally:
        served.close()
    assert [str(e.action) for e, _ in events] == ["submitted", "queued", "testing", "merged"]
    assert all(isinstance(e, PullRequestEvent) for e, _ in events)
    merged = events[-1][0]
    assert merged.pr_number == 42 and merged.target_branch == "main"
    assert merged.repository.owner == repo.owner and merged.test_branch.startswith("trunk-merge/main/pr-42/")
    assert merged.timestamp >= NOW  # the sandbox clock's time of the transition
    deliveries = box.webhook_deliveries
    assert [d.event_type for d in deliveries] == [
        "pull_request.submitted", "pull_request.queued", "pull_request.testing", "pull_request.merged"]
    assert all(d.status == 204 and d.succeeded and d.attempt == 1 and d.pr_number == 42 for d in deliveries)
    assert [d.message_id for d in deliveries] == [m for _, m in events]
    assert all(d.endpoint_id == endpoint.id and d.latency >= timedelta(0) for d in deliveries)
    assert box.webhooks == [endpoint]


def test_the_endpoint_never_prints_its_secret_and_signs_with_the_one_given(box):
    endpoint = box.add_webhook("http://127.0.0.1:9/x", secret="whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
    assert "MfKQ9r8" not in repr(endpoint) and "MfKQ9r8" not in repr(box.webhooks)
    assert endpoint.secret.reveal() == "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    generated = box.add_webhook("http://127.0.0.1:9/y", events=["pull_request.merged"])
    assert generated.secret.reveal().startswith("whsec_") and generated.events == ("pull_request.merged",)
    assert box.remove_webhook(generated) and not box.remove_webhook(generated.id)


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"url": "ftp://example.com"}, "url"),
    ({"url": ""}, "url"),
    ({"url": "http://x", "events": ["pull_request.merged", "pr.merged"]}, "events[1]"),
    ({"url": "http://x", "secret": "whsec_!!not-base64-s3cr3t"}, "secret"),
    ({"url": "http://x", "events": []}, "events"),  # left out means every type; an empty list is refused, as Svix does
    ({"url": "http://x:99999/"}, "url"),
    ({"url": "http://"}, "url"),
    ({"url": "http://x", "secret": "whsec_czNjcjN0"}, "secret"),  # a 6-byte key: Svix takes 24 to 75
])
def test_bad_endpoints_are_refused_naming_the_field(box, kwargs, field):
    with pytest.raises(trunk_api.ValidationError) as raised:
        box.add_webhook(**kwargs)
    assert field in str(raised.value)
    assert "s3cr3t" not in str(raised.value)
    assert box.webhooks == []


def test_credentials_in_an_endpoints_url_are_sent_but_never_shown(box):
    endpoint = box.add_webhook("https://bot:hunter2@hooks.example.com/trunk")
    assert endpoint.url == "https://bot:hunter2@hooks.example.com/trunk"
    assert repr(endpoint) == f"WebhookEndpoint(id={endpoint.id!r}, url='https://***@hooks.example.com/trunk', events=())"
    assert "hunter2" not in repr(box.webhooks)
    with pytest.raises(trunk_api.ValidationError) as raised:
        box.add_webhook("https://bot:hunter2@:99999/trunk")
    assert "hunter2" not in str(raised.value) and "https://***@:99999/trunk" in str(raised.value)


def test_an_endpoints_secret_never_enters_the_request_record(box):

    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    request = urllib.request.Request(f"{box.url}/sandbox/webhooks", method="POST",
                                     data=json.dumps({"url": "http://127.0.0.1:9/x", "secret": secret}).encode(),
                                     headers={"x-api-token": box.token, "Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        assert answer.status == 201
    recorded = [r for r in box.requests if r.path == "/sandbox/webhooks"]
    assert len(recorded) == 1
    assert recorded[0].body == {"url": "http://127.0.0.1:9/x", "secret": "<redacted>"}
    assert b"MfKQ9r8" not in recorded[0].raw_body and "MfKQ9r8" not in repr(box.requests)


def test_events_must_be_a_list_not_a_string(box):
    with pytest.raises(TypeError, match="events"):
        box.add_webhook("http://x", events="pull_request.merged")  # type: ignore[arg-type]


def test_a_failing_receiver_is_retried_with_the_same_message_id(box):
    calls: list[str] = []

    def handler(event: Any, message_id: str) -> None:
        calls.append(message_id)
        if len(calls) < 3:
            raise RuntimeError("not yet")  # the Receiver answers 500: Svix retries

    _, _, served = _receiving(box, handler, events=["pull_request.submitted"])
    try:
        box.client().submit_pull_request(box.repos[0], 5, "main")
        box.advance(seconds=1)
        assert len(calls) == 1
        box.advance(seconds=5)  # the second attempt, 5 s after the first
        assert len(calls) == 2
        box.advance(minutes=5)  # the third, 5 min after the second: handled
    finally:
        served.close()
    assert len(calls) == 3 and len(set(calls)) == 1
    log = box.webhook_deliveries
    assert [(d.attempt, d.status) for d in log] == [(1, 500), (2, 500), (3, 204)]
    assert log[0].next_attempt == log[1].at and log[2].next_attempt is None


def test_injected_duplicates_reach_the_receiver_and_the_deduplicator_absorbs_them(box):
    box.set_faults(webhook_duplicate_rate=1.0)
    handled: list[str] = []
    _, receiver, served = _receiving(box, lambda event, message_id: handled.append(message_id))
    try:
        box.client().submit_pull_request(box.repos[0], 8, "main")
        box.advance(minutes=30)
    finally:
        served.close()
    log = box.webhook_deliveries
    assert len(log) == 8 and sum(d.duplicate for d in log) == 4
    assert len(handled) == 4 and len(set(handled)) == 4  # each event handled once
    assert box.faults["webhook_duplicate_rate"] == 1.0


def test_webhook_fault_settings_are_validated(box):
    with pytest.raises(trunk_api.ValidationError, match="webhook_duplicate_rate"):
        box.set_faults(webhook_duplicate_rate=1.5)
    with pytest.raises(trunk_api.ValidationError, match="webhook_jitter_ms"):
        box.set_faults(webhook_jitter_ms=-1)


def test_a_bare_http_receiver_verifies_with_the_endpoint_secret(box):
    """Any HTTP server in any language: the headers and body are Svix's."""
    got: list[tuple[bytes, dict[str, str]]] = []

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        got.append((body, {k[5:].replace("_", "-").lower(): v for k, v in environ.items() if k.startswith("HTTP_")}))
        start_response("200 OK", [("Content-Length", "0")])
        return [b""]

    served = Served(app)
    try:
        endpoint = box.add_webhook(served.url, events=["pull_request.submitted"])
        box.client().submit_pull_request(box.repos[0], 11, "main")
        box.advance(seconds=1)
    finally:
        served.close()
    (body, headers), = got
    assert headers["svix-id"].startswith("msg_") and headers["svix-signature"].startswith("v1,")
    event = verify(body, headers, endpoint.secret)
    assert event.pr_number == 11 and str(event.type) == "pull_request.submitted"
    with pytest.raises(trunk_api.webhooks.WebhookVerificationError):
        verify(body, headers, WebhookSecret.generate())


def test_setting_a_tests_status_changes_the_listing_and_sends_the_v2_event(box):
    events: list[Any] = []
    _, _, served = _receiving(box, lambda event, _: events.append(event), events=["v2.test_case.status_changed"])
    client = box.client()
    repo = box.repos[0]
    flaky = {t.id for t in client.list_unhealthy_tests(repo, box.org_url_slug, "FLAKY").tests}
    broken = {t.id for t in client.list_unhealthy_tests(repo, box.org_url_slug, "BROKEN").tests}
    test_id = next(i for i in box.test_ids(repo) if i not in flaky | broken)
    try:
        assert box.set_test_status(test_id, "BROKEN") is True
        assert box.set_test_status(test_id, "broken") is False  # already: nothing sent
    finally:
        served.close()
    assert test_id in {t.id for t in client.list_unhealthy_tests(repo, box.org_url_slug, "BROKEN").tests}
    assert str(client.get_test_details(repo, box.org_url_slug, test_id).status.value) == "broken"
    (event,) = events
    assert isinstance(event, trunk_api.webhooks.TestCaseStatusChangedEvent)
    assert (str(event.previous_status), str(event.new_status)) == ("HEALTHY", "BROKEN")
    assert event.test_case.id == test_id and event.timestamp == box.clock_now
    with pytest.raises(trunk_api.ValidationError, match="status"):
        box.set_test_status(test_id, "wobbly")
    with pytest.raises(trunk_api.ValidationError, match="test_id"):
        box.set_test_status("nope", "FLAKY")


def test_a_persons_quarantine_override_sends_its_event_and_one_made_with_a_key_sends_none(box):
    events: list[Any] = []
    _, _, served = _receiving(box, lambda event, _: events.append(event),
                              events=["test_case.quarantining_setting_changed"])
    client = box.client()
    repo = box.repos[0]
    quarantined = {t.test_case_id for t in client.iter_quarantined_tests(repo, box.org_url_slug)}
    free = [i for i in box.test_ids(repo) if i not in quarantined]
    try:
        assert box.set_quarantine(free[0], "alwaysQuarantine", reason="flaky in CI") is True
        assert box.set_quarantine(free[0], trunk_api.enums.QuarantineOverrideMode.ALWAYS_QUARANTINE) is False
        client.v2.tests.set_quarantine(free[1], "alwaysQuarantine")  # through the API: no event, as Trunk's docs say
    finally:
        served.close()
    now_quarantined = {t.test_case_id for t in client.iter_quarantined_tests(repo, box.org_url_slug)}
    assert now_quarantined == quarantined | {free[0], free[1]}
    (event,) = events
    assert isinstance(event, trunk_api.webhooks.TestCaseQuarantiningSettingChangedEvent)
    change = event.quarantine_setting_changed
    assert (str(change.previous_quarantining_setting), str(change.updated_quarantining_setting)) == (
        "UNSPECIFIED", "ALWAYS_QUARANTINE")
    assert change.reason == "flaky in CI" and change.timestamp == box.clock_now
    assert event.test_case.id == free[0] and event.test_case.quarantined is True
    with pytest.raises(trunk_api.ValidationError, match="mode"):
        box.set_quarantine(free[0], "sometimes")
    with pytest.raises(trunk_api.ValidationError, match="reason"):
        box.set_quarantine(free[0], "clear", reason="r" * 1001)
    with pytest.raises(trunk_api.ValidationError, match="test_id"):
        box.set_quarantine("nope", "clear")
