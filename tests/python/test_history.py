"""Client.iter_failing_tests_between against the sandbox: any range as consecutive windows of at most 7 days,
rows in window order with their window, the same tests as the single-window calls; every rule at its boundary."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest

import trunk_api
from trunk_api import ValidationError, WindowedTest

from conftest import NOW

MONTH_START = NOW - timedelta(days=30)
WEEK = timedelta(days=7)


@pytest.fixture(scope="module")
def faults() -> Iterator[trunk_api.Sandbox]:
    """A sandbox of its own for injected latency, so it never slows the shared one."""
    with trunk_api.Sandbox(seed=5, tests=200, token="history-fault-token", now="2026-11-20T12:00:00Z") as box:
        yield box


def fields(error: pytest.ExceptionInfo[ValidationError]) -> set[str]:
    return {violation.field for violation in error.value.errors}


def test_a_month_is_the_single_window_calls_in_window_order(box: trunk_api.Sandbox, repo: trunk_api.Repo) -> None:
    client = box.client()
    history = client.iter_failing_tests_between(repo, box.org_url_slug, MONTH_START, NOW)
    # 30 days: four whole weeks and a last window of 2 days, ending exactly at the end.
    assert [(s - MONTH_START, e - s) for s, e in history.windows] == [
        (WEEK * i, WEEK) for i in range(4)] + [(WEEK * 4, timedelta(days=2))]
    items = history.to_list()
    expected = []
    for start, end in history.windows:
        expected += [(start, end, test) for test in client.iter_failing_tests(repo, box.org_url_slug, start, end)]
    assert len(expected) > 100
    assert [(item.window_start, item.window_end, item.test) for item in items] == expected
    assert all(isinstance(item, WindowedTest) for item in items)
    assert items[0].name == items[0].test.name and items[0].id == items[0].test.id  # fields read through


def test_to_pandas_carries_the_window_columns(box: trunk_api.Sandbox, repo: trunk_api.Repo) -> None:
    client = box.client()
    five_days = timedelta(days=5)
    frame = client.iter_failing_tests_between(repo, box.org_url_slug, MONTH_START, NOW, window=five_days).to_pandas()
    assert list(frame.columns[:2]) == ["window_start", "window_end"]
    assert str(frame["window_start"].dtype) == "datetime64[us, UTC]"
    assert sorted(set(frame["window_start"])) == [MONTH_START + five_days * i for i in range(6)]
    assert frame["window_start"].is_monotonic_increasing
    assert ((frame["window_end"] - frame["window_start"]) == five_days).all()
    # Each window's rows are exactly what the single-window call gives, in its order, with its columns.
    for i in (0, 5):
        start = MONTH_START + five_days * i
        rows = frame[frame["window_start"] == start].drop(columns=["window_start", "window_end"])
        single = client.iter_failing_tests(repo, box.org_url_slug, start, start + five_days).to_pandas()
        assert len(single) > 0
        assert rows.reset_index(drop=True).equals(single)


def test_window_boundaries(box: trunk_api.Sandbox, repo: trunk_api.Repo) -> None:
    client = box.client()
    org = box.org_url_slug
    # Exactly 7 days is the longest window; one microsecond more is refused, naming `window`.
    assert len(client.iter_failing_tests_between(repo, org, NOW - WEEK * 2, NOW, window=WEEK).windows) == 2
    with pytest.raises(ValidationError) as refused:
        client.iter_failing_tests_between(repo, org, NOW - WEEK * 2, NOW, window=WEEK + timedelta(microseconds=1))
    assert fields(refused) == {"window"}
    for bad in (timedelta(0), timedelta(seconds=-1), 7, None):
        with pytest.raises(ValidationError) as refused:
            client.iter_failing_tests_between(repo, org, NOW - WEEK, NOW, window=bad)  # type: ignore[arg-type]
        assert fields(refused) == {"window"}
    # A range shorter than one window is one window; a multiple of the window ends on a whole window.
    assert client.iter_failing_tests_between(repo, org, NOW - timedelta(hours=1), NOW).windows == [
        (NOW - timedelta(hours=1), NOW)]
    assert client.iter_failing_tests_between(repo, org, NOW - WEEK * 3, NOW).windows[-1] == (NOW - WEEK, NOW)
    # The smallest range: one microsecond.
    assert len(client.iter_failing_tests_between(repo, org, NOW - timedelta(microseconds=1), NOW).windows) == 1


def test_range_and_argument_rules(box: trunk_api.Sandbox, repo: trunk_api.Repo) -> None:
    client = box.client()
    org = box.org_url_slug
    box.clear_requests()
    for start, end in ((NOW, NOW), (NOW, NOW - timedelta(microseconds=1))):
        with pytest.raises(ValidationError) as refused:
            client.iter_failing_tests_between(repo, org, start, end)
        assert fields(refused) == {"end_time"}
    with pytest.raises(ValidationError) as refused:
        client.iter_failing_tests_between(repo, org, datetime(2026, 11, 1), NOW)  # naive: not guessed
    assert fields(refused) == {"start_time"} and "timezone-aware" in str(refused.value)
    with pytest.raises(ValidationError) as refused:
        client.iter_failing_tests_between(repo, org, "last tuesday", NOW)
    assert fields(refused) == {"start_time"}
    for concurrency in (0, 17, True):
        with pytest.raises(ValidationError) as refused:
            client.iter_failing_tests_between(repo, org, MONTH_START, NOW, concurrency=concurrency)
        assert fields(refused) == {"concurrency"}
    for concurrency in (1, 16):
        assert client.iter_failing_tests_between(repo, org, MONTH_START, NOW, concurrency=concurrency,
                                                 max_results=3).to_list()
    with pytest.raises(ValidationError) as refused:
        client.iter_failing_tests_between(repo, org, MONTH_START, NOW, max_results=-1)
    assert fields(refused) == {"max_results"}
    box.clear_requests()
    with pytest.raises(ValidationError) as refused:  # the core's own rules, checked when called
        client.iter_failing_tests_between(repo, "", MONTH_START, NOW, page_size=101)
    assert fields(refused) == {"org_url_slug", "page_query.page_size"}
    assert box.requests == []


def test_lazy_single_use_max_results_and_text_times(box: trunk_api.Sandbox, repo: trunk_api.Repo) -> None:
    client = box.client()
    box.clear_requests()
    history = client.iter_failing_tests_between(repo, box.org_url_slug, "2026-10-21T12:00:00Z",
                                                "2026-11-20T13:00:00+01:00", max_results=7)
    assert box.requests == [] and "5 windows, not started" in repr(history)
    assert "iter_failing_tests_between(" in history._repr_html_() and box.requests == []
    items = list(history)
    assert len(items) == 7 and all(item.window_start == items[0].window_start for item in items)
    assert history.to_list() == [] and list(history) == []  # finished: nothing more, as a generator
    assert client.iter_failing_tests_between(repo, box.org_url_slug, MONTH_START, NOW, max_results=0).to_list() == []


def test_next_then_for_continues_where_it_is(box: trunk_api.Sandbox, repo: trunk_api.Repo) -> None:
    client = box.client()
    expected = client.iter_failing_tests_between(repo, box.org_url_slug, MONTH_START, NOW).to_list()
    assert len(expected) > 3
    history = client.iter_failing_tests_between(repo, box.org_url_slug, MONTH_START, NOW)
    assert iter(history) is history and "not started" in repr(history)
    first = next(history)
    assert repr(history).endswith("windows, started>")
    assert [first] + [item for item in history] == expected
    assert next(history, None) is None


def test_close_stops_the_walk(box: trunk_api.Sandbox, repo: trunk_api.Repo) -> None:
    client = box.client()
    history = client.iter_failing_tests_between(repo, box.org_url_slug, MONTH_START, NOW)
    next(history)
    history.close()
    box.clear_requests()
    assert history.to_list() == [] and box.requests == []
    unstarted = client.iter_failing_tests_between(repo, box.org_url_slug, MONTH_START, NOW)
    unstarted.close()
    assert list(unstarted) == [] and box.requests == []


def test_leaving_early_leaves_no_window_fetching_behind(faults: trunk_api.Sandbox) -> None:
    # Windows fetched ahead are waited for when the walk ends early: no request of it comes after it returned.
    client = faults.client()
    repo = faults.repos[0]
    faults.set_faults(latency_ms=150)
    try:
        got = client.iter_failing_tests_between(repo, faults.org_url_slug, NOW - timedelta(days=30), NOW,
                                                concurrency=16, max_results=2, page_size=1).to_list()
        assert len(got) == 2
        faults.clear_requests()
        time.sleep(0.4)
        assert faults.requests == []
    finally:
        faults.set_faults(latency_ms=0)


def test_an_error_of_a_later_window_surfaces(box: trunk_api.Sandbox) -> None:
    client = box.client()
    missing = trunk_api.Repo("github.com", "nobody", "nothing")
    with pytest.raises(trunk_api.NotFoundError):
        client.iter_failing_tests_between(missing, box.org_url_slug, MONTH_START, NOW).to_list()


_POLARS_WITHOUT_PYARROW = """
import json, sys
from importlib.abc import MetaPathFinder

