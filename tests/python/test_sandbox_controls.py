"""Staging exact situations in the sandbox's merge queue from Python (docs/sandbox.md, "Staging exact
situations"): run durations as distributions, per-queue rates and scripted pull requests, set while the sandbox
runs, on the virtual clock, and the checks (made by the C++ core, named field, value and rule). The HTTP control
routes are tested against the real local server here too; the C++ suite tests each rule in detail
(tests/cpp/sandbox/queue_controls_test.cpp)."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest

import trunk_api
from trunk_api import Sandbox
from trunk_api.sandbox import (
    EmpiricalRunDuration,
    FixedRunDuration,
    LognormalRunDuration,
    PullRequestScript,
    QueueControls,
)

NOW = datetime(2026, 11, 20, 12, 0, 0, tzinfo=timezone.utc)


@pytest.fixture
def box() -> Iterator[Sandbox]:
    with Sandbox(seed=5, tests=100, now=NOW, clock="virtual", flaky_failure_rate=0.0,
                 broken_pull_request_rate=0.0) as sandbox:
        yield sandbox


@pytest.fixture
def mq(box: Sandbox) -> trunk_api.Client:
    return box.client()


@pytest.fixture
def repo(box: Sandbox) -> trunk_api.Repo:
    return box.repos[0]


def state(mq: trunk_api.Client, repo: trunk_api.Repo, number: int) -> str:
    return str(mq.get_submitted_pull_request(repo, number, "main").state)


def test_a_fixed_forty_minute_run_ends_exactly_forty_minutes_after_it_starts(box, mq, repo):
    box.set_queue_controls(repo, run_duration=FixedRunDuration(40))
    assert box.queue_controls(repo).run_duration == FixedRunDuration(40)
    mq.submit_pull_request(repo, 1, "main")
    box.advance(minutes=1)  # mergeable: the run starts
    started = box.clock_now
    assert state(mq, repo, 1) == "testing"
    box.advance(minutes=40, seconds=-1)
    assert state(mq, repo, 1) == "testing"
    box.advance(seconds=1)
    assert box.clock_now == started + timedelta(minutes=40)
    assert state(mq, repo, 1) == "merged"


def test_an_empirical_bimodal_list_gives_only_its_values_and_both(box, mq, repo):
    box.set_queue_controls(repo, run_duration=EmpiricalRunDuration([5, 40]))
    for number in range(1, 31):
        mq.submit_pull_request(repo, number, "main")
    box.advance(hours=30)
    started = []
    for number in range(1, 31):
        pr = mq.get_submitted_pull_request(repo, number, "main")
        assert str(pr.state) == "merged"
        started.append(mq.get_merge_queue_testing_details(repo, "main", pr.extra["testRunId"]).created_at)
    # Concurrency 1: each run starts when the one before it ends, so the gaps are the durations.
    minutes = [(later - earlier) / timedelta(minutes=1) for earlier, later in zip(started, started[1:])]
    assert set(minutes) == {5.0, 40.0}


def test_a_scripted_broken_pull_request_fails_and_its_batch_mates_merge(box, mq, repo):
    mq.update_queue(repo, "main", batch=True, batching_min_size=4)
    box.script_pull_request(repo, 3, broken=True)
    assert box.pull_request_scripts(repo)[3].broken is True
    for number in range(1, 5):
        mq.submit_pull_request(repo, number, "main")
    box.advance(hours=10)
    assert state(mq, repo, 3) == "failed"
    assert [state(mq, repo, n) for n in (1, 2, 4)] == ["merged"] * 3


def test_a_scripted_pass_beats_a_flaky_rate_of_one(box, mq, repo):
    box.set_queue_controls(repo, flaky_run_rate=1.0)
    box.script_pull_request(repo, 1, next_run="pass")
    assert box.pull_request_scripts(repo) == {1: box.pull_request_scripts(repo)[1]}
    assert box.pull_request_scripts(repo)[1].next_run == "pass"
    mq.submit_pull_request(repo, 1, "main")
    mq.submit_pull_request(repo, 2, "main")
    box.advance(hours=3)
    assert state(mq, repo, 1) == "merged"
    assert state(mq, repo, 2) == "failed"
    assert box.pull_request_scripts(repo) == {}


def test_rates_changed_while_running_affect_only_later_runs(box, mq, repo):
    box.set_queue_controls(repo, run_duration=FixedRunDuration(20))
    mq.submit_pull_request(repo, 1, "main")
    box.advance(minutes=5)
    assert state(mq, repo, 1) == "testing"
    box.set_queue_controls(repo, run_duration=FixedRunDuration(20), flaky_run_rate=1.0)
    box.advance(minutes=30)
    assert state(mq, repo, 1) == "merged"
    mq.submit_pull_request(repo, 2, "main")
    box.advance(minutes=30)
    assert state(mq, repo, 2) == "failed"
    box.set_queue_controls(repo)  # every control back to the sandbox's value
    assert box.queue_controls(repo) == QueueControls()


@pytest.mark.parametrize("rate", [0, 1, 0.0, 1.0])
def test_rates_at_the_bounds_are_accepted(box, repo, rate):
    box.set_queue_controls(repo, flaky_run_rate=rate, broken_pull_request_rate=rate)
    assert box.queue_controls(repo).flaky_run_rate == rate


@pytest.mark.parametrize(
    ("keywords", "field", "rule"),
    [
        ({"flaky_run_rate": -0.0001}, "flaky_run_rate", "must be from 0 to 1"),
        ({"flaky_run_rate": 1.0001}, "flaky_run_rate", "must be from 0 to 1"),
        ({"broken_pull_request_rate": -0.0001}, "broken_pull_request_rate", "must be from 0 to 1"),
        ({"broken_pull_request_rate": 1.0001}, "broken_pull_request_rate", "must be from 0 to 1"),
        ({"run_duration": FixedRunDuration(0)}, "run_duration.minutes", "must be from 1 to 10080 minutes"),
        ({"run_duration": FixedRunDuration(-1)}, "run_duration.minutes", "must be from 1 to 10080 minutes"),
        ({"run_duration": FixedRunDuration(0.9999)}, "run_duration.minutes", "must be from 1 to 10080 minutes"),
        ({"run_duration": LognormalRunDuration(sigma=5.0001)}, "run_duration.sigma", "must be from 0 to 5"),
        ({"run_duration": EmpiricalRunDuration([])}, "run_duration.minutes", "must hold from 1 to 10000 durations"),
        ({"run_duration": EmpiricalRunDuration([5, 0])}, "run_duration.minutes[1]", "must be from 1 to 10080 minutes"),
    ],
)
def test_every_control_rule_is_refused_past_its_bound(box, repo, keywords, field, rule):
    with pytest.raises(trunk_api.ValidationError) as raised:
        box.set_queue_controls(repo, **keywords)
    assert [(e.field, e.rule) for e in raised.value.errors] == [(field, rule)]
    assert box.queue_controls(repo) == QueueControls()  # nothing changed


def test_the_minimum_durations_are_accepted_and_the_types_show_themselves(box, repo):
    for duration in (FixedRunDuration(1), LognormalRunDuration(1, 0), EmpiricalRunDuration([1, 10080])):
        box.set_queue_controls(repo, run_duration=duration)
        assert box.queue_controls(repo).run_duration == duration
    assert repr(LognormalRunDuration()) == "LognormalRunDuration(median_minutes=15, sigma=0.35)"
    assert EmpiricalRunDuration([5, 40]).minutes == (5.0, 40.0)
    assert isinstance(box.queue_controls(repo), QueueControls)


def test_script_rules_and_unknown_queues_are_refused(box, repo):
    with pytest.raises(trunk_api.ValidationError, match="next_run_minutes: 0: must be from 1 to 10080 minutes"):
        box.script_pull_request(repo, 1, next_run_minutes=0)
    with pytest.raises(trunk_api.ValidationError, match="next_run: 'maybe': must be one of fail, pass, None"):
        box.script_pull_request(repo, 1, next_run="maybe")
    with pytest.raises(trunk_api.ValidationError, match="number: 0: must be a pull request number, at least 1"):
        box.script_pull_request(repo, 0, broken=True)
    with pytest.raises(trunk_api.ValidationError, match="queue: .* branch nowhere: is not a merge queue"):
        box.set_queue_controls(repo, "nowhere", flaky_run_rate=0.5)
    with pytest.raises(TypeError, match="run_duration must be"):
        box.set_queue_controls(repo, run_duration=40)  # type: ignore[arg-type]
    box.script_pull_request(repo, 1, next_run="fail", next_run_minutes=12.5)
    script = box.pull_request_scripts(repo)[1]
    assert isinstance(script, PullRequestScript)
    assert (script.broken, script.next_run, script.next_run_minutes) == (None, "fail", 12.5)


def _http(box: Sandbox, method: str, path: str, body: object = None, token: bool = True,
          **query: str) -> tuple[int, dict[str, str], str]:
    """One request to the real local server: status, headers, body text."""
    request = urllib.request.Request(
        box.url + path + "?" + urllib.parse.urlencode(query),
        data=None if body is None else json.dumps(body).encode(),
        method=method,
        headers={"x-api-token": box.token} if token else {},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310 - loopback sandbox
            return answer.status, dict(answer.headers), answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, dict(refused.headers), refused.read().decode()


def test_the_http_routes_answer_and_refuse_as_the_other_control_routes(box, repo):
    where = {"repo": str(repo), "branch": "main"}
    status, _, text = _http(box, "PUT", "/sandbox/queues/controls",
                            {"run_duration": {"kind": "fixed", "minutes": 40}, "flaky_run_rate": 0.5}, **where)
    assert status == 200, text
    assert json.loads(text)["controls"]["run_duration"] == {"kind": "fixed", "minutes": 40.0}
    assert box.queue_controls(repo).flaky_run_rate == 0.5
    status, _, text = _http(box, "POST", "/sandbox/queues/pull-requests/9/script", {"broken": True}, **where)
    assert json.loads(text)["scripts"] == [{"number": 9, "broken": True, "next_run": None, "next_run_minutes": None}]
    assert box.pull_request_scripts(repo)[9].broken is True
    assert _http(box, "GET", "/sandbox/queues/controls", token=False, **where)[0] == 401
    status, headers, _ = _http(box, "DELETE", "/sandbox/queues/controls", **where)
    assert (status, headers["Allow"]) == (405, "GET, PUT")
    status, _, text = _http(box, "PUT", "/sandbox/queues/controls", {"flaky_run_rate": 1.0001}, **where)
    assert status == 400
    assert "flaky_run_rate: 1.0001: must be from 0 to 1" in text
    status, _, text = _http(box, "GET", "/sandbox/queues/controls", repo=str(repo), branch="nowhere")
    assert status == 404
    assert box.token not in text


# ---- arrivals: pull requests the queue submits by itself --------------------------------------------------
from trunk_api.sandbox import Arrivals  # noqa: E402 - beside the tests that use it


def test_scheduled_arrivals_are_submitted_at_their_times_with_their_targets(box, mq, repo):
    times = [NOW + timedelta(minutes=m) for m in (5, 20)]
    box.set_queue_controls(repo, arrivals=Arrivals.scheduled(times, targets={"//app": 1.0, "//web": 0.0},
                                                             first_number=100))
    assert box.queue_controls(repo).arrivals == Arrivals.scheduled(times, targets={"//app": 1.0, "//web": 0.0},
                                                                    first_number=100)
    box.advance(minutes=6)
    assert state(mq, repo, 100) in {"not_ready", "pending", "testing"}
    with pytest.raises(trunk_api.NotFoundError):
        mq.get_submitted_pull_request(repo, 101, "main")
    box.advance(hours=3)
    assert [state(mq, repo, n) for n in (100, 101)] == ["merged", "merged"]


def test_arrivals_are_submitted_with_the_priority_each_draws(box, mq, repo):
    times = [NOW + timedelta(minutes=m) for m in range(1, 41)]
    box.set_queue_controls(repo, arrivals=Arrivals.scheduled(times, priorities={0: 0.25, 10: 0.75}))
    box.advance(minutes=41)
    drawn = [mq.get_submitted_pull_request(repo, n, "main").priority_value for n in range(1, 41)]
    assert set(drawn) == {0, 10}, "every arrival drew one of the two: none took the default"
    assert 2 <= drawn.count(0) <= 20


def test_a_working_hours_profile_arrives_only_in_working_hours(box, mq, repo):
    profile = [0.0] * 24
    for hour in range(9, 17):
        profile[hour] = 6.0
    box.set_queue_controls(repo, arrivals=Arrivals.hourly(profile))

    def arrived() -> int:
        """How many arrivals were submitted: they take the numbers 1, 2, ... in turn."""
        n = 0
        while True:
            try:
                mq.get_submitted_pull_request(repo, n + 1, "main")
            except trunk_api.NotFoundError:
                return n
            n += 1

    counts = []
    for day in range(3):  # NOW is 12:00 UTC: to 17:00, to the next 09:00, ...
        box.advance(seconds=(NOW.replace(hour=17) + timedelta(days=day) - box.clock_now).total_seconds())
        counts.append(arrived())
        box.advance(seconds=(NOW.replace(hour=9) + timedelta(days=day + 1) - box.clock_now).total_seconds())
        assert arrived() == counts[-1], "no arrival between 17:00 and 09:00"
    assert counts[0] > 10  # 5 hours at 6 an hour: 30 on average
    assert counts[2] - counts[1] > 20  # 8 hours: 48 on average


@pytest.mark.parametrize(
    ("arrivals", "field", "rule"),
    [
        (Arrivals.poisson(-0.001), "arrivals.per_hour", "must be from 0 to 3600 per hour"),
        (Arrivals.poisson(3600.001), "arrivals.per_hour", "must be from 0 to 3600 per hour"),
        (Arrivals.hourly([1.0] * 23), "arrivals.per_hour", "must hold 24 rates (each day alike) or 168 (Monday 00:00 UTC first)"),
        (Arrivals.hourly([1.0] * 169), "arrivals.per_hour", "must hold 24 rates (each day alike) or 168 (Monday 00:00 UTC first)"),
        (Arrivals.poisson(1, targets={"//app": 1.01}), "arrivals.targets[0].probability", "must be from 0 to 1"),
        (Arrivals.poisson(1, targets={"": 0.5}), "arrivals.targets[0].target", "must not be empty"),
        (Arrivals.poisson(1, first_number=0), "arrivals.first_number", "must be a pull request number, at least 1"),
        (Arrivals.poisson(1, priorities={-1: 0.1}), "arrivals.priorities[0].value",
         "must be a priority from 0 to 4294967295"),
        (Arrivals.poisson(1, priorities={4294967296: 0.1}), "arrivals.priorities[0].value",
         "must be a priority from 0 to 4294967295"),
        (Arrivals.poisson(1, priorities={0: 1.01}), "arrivals.priorities[0].probability", "must be from 0 to 1"),
        (Arrivals.poisson(1, priorities={0: 0.5, 10: 0.5000001}), "arrivals.priorities",
         "must sum to 1 at most (one priority per pull request)"),
    ],
)
def test_every_arrivals_rule_is_refused_past_its_bound(box, repo, arrivals, field, rule):
    with pytest.raises(trunk_api.ValidationError) as raised:
        box.set_queue_controls(repo, arrivals=arrivals)
    assert [(e.field, e.rule) for e in raised.value.errors] == [(field, rule)]
    assert box.queue_controls(repo) == QueueControls()


def test_arrivals_at_their_bounds_are_accepted_and_show_themselves(box, repo):
    for arrivals in (Arrivals.poisson(0), Arrivals.poisson(3600), Arrivals.hourly([0.0] * 24),
                     Arrivals.hourly([2.5] * 168), Arrivals.poisson(1, targets={"a": 0.0, "b": 1.0}, first_number=1),
                     Arrivals.poisson(1, priorities={0: 0.5, 4294967295: 0.5})):
        box.set_queue_controls(repo, arrivals=arrivals)
        assert box.queue_controls(repo).arrivals == arrivals
    assert repr(Arrivals.poisson(6, targets={"//app": 0.3})) == "Arrivals.poisson(6, targets={'//app': 0.3})"
    assert repr(Arrivals.poisson(6, priorities={0: 0.1, 10: 0.2})) == "Arrivals.poisson(6, priorities={0: 0.1, 10: 0.2})"
    assert Arrivals.poisson(6, priorities={0: 0.1}).priorities == {0: 0.1}
    assert Arrivals.hourly([1.0] * 24).per_hour == (1.0,) * 24
    assert Arrivals.poisson(2).kind == "poisson" and Arrivals.poisson(2).at is None
    assert Arrivals.scheduled([NOW]).at == (NOW,)


def test_arrivals_of_the_wrong_type_name_their_field(box, repo):
    with pytest.raises(trunk_api.ValidationError, match="per_hour: 'six'"):
        Arrivals.poisson("six")  # type: ignore[arg-type]
    with pytest.raises(trunk_api.ValidationError, match="targets: list: must be a dict of target name to probability"):
        Arrivals.poisson(1, targets=["//app"])  # type: ignore[arg-type]
    with pytest.raises(trunk_api.ValidationError, match="priorities: list: must be a dict of priority value"):
        Arrivals.poisson(1, priorities=[0])  # type: ignore[arg-type]
    with pytest.raises(trunk_api.ValidationError, match="priorities: 'urgent': must be an integer"):
        Arrivals.poisson(1, priorities={"urgent": 0.1})  # type: ignore[dict-item]
    with pytest.raises(trunk_api.ValidationError, match=r"at\[0\]"):
        Arrivals.scheduled([datetime(2026, 1, 1)])  # naive: refused
    with pytest.raises(TypeError, match="arrivals must be an Arrivals"):
        box.set_queue_controls(repo, arrivals=6)  # type: ignore[arg-type]
