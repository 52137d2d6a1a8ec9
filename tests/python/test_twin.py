"""The twin's statistics, calibration and what-if from Python (trunk_api.twin, docs/twin.md): the C++ results as read-only
views, bad input named, and a calibration read from a sandbox's queue through v2 on its virtual clock."""

from __future__ import annotations

import _thread
import math
import threading
from datetime import datetime, timedelta, timezone

import pytest
import trunk_api
from conftest import a_teams_week_sandbox, main_queue_of
from trunk_api import Client, ValidationError, twin

MONDAY = datetime(2026, 11, 30, tzinfo=timezone.utc)


def field_of(error: pytest.ExceptionInfo[ValidationError]) -> str:
    return error.value.errors[0].field


def test_estimates_carry_their_intervals() -> None:
    none = twin.estimate_proportion(0, 10)
    assert none is not None and none.value == 0 and none.low == 0
    assert none.high == pytest.approx(0.2775, abs=1e-4)
    assert none.contains(0.1) and not none.contains(0.3)
    assert repr(none) == "Estimate(0 [0, 0.2775], n=10)"
    assert twin.estimate_proportion(0, 0) is None
    with pytest.raises(ValidationError) as error:
        twin.estimate_proportion(11, 10)
    assert field_of(error) == "successes"
    rate = twin.estimate_poisson_rate(10, 2.0)
    assert rate is not None and rate.value == 5.0 and rate.low == pytest.approx(2.3977, abs=1e-4)
    assert twin.estimate_poisson_rate(3, 0.0) is None
    with pytest.raises(ValidationError) as error:
        twin.estimate_poisson_rate(3, -1.0)
    assert field_of(error) == "exposure"
    assert twin.CONFIDENCE == 0.95


def test_durations_keep_stopped_runs_as_lower_bounds() -> None:
    fit = twin.fit_durations([1, 3, 4], stopped=[2])
    assert fit.empirical == [(1.0, 0.25), (3.0, 0.375), (4.0, 0.375)]
    assert fit.minutes == [1.0, 3.0, 4.0] and fit.censored == 1 and fit.preferred == "lognormal"
    assert fit.lognormal is not None and fit.lognormal.sigma is not None
    assert twin.fit_durations([]).lognormal is None
    with pytest.raises(ValidationError) as error:
        twin.fit_durations(["ten"])
    assert field_of(error) == "finished"
    with pytest.raises(ValidationError) as error:
        twin.fit_durations([1.0], stopped=[None])
    assert field_of(error) == "stopped"


def test_arrivals_by_hour() -> None:
    times = [MONDAY + timedelta(hours=10, minutes=45), MONDAY + timedelta(hours=11, minutes=5)]
    profile = twin.fit_arrivals(times, MONDAY + timedelta(hours=10, minutes=30), MONDAY + timedelta(hours=12))
    assert profile.arrivals == 2 and profile.observed_hours == 1.5
    assert profile.by_hour_of_week[10].value == 2.0 and profile.by_hour_of_week[11].value == 1.0
    assert profile.by_hour_of_week[12] is None and len(profile.by_hour_of_week) == 168
    assert len(profile.by_hour_of_day) == 24
    with pytest.raises(ValidationError) as error:
        twin.fit_arrivals(times, MONDAY, MONDAY)
    assert field_of(error) == "until"


@pytest.fixture(scope="module")
def busy_box():
    import trunk_api

    with trunk_api.Sandbox(seed=11, tests=60, clock="virtual", flaky_failure_rate=0.1,
                           broken_pull_request_rate=0.1) as sandbox:
        yield sandbox


def test_calibrate_reads_a_queues_history_through_v2(busy_box) -> None:
    client = busy_box.client()
    queue = main_queue_of(client, busy_box.repos[0])
    start = busy_box.clock_now
    for number in range(1, 31):
        client.v2.merge_queues.submit_pull_request(queue.id, number)
        busy_box.advance(minutes=10)
    busy_box.advance(hours=10)
    calibration = twin.calibrate(client, queue.id, since=start - timedelta(hours=1), until=busy_box.clock_now)
    assert calibration.arrivals.arrivals == 30
    assert calibration.runs >= 30 and calibration.ignored_results == 0
    assert calibration.durations.lognormal is not None
    assert sum(p for _, p in calibration.durations.empirical) == pytest.approx(1.0)
    assert calibration.failed_entries is not None and calibration.failed_entries.observations <= 30
    assert any("some hours of the week are never observed" in w for w in calibration.warnings)


def test_calibrate_checks_its_window_before_sending(busy_box) -> None:
    client = busy_box.client()
    before = len(busy_box.requests)
    now = busy_box.clock_now
    with pytest.raises(ValidationError) as error:
        twin.calibrate(client, "any", since=now - timedelta(days=45, seconds=1), until=now)
    assert field_of(error) == "since"
    with pytest.raises(ValidationError) as error:
        twin.calibrate(client, "any", since=now, until=now)
    assert field_of(error) == "since"
    assert len(busy_box.requests) == before


