"""The OpenAPI document: `trunk-api openapi` prints it, it is a valid OpenAPI 3.1 document, the sandbox serves
it, and it tells the truth about the wire: what the client really sends validates against the request schemas,
what the sandbox really answers validates against the answer schemas, and a few bad requests the schemas
refuse are refused by the sandbox too."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from openapi_spec_validator import OpenAPIV31SpecValidator, validate
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

import trunk_api
from trunk_api._core import declarations
from trunk_api.cli import main

from conftest import NOW, WEEK_START, ensure_queue

# The document's own references are "#/components/...": resolved against this name once it is registered.
DOCUMENT_URI = "urn:trunk-api:openapi"
FORMATS = Draft202012Validator.FORMAT_CHECKER


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return json.loads(declarations.openapi_document())


@pytest.fixture(scope="module")
def registry(document: dict[str, Any]) -> Registry:
    return Registry().with_resource(DOCUMENT_URI, Resource.from_contents(document, default_specification=DRAFT202012))


def schema_validator(registry: Registry, name: str) -> Draft202012Validator:
    """Validates against components.schemas[name], with formats (date-time, uuid) checked."""
    return Draft202012Validator({"$ref": f"{DOCUMENT_URI}#/components/schemas/{name}"}, registry=registry,
                                format_checker=FORMATS)


def component_name(reference: dict[str, str]) -> str:
    return reference["$ref"].rsplit("/", 1)[1]


def operation_schemas(document: dict[str, Any], path: str) -> tuple[str, str]:
    """(request schema, answer schema) of the POST operation at path."""
    operation = document["paths"][path]["post"]
    request = operation["requestBody"]["content"]["application/json"]["schema"]
    answer = operation["responses"]["200"]["content"]["application/json"]["schema"]
    return component_name(request), component_name(answer)


def post_raw(box: trunk_api.Sandbox, path: str, body: Any) -> tuple[int, str, str]:
    """(status, content type, text) of a POST with the sandbox's token, whatever the status."""
    request = urllib.request.Request(box.url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"x-api-token": box.token, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.headers.get_content_type(), answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get_content_type(), error.read().decode()


# ---- the command and the document ---------------------------------------------------------------------------

# No token and an address nobody listens on: the command must need neither.
def test_cli_prints_the_document_without_token_or_network(monkeypatch):
    monkeypatch.delenv("TRUNK_API_TOKEN", raising=False)
    monkeypatch.delenv("TRUNK_API_KEY", raising=False)
    monkeypatch.setenv("TRUNK_BASE_URL", "http://127.0.0.1:9")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["openapi"])
    assert (code, err.getvalue()) == (0, "")
    printed = json.loads(out.getvalue())
    assert printed == json.loads(declarations.openapi_document())
    assert printed["info"]["version"] == trunk_api.__version__
    assert out.getvalue().startswith('{\n  "openapi": "3.1.0",')


def test_document_is_a_valid_openapi_3_1_document(document):
    validate(document, cls=OpenAPIV31SpecValidator)


# Guards the answer checks below: without the date-time checker, jsonschema would skip the format silently.
def test_the_format_checker_checks_dates_and_uuids():
    assert {"date-time", "uuid"} <= set(FORMATS.checkers)
    assert not FORMATS.conforms("2026-11-20 noon", "date-time")


def test_the_sandbox_serves_the_same_document_without_a_token(box, document):
    with urllib.request.urlopen(box.url + "/openapi.json", timeout=30) as answer:
        assert answer.status == 200
        assert answer.headers.get_content_type() == "application/json"
        assert json.loads(answer.read()) == document


# ---- the document against the real wire ---------------------------------------------------------------------

def check_exchange(box: trunk_api.Sandbox, registry: Registry, document: dict[str, Any],
                   call: Callable[[trunk_api.Client], Any]) -> tuple[dict[str, Any], Any]:
    """Runs one client call, validates the body the client sent against the operation's request schema, sends
    that body again to read the sandbox's raw answer and validates it against the answer schema. Returns the
    raw answer and what the call returned."""
    box.clear_requests()
    returned = call(box.client())
    [sent] = [request for request in box.requests if request.method == "POST"]
    request_schema, answer_schema = operation_schemas(document, sent.path)
    schema_validator(registry, request_schema).validate(sent.body)
    status, content_type, text = post_raw(box, sent.path, sent.body)
    assert (status, content_type) == (200, "application/json"), text
    answer = json.loads(text)
    schema_validator(registry, answer_schema).validate(answer)
    return answer, returned


