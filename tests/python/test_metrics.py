"""MergeQueueMetrics' typed access from Python: gauges by labels, histograms and their quantiles, computed by the
C++ core (bind_metrics.cpp). The exposition is tests/fixtures/merge_queue_metrics.prom, written from the
documented format and shared with the C++ tests; the repository-less request is checked on a scripted server."""

from __future__ import annotations

import math
import copy
from pathlib import Path

import pytest

import trunk_api
from trunk_api import DecodeError, Histogram, HistogramBucket, MergeQueueMetrics, ValidationError
from scripted_server import Reply, ScriptedServer

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "merge_queue_metrics.prom"
TOKEN = "tok-metrics-1234567890"


@pytest.fixture(scope="module")
def metrics() -> MergeQueueMetrics:
    return MergeQueueMetrics.parse(FIXTURE.read_text())


def test_gauges_are_selected_by_labels_and_summed(metrics: MergeQueueMetrics) -> None:
    assert metrics.gauge("mq_depth_current", branch="main", queue_type="main") == 7
    assert metrics.gauge("mq_depth_current", branch="main") == 9
    assert metrics.gauge("mq_depth_current") == 10
    assert metrics.gauge("mq_testing_slots_active", queue_type="bisection") == 1
    by_conclusion = {c: metrics.gauge("mq_pr_conclusions_1h_total", conclusion=c)
                     for c in ("merged", "failed", "cancelled")}
    assert by_conclusion == {"merged": 12, "failed": 2, "cancelled": 1}


def test_unknown_series_are_kept_and_missing_ones_are_none(metrics: MergeQueueMetrics) -> None:
    assert metrics.gauge("mq_pr_conclusions_1h_total", conclusion="timed_out_in_future") == 5
    assert metrics.gauge("mq_prs_submitted_total", source="api") == 40
    assert metrics.gauge("mq_not_sent") is None
    assert metrics.gauge("mq_depth_current", branch="nowhere") is None
    assert metrics.histogram("mq_not_sent") is None
    assert metrics.histograms("mq_pr_wait_duration_1h_seconds", queue_type="bisection") == []


def test_a_histogram_is_an_object_with_buckets_sum_count_and_a_quantile(metrics: MergeQueueMetrics) -> None:
    in_queue = metrics.histogram("mq_pr_time_in_queue_1h_seconds", branch="main")
    assert isinstance(in_queue, Histogram)
    assert in_queue.labels == {"repo": "acme/widgets", "branch": "main", "queue_type": "main"}
    assert [b.le for b in in_queue.buckets] == [60, 300, 600, 900, 1800, 3600, 5400, 7200, math.inf]
    assert isinstance(in_queue.buckets[0], HistogramBucket)
    assert (in_queue.sum, in_queue.count) == (100000, 40)
    assert in_queue.quantile(0.5) == pytest.approx(750)
    assert in_queue.quantile(0.9) == 7200  # beyond the last finite bound: that bound
    assert in_queue.quantile(0) == 300
    assert in_queue.quantile(1) == 7200
    assert copy.deepcopy(in_queue) == in_queue


def test_several_series_merge_bucket_by_bucket(metrics: MergeQueueMetrics) -> None:
    assert len(metrics.histograms("mq_pr_test_duration_1h_seconds")) == 2
    merged = metrics.histogram("mq_pr_test_duration_1h_seconds")
    assert merged is not None
    assert merged.labels == {"repo": "acme/widgets", "branch": "main"}
    assert (merged.count, merged.sum) == (24, 20000)
    assert merged.quantile(0.5) == pytest.approx(780)


@pytest.mark.parametrize("text", [
    'x_bucket{le="60"} 0\nx_bucket{le="+Inf"} 0\n',   # no observation
    'x_bucket{le="+Inf"} 5\nx_count 5\n',              # only +Inf
    'x_bucket{le="60"} 5\n',                           # no +Inf
])
def test_nothing_to_estimate_from_is_nan(text: str) -> None:
    histogram = MergeQueueMetrics.parse(text).histogram("x")
    assert histogram is not None and math.isnan(histogram.quantile(0.5))