# ---- what-if: configurations on the queue model, over seeds --------------------------------------------------
def _team(per_hour: float = 5, minutes: float = 15, broken: float = 0.02, flaky: float = 0.02) -> twin.TeamModel:
    from trunk_api.sandbox import Arrivals, FixedRunDuration
    return twin.TeamModel(Arrivals.poisson(per_hour), FixedRunDuration(minutes), broken_rate=broken, flaky_rate=flaky)


def test_compare_answers_latency_and_cost_per_configuration() -> None:
    one_by_one, batched = twin.compare(
        _team(), [{}, {"batch": True, "batchingMinSize": 4, "batchingMaxWaitTimeMinutes": 10}],
        seeds=4, window_days=7)
    assert batched.settings.batch is True and batched.settings.batching_min_size == 4
    assert one_by_one.seeds == batched.seeds == 4
    # Batching a queue that one-by-one cannot keep up with: fewer CI runs per merge and less waiting.
    assert batched.runs_per_merged.high < one_by_one.runs_per_merged.low
    assert batched.minutes_in_queue_p50.high < one_by_one.minutes_in_queue_p50.low
    for outcome in (one_by_one, batched):
        for estimate in (outcome.minutes_in_queue_p50, outcome.minutes_in_queue_p90, outcome.merged_per_day,
                         outcome.runs_per_merged, outcome.failed_share):
            assert estimate.low <= estimate.value <= estimate.high
            assert estimate.observations == 4
    again = twin.compare(_team(), [{}], seeds=4, window_days=7)[0]
    assert again.minutes_in_queue_p50.value == one_by_one.minutes_in_queue_p50.value  # the same seeds


def test_compare_refuses_a_model_or_options_out_of_range_naming_the_field() -> None:
    with pytest.raises(trunk_api.ValidationError) as raised:
        twin.compare(_team(broken=1.5), [{}], seeds=1, window_days=1)
    assert [e.field for e in raised.value.errors] == ["team.broken_rate"]
    with pytest.raises(trunk_api.ValidationError, match="seeds: 0: must be at least 1"):
        twin.compare(_team(), [{}], seeds=0)
    with pytest.raises(trunk_api.ValidationError, match="window: 0 hours: must be at least 1 hour"):
        twin.compare(_team(), [{}], window_days=0)
    with pytest.raises(TypeError, match="run_duration must be"):
        twin.TeamModel(_team().arrivals, None)  # type: ignore[arg-type]


@pytest.mark.usefixtures("sigint_as_in_a_terminal")
def test_ctrl_c_ends_a_long_compare() -> None:
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            twin.compare(_team(per_hour=20), [{}, {"mode": "parallel"}], seeds=10_000, window_days=60)
    finally:
        timer.cancel()


# ---- the whole twin: history, model, backtest, answers beside the backtest's errors ---------------------------
@pytest.fixture(scope="module")
def played_week():
    """conftest's team after its week (a_teams_week_sandbox): the sandbox and its main queue's v2 id."""
    with a_teams_week_sandbox() as played:
        yield played


@pytest.fixture(scope="module")
def a_teams_week(played_week):
    """The twin of that week, read through v2."""
    box, queue_id = played_week
    until = box.clock_now
    return twin.of_queue(box.client(), queue_id, since=until - timedelta(days=7), until=until, seeds=8)


def test_of_queue_calibrates_fits_and_backtests_the_queue(a_teams_week) -> None:
    queue_twin = a_teams_week
    assert isinstance(queue_twin.history, twin.QueueHistory)
    assert len(queue_twin.history.pull_requests) > 300 and "pull requests" in repr(queue_twin.history)
    assert queue_twin.settings.concurrency == 2          # the queue's configuration, read through v2
    assert queue_twin.calibration.arrivals.per_hour.contains(2.5)
    assert queue_twin.fitted.broken_rate is not None and queue_twin.fitted.flaky_rate is not None
    assert queue_twin.fitted.broken_rate.contains(0.08) and queue_twin.fitted.flaky_rate.contains(0.05)
    uncertainty = queue_twin.team.uncertainty
    assert uncertainty.resample_durations and uncertainty.broken_rate_sd > 0 and uncertainty.arrival_rate_sd > 0
    back = queue_twin.backtest
    assert back.observed.merged > 250 and back.predicted.seeds == 8
    assert abs(back.p50_error) < 0.15 and abs(back.runs_per_merged_error) < 0.15
    assert back.since == queue_twin.history.since and back.until < queue_twin.history.until
    assert any("impacted every target" in w for w in queue_twin.warnings)  # arrivals without targets upload ALL


