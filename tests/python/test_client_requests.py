"""Every method against the sandbox, with what went on the wire checked through Sandbox.requests."""

from __future__ import annotations

from typing import Any

import pytest

import trunk_api
from trunk_api import QueueMode, QueueState, Repo, TestCase, TestPage, ValidationError

from conftest import NOW, WEEK_START, ensure_queue

UUID = "0f3c6a8e-5b7d-4c1e-9a2f-3b4c5d6e7f80"


def only_request(box: trunk_api.Sandbox) -> Any:
    requests = box.requests
    assert len(requests) == 1, requests
    return requests[0]


def test_list_failing_tests_wire(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    page = client.list_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=5)
    assert isinstance(page, TestPage)
    assert len(page.tests) == 5 and all(isinstance(t, TestCase) for t in page.tests)
    assert page.page.page_index == 0 and page.page.next_page_token
    request = only_request(box)
    assert (request.method, request.path, request.status) == ("POST", "/v1/flaky-tests/list-failing-tests", 200)
    assert request.headers["x-api-token"] == "<redacted>"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["user-agent"].startswith("trunk-api-cpp/")
    assert request.body == {
        "repo": {"host": repo.host, "owner": repo.owner, "name": repo.name},
        "org_url_slug": box.org_url_slug,
        "start_time": "2026-11-13T12:00:00Z",
        "end_time": "2026-11-20T12:00:00Z",
        "page_query": {"page_size": 5},
    }
    # The next page: the token is sent, and the page follows.
    box.clear_requests()
    second = client.list_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=5,
                                       page_token=page.page.next_page_token or "")
    assert only_request(box).body["page_query"] == {"page_size": 5, "page_token": page.page.next_page_token}
    assert second.page.page_index == 1
    assert {t.id for t in second.tests}.isdisjoint({t.id for t in page.tests})


def test_failing_tests_carry_failure_fields(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    page = client.list_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=20)
    for test in page.tests:
        assert test.failure_rate_last_7d is not None and 0 <= test.failure_rate_last_7d <= 1
        assert test.most_common_failures is not None


