"""to_arrow(), to_polars() and to_pandas(dtype_backend="pyarrow"): the columns the C++ core writes into Arrow
buffers have to_pandas()'s names, one Arrow type each, values equal to the models (nulls where absent, lists as
lists), for every listing, sync, async and windowed; a wrong argument or a missing library consumes nothing."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import trunk_api
from trunk_api import Repo, TestCase
from trunk_api._core import tables

from conftest import NOW, WEEK_START

UTC_MICROS = pa.timestamp("us", tz="UTC")
FAILURE = pa.struct([("summary", pa.string()), ("occurrence_count", pa.int64()), ("last_occurrence", UTC_MICROS)])
TEST_SCHEMA = [
    ("id", pa.string()), ("name", pa.string()), ("variant", pa.string()), ("classname", pa.string()),
    ("file_path", pa.string()), ("parent", pa.string()), ("html_url", pa.string()),
    ("repository_html_url", pa.string()), ("status_value", pa.string()), ("status_reason", pa.string()),
    ("status_timestamp", UTC_MICROS), ("failure_rate_last_7d", pa.float64()), ("failure_rate_last_24h", pa.float64()),
    ("pull_requests_impacted_last_7d", pa.int64()), ("quarantined", pa.bool_()), ("codeowners", pa.list_(pa.string())),
    ("ticket_html_url", pa.string()), ("most_common_failures", pa.list_(FAILURE)),
]


def expected_row(test: TestCase) -> dict[str, Any]:
    """A test as to_arrow() must give it, read from the model field by field (the reference the C++ is held to)."""
    status, repository, ticket = test.status, test.repository, test.ticket
    return {
        "id": test.id, "name": test.name, "variant": test.variant, "classname": test.classname,
        "file_path": test.file_path, "parent": test.parent, "html_url": test.html_url,
        "repository_html_url": repository.html_url if repository else None,
        "status_value": str(status.value.value if hasattr(status.value, "value") else status.value)
        if status and status.value is not None else None,
        "status_reason": status.reason if status else None,
        "status_timestamp": status.timestamp if status else None,
        "failure_rate_last_7d": test.failure_rate_last_7d, "failure_rate_last_24h": test.failure_rate_last_24h,
        "pull_requests_impacted_last_7d": test.pull_requests_impacted_last_7d, "quarantined": test.quarantined,
        "codeowners": test.codeowners, "ticket_html_url": ticket.html_url if ticket else None,
        "most_common_failures": None if test.most_common_failures is None else [
            {"summary": f.summary, "occurrence_count": f.occurrence_count, "last_occurrence": f.last_occurrence}
            for f in test.most_common_failures],
    }


def test_to_arrow_types_and_values(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    tests = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=50).to_list()
    table = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=50).to_arrow()
    assert isinstance(table, pa.Table)
    assert [(field.name, field.type) for field in table.schema] == TEST_SCHEMA
    assert table.column_names == tables.column_names(TestCase)  # the names of to_pandas() and CSV, from one walk
    assert table.num_rows == len(tests) > 100
    assert table.to_pylist() == [expected_row(test) for test in tests]
    assert any(row["most_common_failures"] for row in table.to_pylist())  # the nested lists were exercised


def test_nulls_empty_lists_unicode_and_unknown_values() -> None:
    sparse = TestCase.from_dict({"id": "a"})
    full = TestCase.from_dict({
        "id": "b", "name": "prüfe_ß_✓_𝔘", "variant": "", "failure_rate_last_7d": 0.0,
        "pull_requests_impacted_last_7d": -(2**63), "quarantined": False, "codeowners": [],
        "status": {"value": "SOMETHING_NEW", "timestamp": "1969-12-31T23:59:59.999999Z"},
        "most_common_failures": [{}, {"summary": "x", "occurrence_count": 2**63 - 1}],
    })
    third = TestCase.from_dict({"id": "c", "codeowners": ["@a", "", "@ü"], "quarantined": True,
                                "failure_rate_last_24h": 1.0, "most_common_failures": []})
    rows = tables.listing_arrow(TestCase, [sparse, full, third], "table").to_pylist()
    assert rows == [expected_row(test) for test in (sparse, full, third)]
    # The distinctions a tabular form could lose: absent vs empty text, absent vs empty list, False vs absent.
    assert rows[0]["variant"] is None and rows[1]["variant"] == ""
    assert rows[0]["codeowners"] is None and rows[1]["codeowners"] == [] and rows[2]["codeowners"] == ["@a", "", "@ü"]
    assert rows[0]["quarantined"] is None and rows[1]["quarantined"] is False and rows[2]["quarantined"] is True
    assert rows[1]["status_value"] == "SOMETHING_NEW"  # an unknown enumeration value is kept, not dropped
    assert rows[1]["status_timestamp"] == datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=timezone.utc)
    assert rows[1]["most_common_failures"][0] == {"summary": None, "occurrence_count": None, "last_occurrence": None}
    assert rows[1]["pull_requests_impacted_last_7d"] == -(2**63)
    table = tables.listing_arrow(TestCase, [sparse, full, third], "table")
    table.validate(full=True)  # offsets, bitmaps and UTF-8 checked by pyarrow itself
    assert table.column("id").null_count == 0 and table.column("name").null_count == 2


def test_a_batch_with_no_rows_has_the_schema(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    table = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, max_results=0).to_arrow()
    assert table.num_rows == 0 and [(f.name, f.type) for f in table.schema] == TEST_SCHEMA
    assert tables.listing_arrow(TestCase, [], "table").schema == table.schema


@pytest.mark.parametrize("limit", [1, 25])
def test_max_results_applies(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo, limit: int) -> None:
    listing = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=10, max_results=limit)
    assert listing.to_arrow().num_rows == limit


def test_page_boundaries_do_not_show_in_the_table(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    # The table is built a page at a time (each page appended as it arrives): the pages' sizes, and a cut by
    # max_results in the middle of a page, must not change a value, a null or an offset.
    def table(**options: int) -> pa.Table:
        return client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, **options).to_arrow()

    whole = table(page_size=100)
    assert whole.num_rows > 100
    for page_size in (1, 7, 64):
        pieces = table(page_size=page_size, max_results=150)
        pieces.validate(full=True)
        assert pieces.equals(whole.slice(0, 150)), page_size
    cut = table(page_size=10, max_results=23)
    cut.validate(full=True)
    assert cut.to_pylist() == whole.slice(0, 23).to_pylist()


@pytest.fixture(scope="module")
def queue_box() -> Iterator[trunk_api.Sandbox]:
    """A sandbox of its own whose main queue holds pull requests (the session's has none submitted)."""
    with trunk_api.Sandbox(seed=11, tests=50, clock="virtual") as sandbox:
        client = sandbox.client()
        for number in range(100, 112):
            client.submit_pull_request(sandbox.repos[0], number, "main", priority=number % 3)
        yield sandbox


LISTINGS = {
    "quarantined": lambda box, client, repo: client.iter_quarantined_tests(repo, box.org_url_slug, page_size=5),
    "unhealthy": lambda box, client, repo: client.iter_unhealthy_tests(repo, box.org_url_slug, "flaky", page_size=20),
    "pull requests": lambda box, client, repo: client.iter_pull_requests(repo, "main", take=3),
}


@pytest.mark.parametrize("name", LISTINGS)
def test_every_listing(box: trunk_api.Sandbox, queue_box: trunk_api.Sandbox, name: str) -> None:
    sandbox = queue_box if name == "pull requests" else box
    client, repo = sandbox.client(), sandbox.repos[0]
    make = lambda: LISTINGS[name](sandbox, client, repo)  # noqa: E731
    items = make().to_list()
    table = make().to_arrow()
    assert table.column_names == tables.column_names(type(items[0])) and table.num_rows == len(items) > 0
    # The same values as to_pandas() (which reads the models through the other C++ walk).
    frame, arrow_frame = make().to_pandas(), make().to_pandas(dtype_backend="pyarrow")
    assert list(arrow_frame.columns) == list(frame.columns)
    for column in frame.columns:
        left = [None if value is None or value is pd.NA or value is pd.NaT else value for value in frame[column]]
        right = [None if value is None or value is pd.NA or value is pd.NaT else value
                 for value in arrow_frame[column]]
        if frame[column].dtype == object:  # lists: compare as Python lists
            left = [None if v is None else list(v) for v in left]
            right = [None if v is None else [dict(e) if isinstance(e, dict) else e for e in v] for v in right]
        assert [normal(v) for v in left] == [normal(v) for v in right], column


def normal(value: Any) -> Any:
    """pandas gives a float NaN for an absent float64 and numpy scalars for ArrowDtype cells."""
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, pd.Timestamp):
        return value.to_pydatetime()
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