def test_a_v1_token_gives_the_same_model_and_says_what_v1_cannot_backtest(played_week, a_teams_week) -> None:
    box, _ = played_week
    until = box.clock_now
    v1_only = Client(base_url=box.url, token=box.token)  # a v1 token: v2 refuses it
    v1_twin = twin.of_v1_queue(v1_only, box.repos[0], "main", since=until - timedelta(days=7), until=until, seeds=8)
    assert v1_twin.history.source == "v1" and a_teams_week.history.source == "v2"
    assert v1_twin.history.queue_id == f"{box.repos[0]} main"
    assert v1_twin.settings == a_teams_week.settings        # getQueue's configuration, as v2's reads
    assert v1_twin.calibration.runs == a_teams_week.calibration.runs
    assert v1_twin.calibration.arrivals.per_hour.contains(2.5)
    assert v1_twin.fitted.broken_rate is not None and v1_twin.fitted.broken_rate.contains(0.08)
    back = v1_twin.backtest
    assert math.isnan(back.p50_error) and math.isnan(back.observed.minutes_in_queue_p50)
    assert abs(back.runs_per_merged_error) < 0.15
    assert any("read through v1" in w for w in v1_twin.warnings)
    row = v1_twin.compare_table([{"concurrency": 2}], seeds=4, window_days=7)[0]
    assert row["minutes_in_queue_p50_backtest_error"] is None and row["runs_per_merged_backtest_error"] is not None
    with pytest.raises(ValidationError) as error:
        twin.collect_history_v1(v1_only, "not a repo", since=until - timedelta(days=1), until=until)
    assert field_of(error) == "repo"


def test_compare_table_sets_the_backtest_error_beside_each_answer(a_teams_week) -> None:
    rows = a_teams_week.compare_table([{}, {"concurrency": 2}, {"concurrency": 4}], seeds=4, window_days=7)
    assert [r["configuration"] for r in rows] == ["a new queue's settings", '{"concurrency": 2}',
                                                  '{"concurrency": 4}']
    for row in rows:
        assert row["minutes_in_queue_p50_low"] <= row["minutes_in_queue_p50"] <= row["minutes_in_queue_p50_high"]
        assert row["minutes_in_queue_p50_backtest_error"] == a_teams_week.backtest.p50_error
        assert row["runs_per_merged_backtest_error"] == a_teams_week.backtest.runs_per_merged_error
        assert "failed_share_backtest_error" not in row   # the backtest has no error for it
    one_at_a_time, two, four = (r["minutes_in_queue_p50"] for r in rows)
    assert one_at_a_time > two > four


def test_the_steps_exist_on_their_own_and_refuse_bad_input(a_teams_week) -> None:
    history = a_teams_week.history
    calibration = twin.calibrate(history)
    assert calibration.arrivals.arrivals == a_teams_week.calibration.arrivals.arrivals
    assert twin.settings_of(history.queue).concurrency == 2
    with pytest.raises(ValidationError) as error:
        twin.fit_team(calibration, {"concurrency": 2}, seeds=1)
    assert field_of(error) == "seeds"
    with pytest.raises(TypeError):
        twin.calibrate(a_teams_week.history.queue)  # neither a client with an id nor a history


def test_a_team_with_uncertainty_draws_a_plausible_team_per_seed() -> None:
    from trunk_api.sandbox import Arrivals, FixedRunDuration

    exact = _team(3, 15, 0.05, 0.02)
    unsure = twin.TeamModel(Arrivals.poisson(3), FixedRunDuration(15), broken_rate=0.05, flaky_rate=0.02,
                            uncertainty=twin.TeamUncertainty(broken_rate_sd=0.03, arrival_rate_sd=0.2))
    assert unsure.uncertainty == twin.TeamUncertainty(broken_rate_sd=0.03, arrival_rate_sd=0.2)
    assert "arrival_rate_sd=0.2" in repr(unsure.uncertainty)
    (a,), (b,) = (twin.compare(t, [{}], seeds=8, window_days=5) for t in (exact, unsure))
    def width(e: twin.Estimate) -> float:
        return e.high - e.low

    assert width(b.merged_per_day) > width(a.merged_per_day)  # a month's luck and the team's uncertainty
    with pytest.raises(ValidationError) as error:
        twin.compare(twin.TeamModel(Arrivals.poisson(3), FixedRunDuration(15),
                                    uncertainty=twin.TeamUncertainty(flaky_rate_sd=-1)), [{}], seeds=2)
    assert field_of(error) == "team.uncertainty.flaky_rate_sd"


def test_a_setting_the_queue_does_not_have_is_refused_not_ignored() -> None:
    with pytest.raises(ValidationError) as error:
        twin.compare(_team(), [{}, {"batchingMinsize": 4}], seeds=1, window_days=1)
    assert field_of(error) == "configuration.batchingMinsize"
    assert "is not a queue setting" in str(error.value)
    assert twin.settings_from({"batchingMinSize": 4}).batching_min_size == 4