def test_list_unhealthy_tests_wire(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    page = client.list_unhealthy_tests(repo, box.org_url_slug, "BROKEN", page_size=3)
    assert only_request(box).body == {
        "repo": repo.to_dict(),
        "org_url_slug": box.org_url_slug,
        "status": "BROKEN",
        "page_query": {"page_size": 3},
    }
    assert 0 < len(page.tests) <= 3
    for test in page.tests:
        assert test.status is not None and test.status.value == "broken"
        assert test.most_common_failures is None and test.failure_rate_last_7d is None  # absent in this listing


def test_get_test_details_wire(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    test_id = box.test_ids(repo)[0]
    test = client.get_test_details(str(repo), box.org_url_slug, test_id)
    assert test.id == test_id
    assert only_request(box).body == {"repo": repo.to_dict(), "org_url_slug": box.org_url_slug, "test_id": test_id}
    assert only_request(box).path == "/v1/flaky-tests/get-test-details"


def test_repo_as_string_with_gitlab_subgroup(box: trunk_api.Sandbox, client: trunk_api.Client) -> None:
    gitlab = next(r for r in box.repos if "/" in r.owner)
    client.get_test_details(str(gitlab), box.org_url_slug, box.test_ids(gitlab)[0])
    assert only_request(box).body["repo"] == {"host": gitlab.host, "owner": gitlab.owner, "name": gitlab.name}


def test_update_queue_sends_only_set_fields_in_camel_case(box: trunk_api.Sandbox, client: trunk_api.Client,
                                                           repo: Repo) -> None:
    ensure_queue(box, repo, 'only-two')
    client.update_queue(repo, "only-two", concurrency=4, batch=False)
    assert only_request(box).body == {
        "repo": repo.to_dict(),
        "targetBranch": "only-two",
        "concurrency": 4,
        "batch": False,
    }
    assert only_request(box).path == "/v1/updateQueue"


def test_update_queue_every_field(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    ensure_queue(box, repo, "every-field")
    settings = client.update_queue(
        repo,
        "every-field",
        state="paused",
        concurrency=1,
        bisection_concurrency=4294967295,
        testing_timeout_minutes=30,
        pending_failure_depth=2,
        can_optimistically_merge=True,
        batch=True,
        batching_max_wait_time_minutes=7,
        batching_min_size=3,
        mode="single",
        comments_enabled=False,
        commands_enabled=True,
        create_prs_for_testing_branches=False,
        direct_merge_mode="off",
        optimization_mode="off",
        merge_method="merge_commit",
        status_check_enabled=False,
        required_statuses=["ci/a", "ci/b"],
    )
    body = only_request(box).body
    assert body == {
        "repo": repo.to_dict(),
        "targetBranch": "every-field",
        "state": "paused",
        "concurrency": 1,
        "bisectionConcurrency": 4294967295,
        "testingTimeoutMinutes": 30,
        "pendingFailureDepth": 2,
        "canOptimisticallyMerge": True,
        "batch": True,
        "batchingMaxWaitTimeMinutes": 7,
        "batchingMinSize": 3,
        "mode": "single",
        "commentsEnabled": False,
        "commandsEnabled": True,
        "createPrsForTestingBranches": False,
        "directMergeMode": "off",
        "optimizationMode": "off",
        "mergeMethod": "merge_commit",
        "statusCheckEnabled": False,
        "requiredStatuses": ["ci/a", "ci/b"],
    }
    assert settings.branch == "every-field"
    assert settings.state is QueueState.PAUSED
    assert settings.bisection_concurrency == 4294967295
    assert settings.required_statuses == ["ci/a", "ci/b"]
    assert settings.batching_min_size == 3 and settings.pending_failure_depth == 2


def test_update_queue_omitted_fields_unchanged(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    ensure_queue(box, repo, 'sticky')
    client.update_queue(repo, "sticky", concurrency=9, required_statuses=["ci/x"])
    after = client.update_queue(repo, "sticky", batch=True)
    assert after.concurrency == 9 and after.batch is True and after.required_statuses == ["ci/x"]


def test_required_statuses_empty_versus_delete(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    ensure_queue(box, repo, 'statuses')
    client.update_queue(repo, "statuses", required_statuses=[])
    assert box.requests[-1].body["requiredStatuses"] == []
    assert "deleteRequiredStatuses" not in box.requests[-1].body
    client.update_queue(repo, "statuses", delete_required_statuses=True)
    assert box.requests[-1].body == {"repo": repo.to_dict(), "targetBranch": "statuses",
                                     "deleteRequiredStatuses": True}
    box.clear_requests()
    with pytest.raises(ValidationError) as caught:
        client.update_queue(repo, "statuses", required_statuses=["a"], delete_required_statuses=True)
    assert caught.value.errors
    assert box.requests == []


def test_a_mode_change_of_an_empty_queue_is_immediate(box: trunk_api.Sandbox, client: trunk_api.Client,
                                                      repo: Repo) -> None:
    # Trunk switches an empty queue at once; switching_modes only lasts while pull requests test (the C++
    # queue tests show that part on the virtual clock).
    ensure_queue(box, repo, 'modes')
    client.update_queue(repo, "modes", mode="single")
    changed = client.update_queue(repo, "modes", mode=QueueMode.PARALLEL)
    assert changed.state is QueueState.RUNNING
    assert changed.mode is QueueMode.PARALLEL


@pytest.mark.parametrize(
    ("keyword", "value", "field"),
    [
        ("concurrency", 0, "concurrency"),
        ("concurrency", 4294967296, "concurrency"),
        ("concurrency", -1, "concurrency"),
        ("bisection_concurrency", 0, "bisectionConcurrency"),
        ("testing_timeout_minutes", 4294967296, "testingTimeoutMinutes"),
        ("pending_failure_depth", 0, "pendingFailureDepth"),
        ("batching_max_wait_time_minutes", 0, "batchingMaxWaitTimeMinutes"),
        ("batching_min_size", 4294967296, "batchingMinSize"),
        ("concurrency", 2**70, "concurrency"),
        ("concurrency", 2.0, "concurrency"),
        ("concurrency", "3", "concurrency"),
        ("concurrency", True, "concurrency"),
        ("batch", 1, "batch"),
        ("comments_enabled", "yes", "commentsEnabled"),
        ("required_statuses", "ci/test", "requiredStatuses"),
        ("required_statuses", ["ok", 5], "requiredStatuses[1]"),
    ],
)
def test_update_queue_bad_values_name_the_field(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo,
                                                keyword: str, value: object, field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        client.update_queue(repo, "main", **{keyword: value})  # type: ignore[arg-type]
    assert [v.field for v in caught.value.errors] == [field]
    assert field in str(caught.value)
    assert box.requests == []


@pytest.mark.parametrize("value", [1, 4294967295])
def test_update_queue_integer_bounds_pass(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo,
                                          value: int) -> None:
    ensure_queue(box, repo, 'bounds')
    settings = client.update_queue(repo, "bounds", concurrency=value, batching_min_size=value)
    assert settings.concurrency == value and settings.batching_min_size == value


def test_every_violation_reported_at_once(box: trunk_api.Sandbox, client: trunk_api.Client) -> None:
    with pytest.raises(ValidationError) as caught:
        client.update_queue("github.com/acme", "", concurrency=0, batch="no")  # type: ignore[arg-type]
    fields = {v.field for v in caught.value.errors}
    assert {"repo", "targetBranch", "concurrency", "batch"} <= fields
    assert box.requests == []


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"page_size": 0}, "page_query.page_size"),
        ({"page_size": 101}, "page_query.page_size"),
        ({"page_size": 2**64}, "page_query.page_size"),
        ({"page_size": "10"}, "page_query.page_size"),
        ({"page_token": 5}, "page_query.page_token"),
    ],
)
def test_page_query_rules(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo, kwargs: dict[str, Any],
                          field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        client.list_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, **kwargs)
    assert [v.field for v in caught.value.errors] == [field]
    assert box.requests == []


@pytest.mark.parametrize("size", [1, 100])
def test_page_size_bounds_pass(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo, size: int) -> None:
    assert len(client.list_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=size).tests) == size


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (("github.com/acme/x", "", UUID), "org_url_slug"),
        (("github.com/acme/x", "org", "not-a-uuid"), "test_id"),
        (("github.com/acme/x", "org", UUID[:-1]), "test_id"),
        (("github.com/acme/x", 3, UUID), "org_url_slug"),
        ((42, "org", UUID), "repo"),
        (("github.com//x", "org", UUID), "repo"),
        (("github.com/acme/x", "org\udcff", UUID), "org_url_slug"),
    ],
)
def test_get_test_details_rules(box: trunk_api.Sandbox, client: trunk_api.Client, args: tuple[Any, ...],
                                field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        client.get_test_details(*args)
    assert field in {v.field for v in caught.value.errors}
    assert box.requests == []


def test_uuid_in_upper_case_is_accepted(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    with pytest.raises(trunk_api.NotFoundError):
        client.get_test_details(repo, box.org_url_slug, UUID.upper())  # valid form, unknown id: the server's 404
    assert len(box.requests) == 1
