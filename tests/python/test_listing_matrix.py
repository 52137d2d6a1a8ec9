"""Every listing reads alike whichever way it is read: sync or async, v1 or v2. Each case runs over the matrix
(version x mode) against one sandbox: a v1 listing (failing tests, page tokens) and a v2 listing (merge queues,
cursors), 30 items or more in pages of 10. Both modes wrap the core's one listing cursor (trunk/pager.hpp), which
owns max_results, the rest of a half-read page and the counts; these cases would catch a wrapper that kept state
of its own."""

from __future__ import annotations

import asyncio
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qs

import pytest

import trunk_api

from conftest import NOW, WEEK_START

PAGE = 10
QUEUES = 30
REPOSITORY_ID: list[str] = []  # the repository whose queues the v2 listing reads (made by the sandbox fixture)


@pytest.fixture(scope="module")
def sandbox() -> Iterator[trunk_api.Sandbox]:
    with trunk_api.Sandbox(seed=7, tests=600, now=NOW) as box:
        client = box.client()
        REPOSITORY_ID.append(next(iter(client.v2.merge_queues.list())).repository_id)
        for number in range(QUEUES):
            client.v2.merge_queues.create(REPOSITORY_ID[0], f"matrix-{number:02d}")
        yield box


class Version:
    """How to make the listing of one version, and read back the page sizes its requests asked for."""

    def __init__(self, name: str) -> None:
        self.name = name

    def make(self, box: trunk_api.Sandbox, client: Any, **keywords: Any) -> Any:
        if self.name == "v1":
            return client.iter_failing_tests(box.repos[0], box.org_url_slug, WEEK_START, NOW, page_size=PAGE,
                                             **keywords)
        return client.v2.merge_queues.list(repository_id=REPOSITORY_ID[0], limit=PAGE, **keywords)

    def asked(self, box: trunk_api.Sandbox) -> list[int]:
        """The page size each listing request asked for, in order."""
        if self.name == "v1":
            return [r.body["page_query"]["page_size"] for r in box.requests if r.path.endswith("/list-failing-tests")]
        return [int(parse_qs(r.query)["limit"][0]) for r in box.requests
                if r.path == "/v2/merge-queues" and r.method == "GET"]


VERSIONS = {"v1": Version("v1"), "v2": Version("v2")}


class Reader:
    """One listing read sync or async through the same few verbs; async ones run on one event loop, so a listing
    made in one step is read on in the next."""

    def __init__(self, mode: str, box: trunk_api.Sandbox) -> None:
        self.mode = mode
        if mode == "sync":
            self.client: Any = box.client()
        else:
            self.runner = asyncio.Runner()
            self.client = box.async_client()

    def close(self) -> None:
        if self.mode == "async":
            self.runner.run(self.client.aclose())
            self.runner.close()

    def run(self, sync: Callable[[], Any], coroutine: Callable[[], Any]) -> Any:
        return sync() if self.mode == "sync" else self.runner.run(coroutine())

    def take(self, listing: Any, count: int) -> list[Any]:
        async def take_async() -> list[Any]:
            return [await anext(listing) for _ in range(count)]
        return self.run(lambda: [next(listing) for _ in range(count)], take_async)

    def rest(self, listing: Any) -> list[Any]:
        async def rest_async() -> list[Any]:
            return [item async for item in listing]
        return self.run(lambda: list(listing), rest_async)

    def pages(self, listing: Any) -> list[Any]:
        async def pages_async() -> list[Any]:
            return [page async for page in listing.pages]
        return self.run(lambda: list(listing.pages), pages_async)

    def to_list(self, listing: Any) -> list[Any]:
        return self.run(listing.to_list, listing.to_list)

    def to_arrow(self, listing: Any) -> Any:
        return self.run(listing.to_arrow, listing.to_arrow)


@pytest.fixture(params=["sync", "async"])
def reader(request: pytest.FixtureRequest, sandbox: trunk_api.Sandbox) -> Iterator[Reader]:
    made = Reader(request.param, sandbox)
    yield made
    made.close()


@pytest.fixture(params=list(VERSIONS))
def version(request: pytest.FixtureRequest) -> Version:
    return VERSIONS[request.param]


@pytest.fixture
def box(sandbox: trunk_api.Sandbox) -> trunk_api.Sandbox:
    sandbox.clear_requests()
    return sandbox


