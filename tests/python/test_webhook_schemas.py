"""Every webhook the sandbox sends on a busy simulated day validates against the JSON schema of its event type,
as the OpenAPI document this library generates gives it (made from the declarations in webhook_events.hpp and
webhook_event_shapes.hpp, which follow the schemas Trunk publishes; scripts/compare-webhook-schemas compares the
two). The merge queue events are checked strictly: no field beyond their schema's, so the sandbox cannot invent
one; and the day must cause all fourteen pull_request.* and pull_request_batch.* types, and the published
test_case.status_changed."""

from __future__ import annotations

import copy
import json
import threading
import urllib.request
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from trunk_api import Sandbox
from trunk_api.webhooks import WebhookSecret, verify

from served_wsgi import Served

NOW = datetime(2026, 11, 20, 8, 0, 0, tzinfo=timezone.utc)
DOCUMENT_URI = "urn:trunk-api:openapi"
ACTIONS = ("submitted", "queued", "testing", "merged", "failed", "canceled", "pending_failure")
QUEUE_TYPES = {f"{family}.{action}" for family in ("pull_request", "pull_request_batch") for action in ACTIONS}
#: The events whose schemas Trunk publishes (the merge queue's and the earlier form of a test's status change):
#: the sandbox sends exactly their fields.
PUBLISHED = QUEUE_TYPES | {"test_case.status_changed"}


class Recorder:
    """A bare HTTP receiver keeping every delivery's headers and body; answers 204."""

    def __init__(self) -> None:
        self.deliveries: list[tuple[dict[str, str], bytes]] = []
        self.lock = threading.Lock()
        self.served = Served(self.app)

    def app(self, environ: dict[str, Any], start_response: Any) -> list[bytes]:
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        headers = {key[5:].lower().replace("_", "-"): value for key, value in environ.items() if key.startswith("HTTP_")}
        with self.lock:
            self.deliveries.append((headers, body))
        start_response("204 No Content", [])
        return []


def _testing_numbers(client: Any, repo: Any, numbers: list[int]) -> list[int]:
    return [n for n in numbers if str(client.get_submitted_pull_request(repo, n, "main").state) == "testing"]


@pytest.fixture(scope="module")
def busy_day() -> Iterator[tuple[dict[str, Any], list[tuple[dict[str, str], bytes]], WebhookSecret]]:
    """A day of a batching queue with flaky and broken pull requests, cancels, restarts, urgent pull requests and
    a test turning flaky: the document the sandbox serves, every delivery, and the endpoint's secret."""
    secret = WebhookSecret.generate()
    recorder = Recorder()
    with Sandbox(seed=11, tests=40, now=NOW, clock="virtual", flaky_failure_rate=0.25,
                 broken_pull_request_rate=0.1) as box:
        try:
            box.add_webhook(recorder.served.url, secret=secret)
            client = box.client()
            repo = box.repos[0]
            client.update_queue(repo, "main", batch=True, batching_min_size=3, batching_max_wait_time_minutes=5,
                                concurrency=3, pending_failure_depth=1)
            submitted: list[int] = []
            for step in range(6 * 14):  # every 10 minutes for 14 hours
                number = 100 + step
                client.submit_pull_request(repo, number, "main", priority="urgent" if step % 29 == 28 else None)
                submitted.append(number)
                box.advance(minutes=10)
                testing = _testing_numbers(client, repo, submitted[-12:])
                if step % 9 == 4 and testing:
                    client.cancel_pull_request(repo, testing[0], "main")
                elif step % 9 == 7 and testing:
                    client.restart_tests_on_pull_request(repo, testing[-1], "main")
            assert any(box.set_test_status(test_id, "BROKEN") for test_id in box.test_ids(repo))
            box.advance(hours=10)
            with urllib.request.urlopen(box.url + "/openapi.json", timeout=30) as answer:
                document = json.loads(answer.read())
        finally:
            recorder.served.close()
    yield document, recorder.deliveries, secret


def _validator(document: dict[str, Any], event_type: str) -> Draft202012Validator:
    schema = copy.deepcopy(document["webhooks"][event_type]["post"]["requestBody"]["content"]["application/json"]
                           ["schema"])
    if event_type in PUBLISHED:
        schema["additionalProperties"] = False  # what the sandbox sends: exactly the published fields
    registry = Registry().with_resource(DOCUMENT_URI, Resource.from_contents(document, default_specification=DRAFT202012))
    schema = json.loads(json.dumps(schema).replace('"#/components/', f'"{DOCUMENT_URI}#/components/'))
    return Draft202012Validator(schema, registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER)


def test_the_busy_day_causes_every_merge_queue_event_type(busy_day):
    _, deliveries, _ = busy_day
    seen = {json.loads(body)["type"] for _, body in deliveries}
    assert QUEUE_TYPES <= seen, f"never sent: {sorted(QUEUE_TYPES - seen)}"
    assert {"v2.test_case.status_changed", "test_case.monitor_status_changed", "test_case.status_changed"} <= seen


def test_every_delivery_validates_against_its_event_types_schema(busy_day):
    document, deliveries, _ = busy_day
    validators: dict[str, Draft202012Validator] = {}
    failures = []
    for _, body in deliveries:
        event = json.loads(body)
        event_type = event["type"]
        validator = validators.setdefault(event_type, _validator(document, event_type))
        failures += [f"{event_type}: {error.message}" for error in validator.iter_errors(event)]
    assert len(deliveries) > 500
    assert not failures, "\n".join(sorted(set(failures))[:20])


def test_every_delivery_has_one_timestamp_form_and_full_shas(busy_day):
    _, deliveries, _ = busy_day
    for _, body in deliveries:
        event = json.loads(body)
        if event["type"] not in QUEUE_TYPES:
            continue
        stamp = event["timestamp"]
        assert len(stamp) == 20 and stamp.endswith("Z"), stamp  # 2026-11-20T08:10:00Z, whole seconds
        if "test_branch_sha" in event:
            assert len(event["test_branch_sha"]) == 40 and int(event["test_branch_sha"], 16) >= 0


def test_every_delivery_reads_back_as_its_typed_event(busy_day):
    _, deliveries, secret = busy_day
    for headers, body in deliveries:
        event = verify(body, headers, secret)
        assert str(event.type) == json.loads(body)["type"]
        if json.loads(body)["type"].startswith("pull_request_batch."):
            assert event.pr_numbers == json.loads(body)["pr_numbers"]
