"""to_pandas(): one row per test, flat columns, the documented dtypes, values equal to the models."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import trunk_api
from trunk_api import Repo, TestCase
from trunk_api._core import tables

from conftest import NOW, WEEK_START

COLUMNS = [
    "id", "name", "variant", "classname", "file_path", "parent", "html_url", "repository_html_url",
    "status_value", "status_reason", "status_timestamp", "failure_rate_last_7d", "failure_rate_last_24h",
    "pull_requests_impacted_last_7d", "quarantined", "codeowners", "ticket_html_url", "most_common_failures",
]


def test_columns_dtypes_and_values(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    tests = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=50).to_list()
    frame = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=50).to_pandas()
    assert list(frame.columns) == COLUMNS
    assert len(frame) == len(tests) > 0
    assert str(frame["status_timestamp"].dtype) == "datetime64[us, UTC]"
    assert frame["failure_rate_last_7d"].dtype == "float64"
    assert frame["pull_requests_impacted_last_7d"].dtype == "Int64"
    assert frame["quarantined"].dtype == "boolean"
    for name in ("id", "name", "status_value", "ticket_html_url"):
        assert isinstance(frame[name].dtype, pd.StringDtype), name
    assert frame["codeowners"].dtype == object and frame["most_common_failures"].dtype == object
    for row, test in zip(frame.itertuples(index=False), tests):
        assert row.id == test.id and row.name == test.name and row.classname == test.classname
        assert test.status is not None
        assert row.status_value == test.status.value
        assert row.status_timestamp.to_pydatetime() == test.status.timestamp
        assert row.failure_rate_last_7d == test.failure_rate_last_7d
        assert row.pull_requests_impacted_last_7d == test.pull_requests_impacted_last_7d
        assert row.quarantined == test.quarantined
        assert row.codeowners == test.codeowners
        assert [f["summary"] for f in row.most_common_failures] == [f.summary for f in test.most_common_failures or []]


def test_absent_values_are_missing_not_zero() -> None:
    sparse = TestCase.from_dict({"id": "a"})
    full = TestCase.from_dict({"id": "b", "failure_rate_last_7d": 0.5, "pull_requests_impacted_last_7d": 0,
                               "quarantined": False, "status": {"timestamp": "2026-11-20T12:00:00Z"},
                               "ticket": {"html_url": "https://t/1"}})
    from trunk_api._pandas import frame_from_columns

    frame = frame_from_columns(tables.test_columns([sparse, full]))
    assert math.isnan(frame["failure_rate_last_7d"][0]) and frame["failure_rate_last_7d"][1] == 0.5
    assert frame["pull_requests_impacted_last_7d"][0] is pd.NA and frame["pull_requests_impacted_last_7d"][1] == 0
    assert frame["quarantined"][0] is pd.NA and frame["quarantined"][1] == False  # noqa: E712
    assert frame["status_timestamp"][0] is pd.NaT
    assert frame["status_timestamp"][1] == pd.Timestamp("2026-11-20T12:00:00Z")
    assert frame["name"][0] is pd.NA and frame["ticket_html_url"][1] == "https://t/1"
    assert frame["codeowners"][0] is None and frame["most_common_failures"][0] is None


def test_empty_frame_has_the_columns(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    frame = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, max_results=0).to_pandas()
    assert list(frame.columns) == COLUMNS and len(frame) == 0
    assert frame["pull_requests_impacted_last_7d"].dtype == "Int64"


@pytest.mark.parametrize("limit", [1, 25])
def test_max_results_applies_to_pandas(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo,
                                       limit: int) -> None:
    frame = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=10,
                                      max_results=limit).to_pandas()
    assert len(frame) == limit