def ids(items: list[Any]) -> list[str]:
    return [item.id for item in items]


def items_of(page: Any) -> list[Any]:
    return page.tests if hasattr(page, "tests") else page.data


@pytest.fixture
def everything(box: trunk_api.Sandbox, version: Version) -> list[str]:
    found = ids(version.make(box, box.client()).to_list())
    assert len(found) >= 30
    box.clear_requests()
    return found


def test_pages_are_cut_at_max_results_and_the_last_asks_for_what_is_left(box, version, reader, everything) -> None:
    pages = reader.pages(version.make(box, reader.client, max_results=25))
    assert [len(items_of(page)) for page in pages] == [10, 10, 5]
    assert [item.id for page in pages for item in items_of(page)] == everything[:25]
    # v2's cursors are bound to the listing's filter, so its last page asks for the 5 still wanted; v1's page
    # tokens are issued for one page size, so only a first page may ask for fewer.
    assert version.asked(box) == ([10, 10, 10] if version.name == "v1" else [10, 10, 5])


def test_a_first_page_asks_for_no_more_than_max_results(box, version, reader, everything) -> None:
    assert ids(reader.to_list(version.make(box, reader.client, max_results=4))) == everything[:4]
    assert version.asked(box) == [4]


def test_pages_after_some_items_start_with_the_rest_of_the_page(box, version, reader, everything) -> None:
    listing = version.make(box, reader.client, max_results=25)
    head = reader.take(listing, 3)
    pages = reader.pages(listing)
    assert [len(items_of(page)) for page in pages] == [7, 10, 5]
    assert ids(head) + [item.id for page in pages for item in items_of(page)] == everything[:25]
    assert reader.rest(listing) == [] and reader.to_list(listing) == []


def test_each_reader_continues_where_the_last_stopped(box, version, reader, everything) -> None:
    listing = version.make(box, reader.client, max_results=27)
    head = reader.take(listing, 12)
    rest = reader.to_list(listing)
    assert ids(head + rest) == everything[:27]
    assert reader.pages(listing) == []


def test_to_arrow_after_some_items_holds_the_rest(box, version, reader, everything) -> None:
    pytest.importorskip("pyarrow")
    listing = version.make(box, reader.client, max_results=23)
    head = reader.take(listing, 4)
    table = reader.to_arrow(listing)
    assert ids(head) + table.column("id").to_pylist() == everything[:23]
    assert reader.rest(listing) == []


def test_counts_say_what_was_fetched_and_given(box, version, reader, everything) -> None:
    listing = version.make(box, reader.client, max_results=15)
    assert listing._fetched == (0, 0, 0, None)
    reader.take(listing, 12)
    pages, items, given, total = listing._fetched
    # v2's second page asked for the 5 still wanted; v1's brought a whole page.
    assert (pages, items, given) == (2, 20 if version.name == "v1" else 15, 12)
    # v1 says its total on every page; v2 only when include_total is asked for.
    assert total == (len(everything) if version.name == "v1" else None)
    reader.rest(listing)
    assert listing._fetched[:3] == (2, 20 if version.name == "v1" else 15, 15)


class FakeBar:
    made: list[FakeBar] = []

    def __init__(self, *, desc: str, unit: str, total: int | None, leave: bool) -> None:
        self.total, self.n, self.closed = total, 0, False
        FakeBar.made.append(self)

    def update(self, count: int) -> None:
        self.n += count

    def refresh(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def test_a_progress_bar_counts_what_is_handed_out(box, version, reader, everything, monkeypatch) -> None:
    module = types.ModuleType("tqdm.auto")
    module.tqdm = FakeBar  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tqdm.auto", module)
    FakeBar.made = []
    assert len(reader.to_list(version.make(box, reader.client, max_results=25, progress=True))) == 25
    [bar] = FakeBar.made
    assert (bar.total, bar.n, bar.closed) == (25, 25, True)


def test_max_results_is_checked_once_with_the_same_error(box, version, reader) -> None:
    for bad in (-1, 1.5, "3", 2**80):
        with pytest.raises(trunk_api.ValidationError) as caught:
            version.make(box, reader.client, max_results=bad)
        assert [violation.field for violation in caught.value.errors] == ["max_results"]
    assert box.requests == []