def test_pandas_with_arrow_dtypes(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    frame = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW).to_pandas(dtype_backend="pyarrow")
    assert all(isinstance(dtype, pd.ArrowDtype) for dtype in frame.dtypes)
    assert frame["codeowners"].dtype == pd.ArrowDtype(pa.list_(pa.string()))
    assert frame["status_timestamp"].dtype == pd.ArrowDtype(UTC_MICROS)
    default = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW).to_pandas()
    assert list(frame.columns) == list(default.columns) and len(frame) == len(default)
    assert frame["name"].tolist() == default["name"].tolist()


def test_polars(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    frame = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW).to_polars()
    assert isinstance(frame, pl.DataFrame)
    table = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW).to_arrow()
    assert frame.columns == table.column_names
    assert frame.schema["codeowners"] == pl.List(pl.String)
    assert frame.schema["status_timestamp"] == pl.Datetime("us", "UTC")
    assert frame.to_dicts() == pl.from_arrow(table).to_dicts()  # type: ignore[union-attr]


@pytest.mark.parametrize("dtype_backend", ["numpy_nullable", "PyArrow", "", 1])
def test_a_wrong_dtype_backend_consumes_nothing(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo,
                                               dtype_backend: Any) -> None:
    listing = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=10)
    box.clear_requests()
    with pytest.raises(ValueError, match=r"dtype_backend=.*must be None .* or \"pyarrow\"") as error:
        listing.to_pandas(dtype_backend=dtype_backend)
    assert repr(dtype_backend) in str(error.value)
    assert len(box.requests) == 0
    assert len(listing.to_list()) > 0  # still whole