def test_merge_queue_exchanges_validate(box, repo, registry, document):
    # The writes: the bodies the client sent match their request schemas (they are not sent twice here).
    ensure_queue(box, repo, "openapi-mq")
    client = box.client()
    client.submit_pull_request(repo, 77, "openapi-mq", priority="high", no_batch=True)
    client.set_impacted_targets(repo, 77, client.get_submitted_pull_request(repo, 77, "openapi-mq").pr_sha,
                                "openapi-mq", ["//a"])
    for sent in box.requests:
        request_schema, _ = operation_schemas(document, sent.path)
        schema_validator(registry, request_schema).validate(sent.body)
    # The reads: request and raw answer against their schemas.
    submitted, _ = check_exchange(box, registry, document,
                                  lambda c: c.get_submitted_pull_request(repo, 77, "openapi-mq"))
    assert submitted["prNumber"] == 77
    several, _ = check_exchange(box, registry, document,
                                lambda c: c.get_submitted_pull_requests(repo, [77, 78], "openapi-mq"))
    assert [pr["prNumber"] for pr in several["pullRequests"]] == [77] and several["notFound"] == [{"number": 78}]
    listed, page = check_exchange(box, registry, document, lambda c: c.list_pull_requests(repo, "openapi-mq", take=1))
    assert [pr.pr_number for pr in page.pull_requests] == [77] and "nextCursor" not in listed
    results, _ = check_exchange(box, registry, document, lambda c: c.list_merge_queue_testing_results(
        repo, "openapi-mq", dt.datetime(2020, 1, 1, tzinfo=dt.timezone.utc), offset=0, take=5))
    assert set(results) == {"results", "total"}


def test_the_status_answer_validates_and_the_operation_takes_no_credential(box, registry, document):
    operation = document["paths"]["/v1/status"]["get"]
    assert operation["security"] == [] and "requestBody" not in operation
    with urllib.request.urlopen(box.url + "/v1/status", timeout=10) as answer:  # no token at all
        assert answer.status == 200
        body = json.loads(answer.read())
    answer_schema = component_name(operation["responses"]["200"]["content"]["application/json"]["schema"])
    schema_validator(registry, answer_schema).validate(body)
    assert body == box.client().status().to_dict()


def test_failing_tests_pages_validate(box, repo, registry, document):
    first, page = check_exchange(box, registry, document, lambda c: c.list_failing_tests(
        repo, box.org_url_slug, WEEK_START, NOW, page_size=5))
    assert len(first["tests"]) == 5 and first["tests"][0]["most_common_failures"]
    # The second page: its request carries a page_token, its answer a prev_page_token.
    second, _ = check_exchange(box, registry, document, lambda c: c.list_failing_tests(
        repo, box.org_url_slug, WEEK_START, NOW, page_size=5, page_token=page.page.next_page_token))
    assert second["page"]["page_index"] == 1
    for test in page.tests:
        schema_validator(registry, "TestCase").validate(test.to_dict())


def test_unhealthy_tests_validate(box, repo, registry, document):
    for status in ("flaky", "BROKEN"):
        answer, _ = check_exchange(box, registry, document,
                                   lambda c, s=status: c.list_unhealthy_tests(repo, box.org_url_slug, s))
        assert answer["tests"], status


def test_test_details_validate(box, repo, registry, document):
    test_id = box.test_ids(repo)[0]
    answer, test = check_exchange(box, registry, document,
                                  lambda c: c.get_test_details(repo, box.org_url_slug, test_id.upper()))
    assert answer["test"]["id"] == test_id
    schema_validator(registry, "TestCase").validate(test.to_dict())


def test_queue_updates_validate(box, repo, registry, document):
    # A branch of its own, so the other tests' queues keep their settings.
    ensure_queue(box, repo, "openapi-check")
    answer, settings = check_exchange(box, registry, document, lambda c: c.update_queue(
        repo, "openapi-check", state="paused", concurrency=4294967295, mode="parallel", merge_method="rebase",
        required_statuses=["ci/build"], can_optimistically_merge=True))
    assert answer["concurrency"] == 4294967295
    schema_validator(registry, "QueueSettings").validate(settings.to_dict())
    answer, _ = check_exchange(box, registry, document, lambda c: c.update_queue(
        repo, "openapi-check", state="running", delete_required_statuses=True))
    assert answer["state"] in ("running", "switching_modes")


