"""Failing tests over any range: :meth:`Client.iter_failing_tests_between`.

The service answers list-failing-tests for at most 7 days at a time (the rule of the single-window calls is
unchanged). A longer range is walked as consecutive windows ``[start, start + window)``, ..., the last one ending
at ``end``; each window is an ordinary ``iter_failing_tests`` of the C++ client (its validation, paging, retries
and prefetch), so nothing of the wire is re-done here. A few windows are fetched at once, on threads that hold no
GIL while they wait, and the tests come out in window order, each with the window it was listed in.

A test that failed in several windows is listed once per window: the service lists the distinct tests that
failed *within* a window, so the same test in two windows is two facts (it failed in both).
"""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from trunk_api import _arrow, _display, _pandas, _progress
from trunk_api._core import client as engines, tables
from trunk_api._progress import ProgressLike
from trunk_api._core.models import TestCase
from trunk_api.errors import ValidationError, Violation

from trunk_api._arguments import RepoLike, TimeLike

__all__ = ["WindowedTest", "FailingTestsHistory", "MAX_WINDOW"]

#: The longest window one list-failing-tests call accepts (the C++ core's rule,
#: docs/reference/service.md#list-failing-tests).
MAX_WINDOW = timedelta(days=7)
#: Windows fetched at once, by default.
DEFAULT_CONCURRENCY = 4


@dataclass(frozen=True)
class WindowedTest:
    """A failing test and the window ``[window_start, window_end)`` it was listed in. The test's own fields read
    through (``item.name`` is ``item.test.name``)."""

    window_start: datetime
    window_end: datetime
    test: TestCase

    def __getattr__(self, name: str) -> Any:
        # Only called for names the dataclass lacks: the test's fields.
        return getattr(self.test, name)


