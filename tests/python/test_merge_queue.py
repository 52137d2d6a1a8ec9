"""Every merge-queue operation (and link_ticket_to_test_case) from Python, against a sandbox whose queue moves
on a virtual clock: the life of a queue and of a pull request, paging, metrics, the error of each operation
(404, 409, 400) from the real local service, and the bounds validated before anything is sent."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest

import trunk_api
from trunk_api import (
    AllTargets,
    BadRequestError,
    ConflictError,
    NotFoundError,
    PullRequestState,
    Sandbox,
    ValidationError,
)

NOW = datetime(2026, 11, 20, 12, 0, 0, tzinfo=timezone.utc)


@pytest.fixture
def queue_box() -> Iterator[Sandbox]:
    """A small sandbox of its own per test (queues are state), on a virtual clock; no flaky failures or
    broken pull requests unless a test asks, so outcomes are exact."""
    with Sandbox(seed=11, tests=200, now=NOW, clock="virtual", flaky_failure_rate=0.0,
                 broken_pull_request_rate=0.0) as box:
        yield box


@pytest.fixture
def mq(queue_box: Sandbox) -> trunk_api.Client:
    return queue_box.client()


@pytest.fixture
def repo(queue_box: Sandbox) -> trunk_api.Repo:
    return queue_box.repos[0]


def states(client: trunk_api.Client, repo: trunk_api.Repo, branch: str) -> dict[int, str]:
    return {pr.pr_number: str(pr.state) for pr in client.iter_pull_requests(repo, branch, take=100)}


# ---- queues ------------------------------------------------------------------------------------------------

def test_a_queue_exists_only_between_create_and_delete(mq, repo, queue_box):
    with pytest.raises(NotFoundError):
        mq.get_queue(repo, "release")
    with pytest.raises(NotFoundError):
        mq.update_queue(repo, "release", concurrency=2)
    assert mq.create_queue(repo, "release", mode="parallel", concurrency=3).extra == {}
    settings = mq.get_queue(repo, "release")
    assert (settings.mode, settings.concurrency, settings.enqueued_pull_requests) == ("parallel", 3, [])
    with pytest.raises(ConflictError) as conflict:
        mq.create_queue(repo, "release")
    assert conflict.value.status_code == 409
    assert mq.delete_queue(repo, "release") is not None
    with pytest.raises(NotFoundError):
        mq.get_queue(repo, "release")


def test_a_queue_holding_pull_requests_cannot_be_deleted(mq, repo):
    mq.create_queue(repo, "busy")
    mq.submit_pull_request(repo, 41, "busy")
    with pytest.raises(BadRequestError):
        mq.delete_queue(repo, "busy")
    mq.cancel_pull_request(repo, 41, "busy")
    mq.delete_queue(repo, "busy")


def test_main_exists_from_the_start_for_every_repository(mq, queue_box):
    for repo in queue_box.repos:
        assert mq.get_queue(repo, "main").branch == "main"


# ---- a pull request's life on the virtual clock -------------------------------------------------------------

def test_a_pull_request_goes_from_not_ready_to_merged_as_the_clock_moves(mq, repo, queue_box):
    start = queue_box.clock_now
    mq.submit_pull_request(repo, 7, "main", priority="high")
    submitted = mq.get_submitted_pull_request(repo, 7, "main")
    assert submitted.state == PullRequestState.NOT_READY
    assert submitted.is_currently_submitted_to_queue is True
    assert submitted.readiness.git_hub_mergeability == "in_progress"
    assert submitted.priority_name == "high"
    assert queue_box.clock_now == start  # a virtual clock stands still until advanced

    queue_box.advance(minutes=2)
    assert mq.get_submitted_pull_request(repo, 7, "main").state == PullRequestState.TESTING
    queue_box.advance(hours=3)
    merged = mq.get_submitted_pull_request(repo, 7, "main")
    assert merged.state == PullRequestState.MERGED
    assert merged.is_currently_submitted_to_queue is False
    assert queue_box.clock_now == start + timedelta(hours=3, minutes=2)
    # Times are aware datetimes, as everywhere in the SDK: it was submitted (not ready) at `start`, merged since.
    assert submitted.state_changed_at == start and submitted.state_changed_at.tzinfo is not None
    assert start < merged.state_changed_at <= queue_box.clock_now
    # ... and listed as merged, concluded after `since`.
    assert [pr.pr_number for pr in mq.iter_pull_requests(repo, "main", state="merged", since=start)] == [7]
    assert mq.list_pull_requests(repo, "main", since=queue_box.clock_now).pull_requests == []


def test_a_pull_request_already_in_the_queue_cannot_be_submitted_again(mq, repo):
    mq.submit_pull_request(repo, 8, "main")
    with pytest.raises(BadRequestError):
        mq.submit_pull_request(repo, 8, "main")


def test_cancel_and_restart(mq, repo, queue_box):
    mq.submit_pull_request(repo, 9, "main")
    queue_box.advance(minutes=2)
    assert mq.get_submitted_pull_request(repo, 9, "main").state == "testing"
    mq.restart_tests_on_pull_request(repo, 9, "main")
    assert mq.get_submitted_pull_request(repo, 9, "main").state in ("pending", "testing")
    mq.cancel_pull_request(repo, 9, "main")
    assert mq.get_submitted_pull_request(repo, 9, "main").state == PullRequestState.CANCELLED
    with pytest.raises(NotFoundError):
        mq.cancel_pull_request(repo, 99999, "main")


def test_parallel_mode_merges_more_in_the_same_time_than_single(mq, repo, queue_box):
    # Parallel mode tests only pull requests whose impacted targets were uploaded; here five lanes of two.
    mq.create_queue(repo, "single")
    mq.create_queue(repo, "parallel", mode="parallel", concurrency=5)
    for number in range(1, 11):
        mq.submit_pull_request(repo, number, "single")
        mq.submit_pull_request(repo, number, "parallel")
        sha = mq.get_submitted_pull_request(repo, number, "parallel").pr_sha
        mq.set_impacted_targets(repo, number, sha, "parallel", [f"//lane{number % 5}"])
    queue_box.advance(minutes=45)
    merged_single = sum(state == "merged" for state in states(mq, repo, "single").values())
    merged_parallel = sum(state == "merged" for state in states(mq, repo, "parallel").values())
    assert merged_parallel > merged_single
    queue_box.advance(hours=12)
    assert set(states(mq, repo, "single").values()) == {"merged"}
    assert set(states(mq, repo, "parallel").values()) == {"merged"}


def test_listing_pages_by_cursor_and_gives_a_dataframe(mq, repo):
    for number in range(100, 125):
        mq.submit_pull_request(repo, number, "main")
    page = mq.list_pull_requests(repo, "main", take=10)
    assert len(page.pull_requests) == 10 and page.next_cursor
    second = mq.list_pull_requests(repo, "main", take=10, cursor=page.next_cursor)
    assert {pr.pr_number for pr in second.pull_requests}.isdisjoint(pr.pr_number for pr in page.pull_requests)
    everything = mq.iter_pull_requests(repo, "main", take=10)
    numbers = [pr.pr_number for pr in everything]
    assert sorted(numbers) == list(range(100, 125))
    assert len(mq.iter_pull_requests(repo, "main", take=10, max_results=12).to_list()) == 12
    frame = mq.iter_pull_requests(repo, "main", take=7).to_pandas()
    assert len(frame) == 25
    assert {"pr_number", "state", "priority_name", "pr_title"} <= set(frame.columns)
    assert str(frame["state_changed_at"].dtype) == "datetime64[us, UTC]"
    table = mq.iter_pull_requests(repo, "main").to_arrow()
    assert str(table.schema.field("state_changed_at").type) == "timestamp[us, tz=UTC]"


def test_a_cursor_the_sandbox_did_not_issue_is_a_bad_request(mq, repo):
    with pytest.raises(BadRequestError):
        mq.list_pull_requests(repo, "main", cursor="123e4567-e89b-12d3-a456-426614174000")


def test_metrics_report_what_the_simulation_did(mq, repo, queue_box):
    for number in range(1, 6):
        mq.submit_pull_request(repo, number, "main")
    queue_box.advance(hours=6)
    metrics = mq.get_merge_queue_metrics(repo)
    assert metrics.text.startswith("# HELP")
    assert metrics.samples and all("repo" in sample.labels for sample in metrics.samples if sample.name.startswith("mq_prs"))
    merged = [s.value for s in metrics.samples if s.name == "mq_prs_concluded_total"
              and s.labels.get("branch") == "main" and s.labels.get("conclusion") == "merged"]
    assert merged == [5.0]
    assert sum(state == "merged" for state in states(mq, repo, "main").values()) == 5
    assert metrics.types["mq_prs_concluded_total"] == "counter"
    assert metrics.types["mq_pr_time_to_merge_seconds"] == "histogram"


def test_impacted_targets_are_reflected_in_readiness(mq, repo):
    mq.submit_pull_request(repo, 12, "main")
    sha = mq.get_submitted_pull_request(repo, 12, "main").pr_sha
    assert mq.get_submitted_pull_request(repo, 12, "main").readiness.has_impacted_targets is False
    mq.set_impacted_targets(repo, 12, sha, "main", ["//app:server", "//lib:core"])
    assert mq.get_submitted_pull_request(repo, 12, "main").readiness.has_impacted_targets is True
    mq.set_impacted_targets(repo, 12, sha, "main", "ALL")
    mq.set_impacted_targets(repo, 12, sha, "main", AllTargets.ALL)
    # Reported before the pull request is in the queue (the GitHub Action reports them when a pull request
    # opens): kept, and the pull request has them once submitted. Only a missing queue is 404.
    # (Targets count for the pull request's head commit; the sandbox gives one sha per repository and number,
    # so another queue tells it.)
    mq.create_queue(repo, "sha-probe")
    mq.submit_pull_request(repo, 999, "sha-probe")
    head = mq.get_submitted_pull_request(repo, 999, "sha-probe").pr_sha
    mq.set_impacted_targets(repo, 999, head, "main", ["//app:server"])
    with pytest.raises(NotFoundError):
        mq.get_submitted_pull_request(repo, 999, "main")
    mq.submit_pull_request(repo, 999, "main")
    assert mq.get_submitted_pull_request(repo, 999, "main").readiness.has_impacted_targets is True
    mq.submit_pull_request(repo, 998, "main")
    assert mq.get_submitted_pull_request(repo, 998, "main").readiness.has_impacted_targets is False
    with pytest.raises(NotFoundError):
        mq.set_impacted_targets(repo, 999, "abc", "no-such-queue", [])


def test_testing_details_of_a_run_the_queue_made(mq, repo, queue_box):
    mq.submit_pull_request(repo, 13, "main")
    queue_box.advance(minutes=2)
    listed = next(iter(mq.iter_pull_requests(repo, "main")))
    run_id = listed.extra["testRunId"]  # the sandbox adds it; the tolerant decoder keeps unknown keys
    details = mq.get_merge_queue_testing_details(repo, "main", run_id)
    assert details.status == "in_progress"
    assert details.created_at.tzinfo is not None  # an aware datetime, within the two minutes advanced
    assert queue_box.clock_now - timedelta(minutes=2) <= details.created_at <= queue_box.clock_now
    assert details.test_branch and details.test_branch_sha
    assert isinstance(details.tested_pull_requests, list) and details.tested_pull_requests
    with pytest.raises(NotFoundError):
        mq.get_merge_queue_testing_details(repo, "main", "no-such-run")


def test_link_ticket_to_test_case(mq, repo, queue_box):
    test_id = queue_box.test_ids(repo)[0]
    assert mq.link_ticket_to_test_case(repo, test_id, "KAN-123") is not None
    with pytest.raises(NotFoundError):
        mq.link_ticket_to_test_case(repo, "123e4567-e89b-12d3-a456-426614174000", "KAN-1")


def test_a_linked_ticket_shows_in_the_tests_ticket(mq, repo, queue_box):
    org = queue_box.org_url_slug
    flaky = [test for test in mq.iter_unhealthy_tests(repo, org, "FLAKY")]
    assert len(flaky) >= 2
    linked, other = flaky[0], flaky[1]

    def ticket(test_id: str) -> str | None:
        test = mq.get_test_details(repo, org, test_id)
        return None if test.ticket is None else test.ticket.html_url

    before = ticket(other.id)
    mq.link_ticket_to_test_case(repo, linked.id.upper(), "KAN-123")  # ids compare without case
    assert ticket(linked.id) == f"https://{org}.atlassian.net/browse/KAN-123"
    listed = {test.id: test for test in mq.iter_unhealthy_tests(repo, org, "FLAKY")}
    assert listed[linked.id].ticket.html_url.endswith("/browse/KAN-123")
    assert ticket(other.id) == before  # only the linked test changed
    # Everything else about the test is as before.
    assert listed[linked.id].name == linked.name and listed[linked.id].status == linked.status
    mq.link_ticket_to_test_case(repo, linked.id, "KAN-124")  # a later link replaces the earlier one
    assert ticket(linked.id).endswith("/browse/KAN-124")


# ---- validation: every bound, before anything is sent -------------------------------------------------------

@pytest.mark.parametrize(("call", "fields"), [
    (lambda c, r: c.submit_pull_request(r, -1, "main"), ["pr.number"]),
    (lambda c, r: c.submit_pull_request(r, 4294967296, "main"), ["pr.number"]),
    (lambda c, r: c.submit_pull_request(r, 1, "main", priority=-1), ["priority"]),
    (lambda c, r: c.submit_pull_request(r, 1, "main", priority=4294967296), ["priority"]),
    (lambda c, r: c.submit_pull_request(r, 1, "main", priority=""), ["priority"]),
    (lambda c, r: c.submit_pull_request(r, 1, "main", priority=1.5), ["priority"]),
    (lambda c, r: c.submit_pull_request(r, 1, ""), ["targetBranch"]),
    (lambda c, r: c.set_impacted_targets(r, 0, "abc", "main", []), ["pr.number"]),
    (lambda c, r: c.set_impacted_targets(r, 1, "", "main", []), ["pr.sha"]),
    (lambda c, r: c.set_impacted_targets(r, 1, "abc", "main", ["ok", ""]), ["impactedTargets[1]"]),
    (lambda c, r: c.set_impacted_targets(r, 1, "abc", "main", "SOME"), ["impactedTargets"]),
    (lambda c, r: c.set_impacted_targets(r, 1, "abc", "main", 5), ["impactedTargets"]),
    (lambda c, r: c.list_pull_requests(r, "main", take=0), ["take"]),
    (lambda c, r: c.list_pull_requests(r, "main", take=101), ["take"]),
    (lambda c, r: c.list_pull_requests(r, "main", cursor="x"), ["cursor"]),
    (lambda c, r: c.list_pull_requests(r, "main", state="sleeping"), ["state"]),
    (lambda c, r: c.create_queue(r, "b", concurrency=0), ["concurrency"]),
    (lambda c, r: c.link_ticket_to_test_case(r, "not-a-uuid", ""), ["test_case_id", "external_ticket_id"]),
    (lambda c, r: c.get_merge_queue_testing_details(r, "main", ""), ["testRunId"]),
])
def test_bounds_are_checked_before_sending(mq, repo, queue_box, call, fields):
    queue_box.clear_requests()
    with pytest.raises(ValidationError) as error:
        call(mq, repo)
    assert [violation.field for violation in error.value.errors] == fields
    assert queue_box.requests == []


@pytest.mark.parametrize("call", [
    lambda c, r: c.submit_pull_request(r, 0, "main"),
    lambda c, r: c.submit_pull_request(r, 4294967295, "main", priority=0),
    lambda c, r: c.submit_pull_request(r, 3, "main", priority=4294967295, no_batch=True),
    lambda c, r: c.submit_pull_request(r, 4, "main", priority="low"),
    lambda c, r: c.list_pull_requests(r, "main", take=1),
    lambda c, r: c.list_pull_requests(r, "main", take=100),
    lambda c, r: c.set_impacted_targets(r, 4294967295, "abc", "main", "all"),
])
def test_values_at_the_edges_are_sent(mq, repo, call):
    try:
        call(mq, repo)
    except NotFoundError:
        pass  # the service's answer, after sending: the bounds passed


def test_an_unreadable_time_is_kept_beside_an_absent_value():
    # Decoders are tolerant: the answer is read, the time is None and its text is in `extra` under its wire name.
    pr = trunk_api.PullRequest.from_dict({"prNumber": 3, "stateChangedAt": "an hour ago"})
    assert pr.pr_number == 3 and pr.state_changed_at is None and pr.extra == {"stateChangedAt": "an hour ago"}
    assert pr.to_dict()["stateChangedAt"] == "an hour ago"  # given back as it came
    details = trunk_api.TestRunDetails.from_dict({"createdAt": "2026-01-01T12:00:00+01:00"})
    assert details.created_at == datetime(2026, 1, 1, 11, 0, tzinfo=timezone.utc)
    assert trunk_api.TestRunDetails.from_dict({"createdAt": ""}).extra == {"createdAt": ""}