def test_quarantined_tests_and_get_queue_validate(box, repo, registry, document):
    page, _ = check_exchange(box, registry, document, lambda c: c.list_quarantined_tests(
        repo, box.org_url_slug, page_size=5))
    assert page["quarantined_tests"] and page["page"]["total_rows"] >= len(page["quarantined_tests"])
    ensure_queue(box, repo, "openapi-get")
    queue, settings = check_exchange(box, registry, document, lambda c: c.get_queue(repo, "openapi-get"))
    assert queue["enqueuedPullRequests"] == [] and settings.branch == "openapi-get"


def test_every_operation_of_the_document_is_served_by_the_sandbox(box, document):
    # v1: an empty body is a 400 (bad request), never a 404 or a 405; the GET (getMergeQueueMetrics) without a
    # query answers 200 with every repository's metrics. v2: each method of each path, with an id no queue has and
    # an empty body, answers with the envelope of its operation (200, 400 VALIDATION_FAILED or 404 *_NOT_FOUND),
    # never the router's 404 NOT_FOUND or a 405.
    served = []
    for path, methods in document["paths"].items():
        if path.startswith("/v2/"):
            answered = []
            for method in methods:
                request = urllib.request.Request(
                    box.url + path.replace("{id}", "no-such-id"), method=method.upper(),
                    data=b"{}" if method in ("post", "put", "patch") else None,
                    headers={"Authorization": f"Bearer {box.api_key}", "Content-Type": "application/json"})
                try:
                    with urllib.request.urlopen(request, timeout=10) as answer:
                        answered.append(answer.status in (200, 201, 204))
                except urllib.error.HTTPError as error:
                    code = json.loads(error.read())["error"]["code"]
                    answered.append(error.code in (400, 404) and code != "NOT_FOUND")
            if all(answered):
                served.append(path)
        elif "get" in methods:
            request = urllib.request.Request(box.url + path, headers={"x-api-token": box.token})
            try:
                with urllib.request.urlopen(request, timeout=10) as answer:
                    if answer.status == 200:
                        served.append(path)
            except urllib.error.HTTPError as error:
                if error.code == 400:
                    served.append(path)
        elif post_raw(box, path, {})[0] == 400:
            served.append(path)
    assert sorted(served) == sorted(document["paths"])


# ---- strict requests, tolerant answers ----------------------------------------------------------------------

@pytest.mark.parametrize("change", [
    {"state": "switching_modes"},   # reported only: a request cannot ask for it
    {"concurrency": 0},             # below the range 1..4294967295
    {"concurrency": 4294967296},    # above it
    {"mode": "batch"},              # not a QueueMode
    {"colour": "blue"},             # unknown key
    {"targetBranch": ""},           # non-empty text
])
def test_requests_the_schema_refuses_the_sandbox_refuses(box, repo, registry, change):
    body = {"repo": {"host": repo.host, "owner": repo.owner, "name": repo.name}, "targetBranch": "openapi-check",
            **change}
    assert list(schema_validator(registry, "UpdateQueueRequest").iter_errors(body)), change
    status, _, text = post_raw(box, "/v1/updateQueue", body)
    assert status == 400, text


def test_answers_may_carry_values_and_keys_the_library_does_not_know_yet(registry):
    settings = schema_validator(registry, "QueueSettings")
    # A minimal answer of every required field, then one with a new state and a new key.
    answer = {"state": "running", "branch": "main", "concurrency": 1, "testingTimeoutMinutes": 1, "mode": "single",
              "canOptimisticallyMerge": False, "pendingFailureDepth": 1, "batch": False,
              "batchingMaxWaitTimeMinutes": 1, "batchingMinSize": 1, "createPrsForTestingBranches": False,
              "commentsEnabled": True, "commandsEnabled": True, "statusCheckEnabled": True,
              "bisectionConcurrency": 1, "requiredStatuses": [], "directMergeMode": "off",
              "optimizationMode": "off", "mergeMethod": "squash"}
    settings.validate(answer)
    settings.validate({**answer, "state": "rebuilding", "newSetting": 3})
    # Still typed: a number where text belongs is refused, and so is a missing required field.
    assert list(settings.iter_errors({**answer, "state": 3}))
    assert list(settings.iter_errors({key: value for key, value in answer.items() if key != "branch"}))