def _as_time(value: TimeLike, field: str) -> datetime:
    """An aware datetime (pandas.Timestamp is one) or RFC 3339 text with its offset, as the other calls take."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise ValidationError(f"{field}: {value!r}: must be RFC 3339 time with an offset",
                                  [Violation(field, repr(value), "must be RFC 3339 time with an offset")]) from None
    if not isinstance(value, datetime):
        raise ValidationError(f"{field}: {value!r}: must be a datetime or RFC 3339 text",
                              [Violation(field, repr(value), "must be a datetime or RFC 3339 text")])
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValidationError(f"{field}: {value!r}: must be timezone-aware (naive times are not guessed)",
                              [Violation(field, repr(value), "must be timezone-aware")])
    return value


def windows_between(start: datetime, end: datetime, window: timedelta) -> list[tuple[datetime, datetime]]:
    """Consecutive windows of at most ``window`` from ``start`` to ``end``; the last one may be shorter."""
    windows = []
    left = start
    while left < end:
        right = min(left + window, end)
        windows.append((left, right))
        left = right
    return windows


class FailingTestsHistory:
    """The failing tests of every window of a range, in window order, as :class:`WindowedTest` items.

    Lazy, and an iterator like the other listings: nothing is fetched before the first item is asked for (or
    ``to_list()`` / ``to_pandas()``), each of these continues where the previous one stopped (``next()`` then
    ``for``), and a finished history yields nothing more; ``max_results`` stops early; ``windows`` lists the
    windows. Up to ``concurrency`` windows are fetched at once, ahead of the one being read; ``close()`` stops
    them when the rest is not wanted (dropping the history does too).
    """

    def __init__(self, core: engines.Client, repo: RepoLike, org_url_slug: str, start_time: TimeLike,
                 end_time: TimeLike, *, window: timedelta, page_size: int, max_results: int | None,
                 concurrency: int, progress: ProgressLike = False) -> None:
        violations = []
        start = _as_time(start_time, "start_time")
        end = _as_time(end_time, "end_time")
        if not start < end:
            violations.append(Violation("end_time", end.isoformat(), "must be after start_time"))
        if not isinstance(window, timedelta) or not timedelta(0) < window <= MAX_WINDOW:
            violations.append(Violation("window", repr(window), "must be a timedelta above 0 and at most 7 days"))
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or not 1 <= concurrency <= 16:
            violations.append(Violation("concurrency", repr(concurrency), "must be between 1 and 16"))
        if max_results is not None and (isinstance(max_results, bool) or not isinstance(max_results, int)
                                        or max_results < 0):
            violations.append(Violation("max_results", repr(max_results), "must be >= 0 or None"))
        if violations:
            raise ValidationError("iter_failing_tests_between: " + "; ".join(
                f"{v.field}: {v.value}: {v.rule}" for v in violations), violations)
        self._core = core  # the C++ client: each window is its iter_failing_tests
        self._repo = repo
        self._org = org_url_slug
        self._page_size = page_size
        self._max_results = max_results
        self._concurrency = concurrency
        self.windows: list[tuple[datetime, datetime]] = windows_between(start, end, window)
        # Every window's own arguments are checked now, by the core (repo, org_url_slug, page_size): the
        # first window stands for all, since only the times differ.
        first_start, first_end = self.windows[0]
        core.iter_failing_tests(repo, org_url_slug, first_start, first_end, page_size=page_size)
        # The one walk over the windows, made when the first item is asked for.
        self._walk: Generator[WindowedTest, None, None] | None = None
        # Progress counts windows (their tests are not known before each is fetched).
        self._on_window = _progress.page_reporter(progress, "failing tests, windows", None, unit="windows")
        self._query = (f"iter_failing_tests_between(repo={str(repo)!r}, org_url_slug={org_url_slug!r}, "
                       f"start_time={start.isoformat()!r}, end_time={end.isoformat()!r}, window={window!r}, "
                       f"page_size={page_size}, max_results={max_results})")

    def __repr__(self) -> str:
        state = "not started" if self._walk is None else "started"
        return f"<FailingTestsHistory {self._query}: {len(self.windows)} windows, {state}>"

    def _repr_html_(self) -> str:
        return _display.html_of(self)

    def _fetch(self, index: int, stop: threading.Event) -> list[TestCase]:
        window_start, window_end = self.windows[index]
        # The C++ iterator releases the GIL while it waits, so windows on other threads overlap. Page by page, so
        # that a walk that ended early stops this fetch after the page in flight; no window needs more tests than
        # max_results.
        pages = self._core.iter_failing_tests(self._repo, self._org, window_start, window_end,
                                                      page_size=self._page_size, max_results=self._max_results).pages
        tests: list[TestCase] = []
        for page in pages:
            tests += page.tests
            if stop.is_set():
                break
        return tests

    def _window_lists(self) -> Iterator[tuple[int, list[TestCase]]]:
        if self._max_results == 0:
            return
        executor = concurrent.futures.ThreadPoolExecutor(max_workers=self._concurrency,
                                                         thread_name_prefix="trunk-api-window")
        stop = threading.Event()
        try:
            pending = {}
            next_to_submit = 0
            for index in range(len(self.windows)):
                while next_to_submit < len(self.windows) and next_to_submit < index + self._concurrency:
                    pending[next_to_submit] = executor.submit(self._fetch, next_to_submit, stop)
                    next_to_submit += 1
                tests = pending.pop(index).result()
                if self._on_window is not None:
                    self._on_window(1, len(self.windows), index == len(self.windows) - 1)
                yield index, tests
        finally:
            # Leaving early (max_results, break, an error): windows not started are dropped, the ones being
            # fetched stop after their page in flight and are waited for, so that no request of this listing is
            # made after it returned.
            stop.set()
            executor.shutdown(wait=True, cancel_futures=True)

    def _items(self) -> Generator[WindowedTest, None, None]:
        left = self._max_results
        for index, tests in self._window_lists():
            window_start, window_end = self.windows[index]
            for test in tests:
                if left is not None:
                    if left <= 0:
                        return
                    left -= 1
                yield WindowedTest(window_start, window_end, test)
            if left is not None and left <= 0:
                return

    def __iter__(self) -> FailingTestsHistory:
        return self

    def __next__(self) -> WindowedTest:
        if self._walk is None:
            self._walk = self._items()
        return next(self._walk)

    def close(self) -> None:
        """Stops the walk: windows being fetched stop after their page in flight and are waited for, so that no
        request of this history is made after close() returns; what is left yields nothing."""
        if self._walk is None:
            self._walk = self._items()  # closed before it started: it never fetches
        self._walk.close()  # runs _window_lists' cleanup; a closed generator yields nothing more

    def to_list(self) -> list[WindowedTest]:
        """Every test of every window not given out yet, in window order."""
        return list(self)

    def to_pandas(self, *, dtype_backend: str | None = None) -> Any:  # pandas.DataFrame
        """One row per (window, test): ``window_start`` and ``window_end`` (UTC timestamps), then the columns of
        ``iter_failing_tests(...).to_pandas()``, built by the same C++ code; ``dtype_backend="pyarrow"`` gives
        Arrow-backed columns, from ``to_arrow()``."""
        if tables.pandas_arrow_form(dtype_backend) is not None:
            pd = _arrow.require("pandas")[1]  # before fetching: without the libraries nothing is requested
            return self.to_arrow().to_pandas(types_mapper=pd.ArrowDtype)
        np, _ = _pandas.require_libraries()  # before fetching: without pandas nothing is requested
        items = self.to_list()
        columns: dict[str, tuple[str, Any, Any]] = {}
        for name, times in (("window_start", [item.window_start for item in items]),
                            ("window_end", [item.window_end for item in items])):
            micros = np.array([_micros(time) for time in times], dtype=np.int64)
            columns[name] = ("time", micros, np.zeros(len(items), dtype=bool))
        columns.update(tables.test_columns([item.test for item in items]))
        return _pandas.frame_from_columns(columns)

    def to_arrow(self) -> Any:  # pyarrow.Table
        """One row per (window, test): ``window_start`` and ``window_end`` (timestamp[us, UTC]), then the columns
        of ``iter_failing_tests(...).to_arrow()``, filled by the same C++ code."""
        (pa,) = _arrow.require("table")  # before fetching: without pyarrow nothing is requested
        items = self.to_list()
        table = tables.listing_arrow(TestCase, [item.test for item in items], "table")
        timestamp = pa.timestamp("us", tz="UTC")
        for position, name in enumerate(("window_start", "window_end")):
            micros = pa.array([_micros(getattr(item, name)) for item in items], type=pa.int64())
            table = table.add_column(position, name, micros.cast(timestamp))
        return table

    def to_polars(self) -> Any:  # polars.DataFrame
        """One row per (window, test), the columns of ``to_arrow()`` as a polars.DataFrame; needs polars only
        (the tests' columns come from the C++ core through the Arrow PyCapsule interface, as the listings'
        ``to_polars()``)."""
        (pl,) = _arrow.require("polars")  # before fetching: without polars nothing is requested
        items = self.to_list()
        frame = tables.listing_arrow(TestCase, [item.test for item in items], "polars")
        for position, name in enumerate(("window_start", "window_end")):
            micros = pl.Series(name, [_micros(getattr(item, name)) for item in items], dtype=pl.Int64)
            frame = frame.insert_column(position, micros.cast(pl.Datetime("us", "UTC")))
        return frame


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _micros(time: datetime) -> int:
    return (time - _EPOCH) // timedelta(microseconds=1)
