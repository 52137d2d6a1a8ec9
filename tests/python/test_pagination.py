"""TestIterator: lazy, an iterator (continues where it is), across pages, .pages, max_results without extra
fetches, to_list."""

from __future__ import annotations

import pytest

import trunk_api
from trunk_api import HealthStatus, Repo, TestCase, TestPage, ValidationError

from conftest import NOW, WEEK_START


def listing_calls(box: trunk_api.Sandbox) -> int:
    return sum(1 for r in box.requests if r.path.startswith("/v1/flaky-tests/list-"))


def all_failing_ids(client: trunk_api.Client, box: trunk_api.Sandbox, repo: Repo) -> list[str]:
    ids: list[str] = []
    token = ""
    while True:
        page = client.list_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=100, page_token=token)
        ids += [t.id or "" for t in page.tests]
        token = page.page.next_page_token or ""
        if not token:
            return ids


def test_iteration_across_pages_yields_every_test_once_in_order(box: trunk_api.Sandbox, client: trunk_api.Client,
                                                                 repo: Repo) -> None:
    expected = all_failing_ids(client, box, repo)
    assert len(expected) > 30
    box.clear_requests()
    iterator = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=7)
    assert listing_calls(box) == 0  # lazy: nothing fetched yet
    got = [test.id for test in iterator]
    assert got == expected
    assert listing_calls(box) == -(-len(expected) // 7)  # ceil: one request per page
    tokens = [r.body["page_query"].get("page_token") for r in box.requests]
    assert tokens[0] is None and all(tokens[1:]) and len(set(tokens[1:])) == len(tokens) - 1


def test_a_finished_listing_yields_nothing_more(box: trunk_api.Sandbox, client: trunk_api.Client,
                                                repo: Repo) -> None:
    iterator = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, max_results=3)
    assert "not started" in repr(iterator) and iter(iterator) is iterator
    assert len(list(iterator)) == 3
    box.clear_requests()
    # As a generator: the second walk is empty, whichever way it is asked for, and fetches nothing.
    assert list(iterator) == [] and list(iterator.pages) == [] and iterator.to_list() == []
    assert len(iterator.to_pandas()) == 0 and next(iterator, None) is None
    assert listing_calls(box) == 0 and ", started" in repr(iterator)


@pytest.mark.parametrize("how", ["for", "to_list", "pages", "to_pandas"])
def test_next_then_the_rest_continues_where_it_is(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo,
                                                  how: str) -> None:
    expected = all_failing_ids(client, box, repo)
    iterator = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=7)
    first, second = next(iterator), next(iterator)  # two of the first page's seven
    if how == "for":
        rest = [test.id for test in iterator]
    elif how == "to_list":
        rest = [test.id for test in iterator.to_list()]
    elif how == "pages":
        pages = list(iterator.pages)
        assert len(pages[0].tests) == 5  # what was left of the first page, then whole pages
        rest = [test.id for page in pages for test in page.tests]
    else:
        rest = list(iterator.to_pandas()["id"])
    assert [first.id, second.id] + rest == expected
    assert list(iterator) == []


def test_next_without_iter(box: trunk_api.Sandbox, repo: Repo) -> None:
    # No read-ahead: this test leaves its listing unfinished, and a page read ahead could reach the sandbox after
    # the next test cleared its request record (the next tests count listing calls).
    iterator = box.client(prefetch_pages=False).iter_unhealthy_tests(repo, box.org_url_slug, "FLAKY", page_size=2)
    first = next(iterator)
    assert isinstance(first, TestCase)
    assert next(iterator).id != first.id


@pytest.mark.parametrize("limit", [0, 1, 5, 10, 11])
def test_max_results_stops_without_extra_pages(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo,
                                               limit: int) -> None:
    tests = client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=5,
                                      max_results=limit).to_list()
    assert len(tests) == limit
    assert listing_calls(box) == -(-limit // 5)


def test_pages(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    expected = all_failing_ids(client, box, repo)
    box.clear_requests()
    pages = list(client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=10).pages)
    assert all(isinstance(page, TestPage) for page in pages)
    assert [page.page.page_index for page in pages] == list(range(len(pages)))
    assert [t.id for page in pages for t in page.tests] == expected
    assert pages[-1].page.next_page_token == ""
    assert pages[0].page.total_rows == len(expected)


def test_pages_with_max_results_cut_the_last_page(box: trunk_api.Sandbox, client: trunk_api.Client,
                                                  repo: Repo) -> None:
    pages = list(client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=4, max_results=10).pages)
    assert [len(page.tests) for page in pages] == [4, 4, 2]
    assert listing_calls(box) == 3


def test_unhealthy_iteration(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    flaky = client.iter_unhealthy_tests(repo, box.org_url_slug, HealthStatus.FLAKY, page_size=3).to_list()
    assert flaky and all(t.status is not None and t.status.value == "flaky" for t in flaky)
    assert len({t.id for t in flaky}) == len(flaky)


def test_empty_listing(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    from datetime import timedelta

    long_ago = NOW - timedelta(days=300)
    assert client.iter_failing_tests(repo, box.org_url_slug, long_ago, long_ago + timedelta(days=1)).to_list() == []


def test_iterator_arguments_are_validated_before_anything_is_sent(box: trunk_api.Sandbox,
                                                                   client: trunk_api.Client, repo: Repo) -> None:
    with pytest.raises(ValidationError) as caught:
        client.iter_failing_tests(repo, box.org_url_slug, NOW, WEEK_START)  # reversed window
    assert caught.value.errors
    for bad in (-1, "3", 2**80, 1.5):
        with pytest.raises(ValidationError) as caught:
            client.iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, max_results=bad)  # type: ignore[arg-type]
        assert caught.value.errors[0].field == "max_results"
    assert box.requests == []


def test_iterator_keeps_its_client_alive(box: trunk_api.Sandbox, repo: Repo) -> None:
    import gc

    iterator = box.client().iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=3, max_results=6)
    gc.collect()  # the Client object is gone; the C++ client must live on inside the iterator
    assert len(iterator.to_list()) == 6