class NoPyarrow(MetaPathFinder):  # as if pyarrow were not installed
    def find_spec(self, name, path=None, target=None):
        if name == "pyarrow" or name.startswith("pyarrow."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NoPyarrow())
from datetime import datetime, timedelta, timezone
import trunk_api
now = datetime(2026, 11, 20, 12, 0, 0, tzinfo=timezone.utc)
with trunk_api.Sandbox(seed=7, tests=600, now=now) as box:
    history = box.client().iter_failing_tests_between(box.repos[0], box.org_url_slug, now - timedelta(days=30), now)
    frame = history.to_polars()
print(json.dumps({"pyarrow": "pyarrow" in sys.modules, "columns": frame.columns, "rows": frame.height,
                  "types": [str(frame.schema[name]) for name in ("window_start", "window_end", "id")],
                  "first": [frame["window_start"][0].isoformat(), frame["id"][0]]}))
"""


def test_to_polars_needs_no_pyarrow(box: trunk_api.Sandbox, repo: trunk_api.Repo) -> None:
    import json
    import subprocess
    import sys

    from conftest import NOW as now

    assert box.repos[0] == repo and now == NOW
    run = subprocess.run([sys.executable, "-c", _POLARS_WITHOUT_PYARROW], capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    expected = box.client().iter_failing_tests_between(repo, box.org_url_slug, MONTH_START, NOW).to_arrow()
    assert got["pyarrow"] is False  # never imported
    assert got["columns"] == expected.column_names and got["rows"] == expected.num_rows > 0
    assert got["types"] == ["Datetime(time_unit='us', time_zone='UTC')"] * 2 + ["String"]
    assert got["first"] == [expected.column("window_start")[0].as_py().isoformat(), expected.column("id")[0].as_py()]
