"""v2's flaky tests from Python (docs/reference/v2.md#flaky-tests): ``client.v2.test_collections`` and
``client.v2.tests``, sync and async, as tables and from the command line, over the sandbox, whose v2 tests are
the ones its v1 serves."""

from __future__ import annotations

import asyncio
import json

import pytest

import trunk_api
from trunk_api import NotFoundError, PermissionDeniedError, ValidationError
from trunk_api.enums import HealthStatus, QuarantineMode, QuarantineOverrideMode, QuarantineState, TestHealth

from conftest import run_v2_cli, virtual_sandbox


@pytest.fixture(scope="module")
def box():
    with virtual_sandbox(seed=11) as sandbox:
        yield sandbox


@pytest.fixture()
def client(box):
    return box.client()


@pytest.fixture()
def collection(box, client):
    """The collection of the sandbox's first repository, found by its name as a caller finds it."""
    repo = box.repos[0]
    return next(c for c in client.v2.test_collections.list(q=f"{repo.owner}/{repo.name}"))


def test_the_resources_have_their_verbs(client) -> None:
    assert {"list", "list_page", "create", "get"} <= set(dir(client.v2.test_collections))
    assert {"list", "list_page", "get", "status_history", "status_history_page", "runs", "runs_page",
            "link_ticket", "set_quarantine"} <= set(dir(client.v2.tests))


def test_v2_says_what_v1_says_of_the_same_tests(box, client, collection) -> None:
    repo = box.repos[0]
    tests = list(client.v2.tests.list(test_collection_id=collection.id))
    assert collection.test_case_count == len(tests) == len(box.test_ids(repo))
    flaky = {t.id for t in tests if t.status == TestHealth.FLAKY}
    assert flaky and flaky == {t.id for t in client.iter_unhealthy_tests(repo, box.org_url_slug, HealthStatus.FLAKY)}
    quarantined = {t.id for t in tests if t.quarantine_state == QuarantineState.QUARANTINED}
    assert quarantined == {t.test_case_id for t in client.iter_quarantined_tests(repo, box.org_url_slug)}
    some = next(iter(flaky))
    week = client.v2.tests.get(some, include="metrics", period="7d")
    details = client.get_test_details(repo, box.org_url_slug, some)
    assert week.metrics.failure_rate == pytest.approx(details.failure_rate_last_7d)
    assert week.metrics.prs_impacted == details.pull_requests_impacted_last_7d
    assert week.status == details.status.value == TestHealth.FLAKY


def test_a_listing_is_a_table_with_its_metrics_and_stops_at_max_results(client, collection) -> None:
    tests = client.v2.tests.list(test_collection_id=collection.id, include="metrics", period="30d",
                                 sort="failureRate")
    table = tests.to_arrow()
    assert table.num_rows == collection.test_case_count
    assert {"id", "name", "status", "quarantine_state"} <= set(table.column_names)
    rates = table.column("metrics_failure_rate").to_pylist()
    assert rates == sorted(rates, reverse=True) and rates  # worst first
    first = list(client.v2.tests.list(test_collection_id=collection.id, max_results=30, limit=7))
    assert len(first) == 30
    frame = client.v2.tests.list(status=["flaky", "broken"]).to_pandas()
    assert set(frame["status"]) <= {"flaky", "broken"}


def test_a_test_s_history_and_runs_agree_with_it(box, client, collection) -> None:
    test_id = next(t.id for t in client.v2.tests.list(test_collection_id=collection.id, status=["flaky"]))
    test = client.v2.tests.get(test_id, include="metrics", period="30d")
    changes = list(client.v2.tests.status_history(test_id))
    assert changes[0].to_status == test.status and changes[0].started_at == test.status_since
    assert all(newer.from_status == older.to_status for newer, older in zip(changes, changes[1:]))
    runs = list(client.v2.tests.runs(test_id, limit=9))
    assert len(runs) == test.metrics.run_count
    failures = list(client.v2.tests.runs(test_id, conclusion="failure"))
    assert len(failures) == test.metrics.failure_count
    assert box.set_test_status(test_id, "broken")
    assert client.v2.tests.get(test_id).status == TestHealth.BROKEN
    newest = next(iter(client.v2.tests.status_history(test_id)))
    assert (newest.from_status, newest.to_status) == (TestHealth.FLAKY, TestHealth.BROKEN)