@pytest.mark.parametrize("q", [-0.01, 1.01, math.nan, math.inf, "0.5", True])
def test_a_quantile_outside_zero_to_one_is_a_validation_error_naming_q(metrics: MergeQueueMetrics, q: object) -> None:
    histogram = metrics.histogram("mq_pr_time_in_queue_1h_seconds")
    assert histogram is not None
    with pytest.raises(ValidationError) as caught:
        histogram.quantile(q)  # type: ignore[arg-type]
    assert [v.field for v in caught.value.errors] == ["q"]


def test_labels_must_be_text(metrics: MergeQueueMetrics) -> None:
    with pytest.raises(ValidationError) as caught:
        metrics.gauge("mq_depth_current", branch=1)  # type: ignore[arg-type]
    assert [v.field for v in caught.value.errors] == ["labels.branch"]
    # A label may be called "name": the series name is positional only.
    assert metrics.gauge("mq_depth_current", name="x") is None


def test_bad_text_is_a_decode_error_naming_the_line() -> None:
    with pytest.raises(DecodeError, match="line 3") as caught:
        MergeQueueMetrics.parse('# TYPE x histogram\nx_bucket{le="60"} 1\nx_bucket{le="soon"} 2\n')
    assert "soon" in str(caught.value)
    with pytest.raises(DecodeError, match="line 2"):
        MergeQueueMetrics.parse("ok 1\nthis is not a sample\n")


def test_without_a_repository_no_query_is_sent() -> None:
    body = 'mq_depth_current{repo="acme/a",branch="main",queue_type="main"} 2\n'
    with ScriptedServer([Reply(200, body, {"Content-Type": "text/plain; version=0.0.4"})]) as server:
        client = trunk_api.Client(TOKEN, server.url, max_retries=0)
        every = client.get_merge_queue_metrics()
        one = client.get_merge_queue_metrics("github.com/acme/a")
        by_keyword = client.get_merge_queue_metrics(repo=None)
    paths = [request.path for request in server.received]
    assert paths == ["/v1/getMergeQueueMetrics", "/v1/getMergeQueueMetrics?repo=acme/a&repoHost=github.com",
                     "/v1/getMergeQueueMetrics"]
    assert every.gauge("mq_depth_current") == one.gauge("mq_depth_current") == by_keyword.gauge("mq_depth_current") == 2


@pytest.mark.asyncio
async def test_the_async_client_takes_repo_the_same_ways() -> None:
    body = 'mq_depth_current{repo="acme/a",branch="main",queue_type="main"} 2\n'
    with ScriptedServer([Reply(200, body, {"Content-Type": "text/plain; version=0.0.4"})]) as server:
        async with trunk_api.AsyncClient(TOKEN, server.url, max_retries=0) as client:
            every = await client.get_merge_queue_metrics()
            await client.get_merge_queue_metrics("github.com/acme/a")   # positionally, as Client takes it
            await client.get_merge_queue_metrics(repo="github.com/acme/b")
    assert every.gauge("mq_depth_current") == 2
    assert [request.path for request in server.received] == [
        "/v1/getMergeQueueMetrics", "/v1/getMergeQueueMetrics?repo=acme/a&repoHost=github.com",
        "/v1/getMergeQueueMetrics?repo=acme/b&repoHost=github.com"]


def test_hourly_windows_merge_into_the_histogram_of_the_run(metrics: MergeQueueMetrics) -> None:
    hour = metrics.histogram("mq_pr_time_in_queue_1h_seconds")
    assert hour is not None
    two_hours = Histogram.merge([hour, hour])
    assert (two_hours.count, two_hours.sum) == (80, 200000)
    assert [b.count for b in two_hours.buckets] == [2 * b.count for b in hour.buckets]
    assert two_hours.quantile(0.5) == hour.quantile(0.5)  # the same shape, twice as many
    assert Histogram.merge([]).buckets == []

