"""The sandbox's merge queue behaves as Trunk documents it, seen from Python on the virtual clock: single mode
tests up to the concurrency at once, parallel mode waits for impacted targets and keeps lanes apart, a paused
queue merges nothing until resumed, and the documented metric series agree with the listing. The rules and the
pages they follow: docs/sandbox.md, "The merge queue" (the C++ suite tests each rule in detail:
tests/cpp/sandbox/merge_queue_rules_test.cpp)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import datetime, timezone

import pytest

import trunk_api
from trunk_api import Sandbox

NOW = datetime(2026, 11, 20, 12, 0, 0, tzinfo=timezone.utc)
DOCUMENTED_BUCKETS = [60.0, 300.0, 600.0, 900.0, 1800.0, 3600.0, 5400.0, 7200.0, float("inf")]


@pytest.fixture
def box() -> Iterator[Sandbox]:
    """No flaky failures or broken pull requests: outcomes are exact."""
    with Sandbox(seed=5, tests=100, now=NOW, clock="virtual", flaky_failure_rate=0.0,
                 broken_pull_request_rate=0.0) as sandbox:
        yield sandbox


@pytest.fixture
def mq(box: Sandbox) -> trunk_api.Client:
    return box.client()


@pytest.fixture
def repo(box: Sandbox) -> trunk_api.Repo:
    return box.repos[0]


def states(mq: trunk_api.Client, repo: trunk_api.Repo, branch: str) -> dict[int, str]:
    return {pr.pr_number: str(pr.state) for pr in mq.iter_pull_requests(repo, branch, take=100)}


def test_single_mode_tests_up_to_the_concurrency_at_once(box, mq, repo):
    mq.create_queue(repo, "single3", mode="single", concurrency=3)
    for number in range(1, 6):
        mq.submit_pull_request(repo, number, "single3")
    box.advance(minutes=2)  # mergeable after a minute
    now = Counter(states(mq, repo, "single3").values())
    assert now["testing"] == 3 and now["pending"] == 2, now
    metrics = mq.get_merge_queue_metrics(repo)
    assert metrics.gauge("mq_testing_slots_active", branch="single3", queue_type="main") == 3
    assert metrics.gauge("mq_depth_current", branch="single3", queue_type="main") == 5


def test_parallel_mode_waits_for_targets_and_keeps_lanes_apart(box, mq, repo):
    mq.create_queue(repo, "lanes", mode="parallel", concurrency=4)
    for number in (1, 2, 3):
        mq.submit_pull_request(repo, number, "lanes")
    for number, targets in ((1, ["//frontend"]), (2, ["//backend"])):
        sha = mq.get_submitted_pull_request(repo, number, "lanes").pr_sha
        mq.set_impacted_targets(repo, number, sha, "lanes", targets)
    box.advance(minutes=2)
    now = states(mq, repo, "lanes")
    assert now[1] == now[2] == "testing"  # separate lanes, both at once
    assert now[3] != "testing"  # no targets uploaded: not processed
    metrics = mq.get_merge_queue_metrics(repo)
    assert metrics.gauge("mq_awaiting_mergeability", branch="lanes", queue_type="main") == 1
    box.advance(hours=3)
    now = states(mq, repo, "lanes")
    assert now[1] == now[2] == "merged"
    assert now[3] not in ("testing", "merged")


def test_a_paused_queue_merges_nothing_until_resumed(box, mq, repo):
    mq.submit_pull_request(repo, 7, "main")
    box.advance(minutes=2)
    assert states(mq, repo, "main")[7] == "testing"
    mq.update_queue(repo, "main", state="paused")
    mq.submit_pull_request(repo, 8, "main")  # submissions are still accepted
    box.advance(hours=3)  # the run in progress may finish, but nothing merges
    paused = states(mq, repo, "main")
    assert paused[7] in ("testing", "tests_passed") and paused[8] in ("not_ready", "pending"), paused
    mq.update_queue(repo, "main", state="running")
    box.advance(hours=3)
    assert states(mq, repo, "main") == {7: "merged", 8: "merged"}


def test_the_documented_series_agree_with_the_listing(box, mq, repo):
    mq.update_queue(repo, "main", concurrency=2)
    for number in range(20, 26):
        mq.submit_pull_request(repo, number, "main")
    box.advance(minutes=50)
    metrics = mq.get_merge_queue_metrics(repo)
    listed = Counter(states(mq, repo, "main").values())
    merged = metrics.gauge("mq_pr_conclusions_1h_total", branch="main", queue_type="main", conclusion="merged")
    assert merged == listed["merged"] > 0
    time_in_queue = metrics.histogram("mq_pr_time_in_queue_1h_seconds", branch="main", queue_type="main")
    assert time_in_queue is not None and time_in_queue.count == listed["merged"]
    assert [bucket.le for bucket in time_in_queue.buckets] == DOCUMENTED_BUCKETS
    assert 0 < time_in_queue.quantile(0.5) <= time_in_queue.quantile(0.9) <= 3600
    tested = metrics.histogram("mq_pr_test_duration_1h_seconds", branch="main", queue_type="main")
    assert tested is not None and tested.count >= listed["merged"]
    # Every repository when none is named: this one is among them.
    assert mq.get_merge_queue_metrics().gauge("mq_pr_conclusions_1h_total", repo=f"{repo.owner}/{repo.name}",
                                              branch="main", conclusion="merged") == merged
