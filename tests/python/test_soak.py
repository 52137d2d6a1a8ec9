"""A small fault soak through the public Python API (the full one is scripts/soak, in C++ with tiny backoff):
503s, 429s with Retry-After (the sandbox's per-organization rate limit), dropped connections and truncated
bodies. Nothing may be lost or duplicated: the walk equals the fault-free one, the queue ends in exactly the
settings last written, every detail arrives for the id asked."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest

import trunk_api

from conftest import ensure_queue

FAULTS = {"error_rate": 0.20, "drop_rate": 0.05, "truncate_rate": 0.02, "fault_seed": 5}
# The sandbox's 429s come from a real per-organization rate limit with Retry-After of at least a second, and
# this Client honours Retry-After: they are injected only where concurrent calls go over the limit anyway.
RATE_LIMIT = {"rate_limit": 40.0}
NO_FAULTS = {"error_rate": 0.0, "drop_rate": 0.0, "truncate_rate": 0.0, "rate_limit": 0.0}


@pytest.fixture(scope="module")
def soak_box() -> Iterator[trunk_api.Sandbox]:
    with trunk_api.Sandbox(seed=3, tests=1500, now="2026-11-20T12:00:00Z") as box:
        yield box


def _client(box: trunk_api.Sandbox) -> trunk_api.Client:
    # A budget large enough that a run of faults can never exhaust it (P(11 faults in a row) < 1e-5).
    return box.client(max_retries=20, timeout=10, overall_deadline=0)


def _fault_counts(box: trunk_api.Sandbox) -> Counter[str]:
    kinds = {503: "503", 429: "429", 0: "dropped"}
    return Counter(kinds.get(request.status, "answered") for request in box.requests)


def test_failing_tests_walk_under_faults_equals_the_fault_free_walk(soak_box: trunk_api.Sandbox) -> None:
    box = soak_box
    repo = box.repos[0]
    end = box.now
    start = end - timedelta(days=7)
    box.set_faults(**NO_FAULTS)
    reference = [t.id for t in _client(box).iter_failing_tests(repo, box.org_url_slug, start, end, page_size=100,
                                                               max_results=200)]
    assert len(reference) == 200

    box.clear_requests()
    box.set_faults(**FAULTS)
    try:
        walked = [t.id for t in _client(box).iter_failing_tests(repo, box.org_url_slug, start, end, page_size=10,
                                                                 max_results=200)]
    finally:
        box.set_faults(**NO_FAULTS)
    assert len(walked) == 200
    assert len(set(walked)) == 200
    assert walked == reference
    counts = _fault_counts(box)
    assert counts["503"] > 0 and counts["dropped"] > 0, counts


def _random_update(rng: random.Random, everything: bool) -> dict[str, Any]:
    def maybe() -> bool:
        return everything or rng.random() < 0.35

    update: dict[str, Any] = {}
    for name in ("concurrency", "bisection_concurrency", "testing_timeout_minutes", "pending_failure_depth",
                 "batching_max_wait_time_minutes", "batching_min_size"):
        if maybe():
            update[name] = rng.choice([1, rng.randint(1, 50), 4294967295])
    for name in ("can_optimistically_merge", "batch", "comments_enabled", "commands_enabled",
                 "create_prs_for_testing_branches", "status_check_enabled"):
        if maybe():
            update[name] = rng.random() < 0.5
    for name, values in (("state", ["running", "paused", "draining"]), ("mode", ["single", "parallel"]),
                         ("direct_merge_mode", ["off", "always"]),
                         ("optimization_mode", ["off", "bisection_skip_redundant_tests"]),
                         ("merge_method", ["merge_commit", "squash", "rebase"])):
        if maybe():
            update[name] = rng.choice(values)
    if maybe():
        update["required_statuses"] = [f"ci/job-{rng.randint(0, 99)}" for _ in range(rng.randint(0, 3))]
    return update


def _as_written(settings: trunk_api.QueueSettings, name: str) -> Any:
    value = getattr(settings, name)
    return getattr(value, "value", value)  # enums compare by their wire value


def test_random_queue_updates_under_faults_end_in_the_settings_last_written(soak_box: trunk_api.Sandbox) -> None:
    box = soak_box
    repo = box.repos[0]
    rng = random.Random(8)
    client = _client(box)
    model = _random_update(rng, everything=True)
    ensure_queue(box, repo, "soak-py")
    client.update_queue(repo, "soak-py", **model)
    box.clear_requests()
    box.set_faults(**FAULTS)
    try:
        for _ in range(40):
            update = _random_update(rng, everything=False)
            client.update_queue(repo, "soak-py", **update)
            model.update(update)
    finally:
        box.set_faults(**NO_FAULTS)
    final = client.update_queue(repo, "soak-py")  # sends no setting: reads them
    assert {name: _as_written(final, name) for name in model} == model
    assert _fault_counts(box)["503"] > 0


def test_bulk_details_under_faults_all_arrive(soak_box: trunk_api.Sandbox) -> None:
    box = soak_box
    repo = box.repos[0]
    ids = box.test_ids(repo)[:120]
    client = _client(box)
    box.clear_requests()
    box.set_faults(**FAULTS, **RATE_LIMIT)
    try:
        bulk = getattr(client, "get_test_details_many", None)
        if bulk is not None:
            answered = [test.id for test in bulk(repo, box.org_url_slug, ids)]
        else:  # the thread pool a user would write; the Client is shared by all threads
            with ThreadPoolExecutor(max_workers=6) as pool:
                answered = list(pool.map(lambda test_id: client.get_test_details(repo, box.org_url_slug, test_id).id,
                                         ids))
    finally:
        box.set_faults(**NO_FAULTS)
    assert answered == ids
    counts = _fault_counts(box)
    assert counts["503"] > 0 and counts["dropped"] > 0 and counts["429"] > 0, counts