@pytest.mark.parametrize("method, missing, extra", [
    ("to_arrow", "pyarrow", "arrow"), ("to_polars", "polars", "polars"),
    ("to_pandas_arrow", "pyarrow", "arrow,pandas"),
])
def test_a_missing_library_is_named_and_consumes_nothing(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo,
                                                         monkeypatch: pytest.MonkeyPatch, method: str, missing: str,
                                                         extra: str) -> None:
    monkeypatch.setitem(sys.modules, missing, None)  # import raises ImportError, as when it is not installed
    listing = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=10)
    box.clear_requests()
    with pytest.raises(ModuleNotFoundError, match=rf"cannot import {missing}: pip install 'trunk-api\[{extra}\]'"):
        if method == "to_pandas_arrow":
            listing.to_pandas(dtype_backend="pyarrow")
        else:
            getattr(listing, method)()
    assert len(box.requests) == 0
    monkeypatch.undo()
    assert listing.to_arrow().num_rows > 0  # still whole


def test_continues_where_the_listing_is(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    everything = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW).to_arrow()
    listing = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=4)
    first = next(listing)
    rest = listing.to_arrow()
    assert [first.id] + rest.column("id").to_pylist() == everything.column("id").to_pylist()
    # Finished: each form is empty, with the same columns.
    for again in (listing.to_arrow, listing.to_polars, lambda: listing.to_pandas(dtype_backend="pyarrow")):
        empty = again()
        assert len(empty) == 0 and len(empty.columns) > 0


def test_the_batch_is_the_arrow_pycapsule_interface(box: trunk_api.Sandbox, client: trunk_api.Client,
                                                    repo: Repo) -> None:
    batch = tables.listing_arrow(TestCase, client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW,
                                                                     max_results=7).to_list(), "batch")
    assert repr(batch) == "<ArrowBatch 7 rows>" and batch.num_rows == 7
    record_batch = pa.record_batch(batch)  # pyarrow takes the buffers through the capsules, no copy
    assert record_batch.num_rows == 7 and repr(batch) == "<ArrowBatch exported>"
    with pytest.raises(ValueError, match="already exported"):
        batch.__arrow_c_array__()
    # Capsules dropped without being imported release the buffers themselves (no leak, no double free).
    unused = tables.listing_arrow(TestCase, [TestCase.from_dict({"id": "x"})], "batch")
    schema_capsule, array_capsule = unused.__arrow_c_array__()
    del schema_capsule, array_capsule, unused
    assert record_batch.column(0).to_pylist()[0] is not None


@pytest.mark.asyncio
async def test_async_listings_equal_the_sync_ones(box: trunk_api.Sandbox, repo: Repo) -> None:
    sync = box.client()
    expected = sync.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW).to_arrow()
    async with box.async_client() as client:
        assert (await client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW).to_arrow()).equals(expected)
        polars_frame = await client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW).to_polars()
        assert polars_frame.to_dicts() == pl.DataFrame(expected).to_dicts()
        frame = await client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW).to_pandas(
            dtype_backend="pyarrow")
        assert frame.equals(expected.to_pandas(types_mapper=pd.ArrowDtype))
        listing = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW)
        with pytest.raises(ValueError, match="dtype_backend='numpy'"):
            await listing.to_pandas(dtype_backend="numpy")
        assert (await listing.to_arrow()).num_rows == expected.num_rows  # the wrong call consumed nothing
        quarantined = await client.iter_quarantined_tests(repo, box.org_url_slug).to_arrow()
        assert quarantined.equals(sync.iter_quarantined_tests(repo, box.org_url_slug).to_arrow())


def test_history_carries_its_windows(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    start, window = NOW - timedelta(days=20), timedelta(days=7)
    history = lambda: client.iter_failing_tests_between(repo, box.org_url_slug, start, NOW, window=window)  # noqa: E731
    table = history().to_arrow()
    assert table.column_names[:2] == ["window_start", "window_end"]
    assert table.schema.field("window_start").type == UTC_MICROS
    assert table.column_names[2:] == tables.column_names(TestCase)
    items = history().to_list()
    assert table.num_rows == len(items) > 0
    assert table.column("window_start").to_pylist() == [item.window_start for item in items]
    assert table.column("window_end").to_pylist() == [item.window_end for item in items]
    assert table.drop_columns(["window_start", "window_end"]).to_pylist() == [expected_row(i.test) for i in items]
    frame = history().to_pandas(dtype_backend="pyarrow")
    assert frame.equals(table.to_pandas(types_mapper=pd.ArrowDtype))
    assert history().to_polars().to_dicts() == pl.from_arrow(table).to_dicts()  # type: ignore[union-attr]