def test_collections_are_created_and_found(client) -> None:
    created = client.v2.test_collections.create("  ios nightly ", description="simulator runs")
    assert created.name == "ios nightly" and created.test_case_count == 0
    assert client.v2.test_collections.get(created.id) == created
    assert next(iter(client.v2.test_collections.list())).id == created.id  # newest first
    with pytest.raises(NotFoundError) as missing:
        client.v2.test_collections.get("zzzzzzzz")
    assert missing.value.code == "TEST_COLLECTION_NOT_FOUND"


@pytest.mark.parametrize(("call", "field", "rule"), [
    (lambda c: c.v2.test_collections.create("n" * 101), "name", "at most 100 characters"),
    (lambda c: c.v2.test_collections.create("x", description="d" * 501), "description", "at most 500 characters"),
    (lambda c: c.v2.test_collections.create(""), "name", "must not be empty"),
    (lambda c: c.v2.tests.get("t", include="metrics"), "include", "needs period"),
    (lambda c: c.v2.tests.list_page(sort="durationP95"), "sort", "needs period"),
    (lambda c: c.v2.tests.list_page(period="2d"), "period", "must be one of 1d, 7d, 14d, 30d"),
    (lambda c: c.v2.tests.list_page(limit=101), "limit", "between 1 and 100"),
    (lambda c: c.v2.tests.runs_page("t", branches=["main"], pull_request_only=True), "pullRequestOnly",
     "must not be set together with branches"),
    (lambda c: c.v2.tests.link_ticket("t", "k" * 2049), "externalTicketId", "at most 2048 characters"),
    (lambda c: c.v2.tests.link_ticket("t", "KAN-1", integration_id="nope"), "integrationId", "UUID"),
    (lambda c: c.v2.tests.set_quarantine("t", "sometimes"), "mode",
     "must be one of alwaysQuarantine, neverQuarantine, clear"),
    (lambda c: c.v2.tests.set_quarantine("t", "clear", reason="r" * 1001), "reason", "at most 1000 characters"),
    (lambda c: c.v2.tests.set_quarantine("t", "clear", reason=""), "reason", "must not be empty"),
])
def test_bad_input_is_refused_before_sending_naming_the_field(client, call, field, rule) -> None:
    with pytest.raises(ValidationError) as refused:
        call(client)
    assert field in str(refused.value) and rule in str(refused.value)


def test_the_boundaries_themselves_are_sent(client) -> None:
    assert client.v2.test_collections.create("n" * 100, description="d" * 500).name == "n" * 100
    assert client.v2.test_collections.create("é" * 100).name == "é" * 100  # characters, not bytes


def test_a_ticket_linked_through_v2_is_v1_s_and_needs_its_permission(box, client) -> None:
    repo = box.repos[0]
    test_id = box.test_ids(repo)[3]
    ticket = client.v2.tests.link_ticket(test_id, "KAN-7")
    assert ticket.key == "KAN-7" and client.get_test_details(repo, box.org_url_slug, test_id).ticket.html_url == ticket.url
    limited = trunk_api.Client(base_url=box.url, api_key=box.create_api_key(["quarantine_tests"]))
    with pytest.raises(PermissionDeniedError):
        limited.v2.tests.link_ticket(test_id, "KAN-8")


