"""Notebook display: every answer model, page, queue settings and listing iterator has ``_repr_html_``, checked
through IPython's own display formatter (what Jupyter calls); values are escaped, long lists cut, absent fields
counted, the text ``repr`` unchanged, and displaying an iterator sends nothing."""

from __future__ import annotations

import html
import re

import pytest

import trunk_api
import trunk_api.async_client
from trunk_api import _core, _display

from conftest import NOW, WEEK_START

from IPython.core.interactiveshell import InteractiveShell  # IPython comes with ipykernel, in the test extra


@pytest.fixture(scope="module")
def formatter():
    return InteractiveShell.instance().display_formatter


def shown(formatter, obj) -> tuple[str, str]:
    data, _ = formatter.format(obj)
    return data["text/plain"], data["text/html"]


def test_every_answer_model_and_iterator_has_html() -> None:
    # module.cpp binds the API's answers in _core.models and the webhook events in _core.webhooks.
    bound = {name: getattr(module, name) for module in (_core.models, _core.webhooks) for name in dir(module)}
    answers = [model["name"] for model in _core.declarations.schema()["models"]
               if model["answer"] and model["name"] in bound]
    assert {"TestCase", "TestPage", "QueueSettings", "PullRequestPage", "MergeQueueMetrics",
            "PullRequestEvent"} <= set(answers)
    for name in answers:
        assert callable(getattr(bound[name], "_repr_html_", None)), name
    for iterator in (trunk_api.TestIterator, trunk_api.QuarantinedTestIterator, trunk_api.PullRequestIterator,
                     trunk_api.async_client.AsyncListing):
        assert callable(getattr(iterator, "_repr_html_", None)), iterator


def test_a_test_case_is_a_table_of_its_present_fields_escaped(formatter) -> None:
    test = trunk_api.TestCase.from_dict({
        "id": "6f1c0c5e-8c1e-4a35-b8a9-3b8c3a0e9b11",
        "name": "<script>alert('x')</script> & co",
        "codeowners": [f"@team-{i}" for i in range(20)],
        "status": {"value": "flaky", "reason": "a <b>reason</b>"},
        "most_common_failures": [{"summary": f"AssertionError {i} <x>", "occurrence_count": i} for i in range(12)],
        "future_field": "<i>kept</i>",
    })
    text, markup = shown(formatter, test)
    assert text == repr(test)  # the exact text repr is untouched
    assert "<script>" not in markup and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; co" in markup
    assert "a &lt;b&gt;reason&lt;/b&gt;" in markup and "<b>reason" not in markup
    assert "<strong>TestCase</strong>" in markup and "<th>name</th>" in markup
    # 20 code owners: the first 8, then how many more.
    assert "@team-7" in markup and "@team-8<" not in markup and "and 12 more" in markup
    # 12 failures: a table of the first 10 rows, then how many more.
    assert "AssertionError 9 &lt;x&gt;" in markup and "AssertionError 10" not in markup
    assert "and 2 more rows" in markup
    # Absent fields are counted, not shown; unknown keys the server sent are.
    assert "<th>variant</th>" not in markup
    absent = sum(1 for name in type(test).__match_args__ if getattr(test, name) is None)
    assert f"and {absent} more absent fields (None)" in markup
    assert "future_field" in markup and "&lt;i&gt;kept&lt;/i&gt;" in markup
    assert len(markup) < 8000  # compact


def test_a_long_text_is_cut() -> None:
    test = trunk_api.TestCase.from_dict({"name": "x" * 5000})
    markup = _display.html_of(test)
    assert "x" * _display.MAX_TEXT + "…" in markup and "x" * (_display.MAX_TEXT + 1) not in markup


def test_pages_and_settings_from_the_sandbox(formatter, box: trunk_api.Sandbox, repo: trunk_api.Repo) -> None:
    client = box.client()
    page = client.list_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=25)
    text, markup = shown(formatter, page)
    assert text == repr(page)
    rows = re.findall(r"<tr><td>", markup)
    assert len(rows) == _display.MAX_ROWS  # the first 10 tests, one row each
    assert "and 15 more rows" in markup
    assert html.escape(page.tests[0].name) in markup and html.escape(page.tests[10].name) not in markup
    assert f"<th>total_rows</th><td>{page.page.total_rows}</td>" in markup
    settings = client.get_queue(repo, "main")
    _, markup = shown(formatter, settings)
    assert "<strong>QueueSettings</strong>" in markup and f"<td>{settings.state.value}</td>" in markup


def test_displaying_an_iterator_sends_nothing_and_shows_its_query(formatter, box: trunk_api.Sandbox,
                                                                 repo: trunk_api.Repo) -> None:
    client = box.client()
    iterator = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, max_results=3)
    box.clear_requests()
    text, markup = shown(formatter, iterator)
    assert box.requests == []
    assert text == repr(iterator)
    assert "iter_failing_tests(" in markup and "max_results=3" in markup and "not started" in markup
    assert "nothing fetched yet" in markup
    assert len(iterator.to_list()) == 3
    assert "started" in shown(formatter, iterator)[1]


def test_an_iterator_shows_what_it_has_fetched(formatter, box: trunk_api.Sandbox, repo: trunk_api.Repo) -> None:
    client = box.client(prefetch_pages=False)  # no page on its way while the requests are counted
    total = client.list_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=1).page.total_rows
    assert total is not None and total > 30
    iterator = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=10)
    for _ in range(15):  # the second page is fetched at the 11th item
        next(iterator)
    box.clear_requests()
    markup = shown(formatter, iterator)[1]
    assert box.requests == []  # read from the counters, not fetched
    assert f"fetched 2 pages, 20 items of {total:,}; 15 given out" in markup
    everything = 15 + sum(1 for _ in iter(lambda: next(iterator, None), None))
    pages = -(-total // 10)
    assert f"fetched {pages:,} pages, {total:,} items of {total:,}; {everything:,} given out" in \
        shown(formatter, iterator)[1]
    assert everything == total


@pytest.mark.asyncio
async def test_an_async_listing_displays_without_fetching(formatter, box: trunk_api.Sandbox,
                                                          repo: trunk_api.Repo) -> None:
    async with box.async_client() as client:
        listing = client.iter_unhealthy_tests(repo, box.org_url_slug, "FLAKY")
        box.clear_requests()
        _, markup = shown(formatter, listing)
        assert box.requests == [] and "&lt;AsyncListing iter_unhealthy_tests, not started&gt;" in markup
        assert "nothing fetched yet" in markup
        listing = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=10, max_results=25)
        given = [test async for test in listing]
        assert len(given) == 25
        _, markup = shown(formatter, listing)
        total = (await client.list_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=1)).page.total_rows
        assert f"fetched 3 pages, 30 items of {total:,}; 25 given out" in markup