def test_a_quarantine_override_decides_both_versions_until_cleared(box, client) -> None:
    repo = box.repos[0]
    v1_quarantined = {t.test_case_id for t in client.iter_quarantined_tests(repo, box.org_url_slug)}
    test_id = next(i for i in box.test_ids(repo) if i not in v1_quarantined)
    test = client.v2.tests.set_quarantine(test_id, "alwaysQuarantine", reason="é" * 1000)  # the longest reason
    assert test.quarantine_state == QuarantineState.QUARANTINED and test.quarantined_since == box.clock_now
    assert test.quarantine_override.mode == QuarantineMode.ALWAYS_QUARANTINE
    assert test.quarantine_override.reason == "é" * 1000 and test.quarantine_override.created_at == box.clock_now
    assert client.get_test_details(repo, box.org_url_slug, test_id).quarantined is True
    listed = {t.test_case_id: t for t in client.iter_quarantined_tests(repo, box.org_url_slug)}
    assert set(listed) == v1_quarantined | {test_id}
    assert str(listed[test_id].quarantine_setting) == "ALWAYS_QUARANTINE"
    assert client.v2.tests.set_quarantine(test_id, "neverQuarantine").quarantine_state == QuarantineState.NOT_QUARANTINED
    assert test_id not in {t.id for t in client.v2.tests.list(quarantine_state="quarantined")}
    cleared = client.v2.tests.set_quarantine(test_id, QuarantineOverrideMode.CLEAR)
    assert cleared.quarantine_override is None and cleared.quarantine_state == QuarantineState.NOT_QUARANTINED
    assert {t.test_case_id for t in client.iter_quarantined_tests(repo, box.org_url_slug)} == v1_quarantined
    limited = trunk_api.Client(base_url=box.url, api_key=box.create_api_key(["link_tickets"]))
    with pytest.raises(PermissionDeniedError):
        limited.v2.tests.set_quarantine(test_id, "alwaysQuarantine")
    with pytest.raises(NotFoundError) as missing:
        client.v2.tests.set_quarantine("00000000-0000-4000-8000-000000000000", "clear")
    assert missing.value.code == "TEST_CASE_NOT_FOUND"


def test_async_reads_the_same(box, client, collection) -> None:
    async def read():
        async with box.async_client() as async_client:
            tests = [t async for t in async_client.v2.tests.list(test_collection_id=collection.id)]
            one = await async_client.v2.tests.get(tests[0].id, include="metrics", period="14d")
            return tests, one

    tests, one = asyncio.run(read())
    assert [t.id for t in tests] == [t.id for t in client.v2.tests.list(test_collection_id=collection.id)]
    assert one == client.v2.tests.get(tests[0].id, include="metrics", period="14d")


def test_the_command_line_lists_and_reads_tests(monkeypatch, box, collection) -> None:
    code, out, err = run_v2_cli(monkeypatch, box, "v2", "tests", "list", "--test-collection-id", collection.id,
                             "--status", "flaky", "--include", "metrics", "--period", "7d", "--format", "json")
    assert code == 0, err
    rows = json.loads(out)
    assert rows and all(row["status"] == "flaky" and "metrics" in row for row in rows)
    code, out, err = run_v2_cli(monkeypatch, box, "v2", "tests", "get", "--test-id", rows[0]["id"], "--format", "json")
    assert code == 0, err
    assert json.loads(out)["id"] == rows[0]["id"]
    code, out, err = run_v2_cli(monkeypatch, box, "v2", "tests", "set-quarantine", "--test-id", rows[0]["id"],
                             "--mode", "neverQuarantine", "--reason", "fixed in #12", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["quarantineOverride"]["reason"] == "fixed in #12"
    code, out, err = run_v2_cli(monkeypatch, box, "v2", "tests", "set-quarantine", "--test-id", rows[0]["id"],
                             "--mode", "clear", "--format", "json")
    assert code == 0 and "quarantineOverride" not in json.loads(out), err  # none: absent, as the CLI prints it
    code, out, err = run_v2_cli(monkeypatch, box, "v2", "test-collections", "create", "--name", "n" * 101)
    assert code != 0 and "name" in err and "at most 100 characters" in err
