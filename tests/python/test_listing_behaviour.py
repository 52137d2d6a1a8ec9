"""One behaviour for every listing, sync and async alike: both walk the core's page pipeline, and each case below
runs against both. Pages come from a local scripted server keyed by page token (127.0.0.1, port 0)."""

from __future__ import annotations

import asyncio
import gc
import json
import signal
import threading
import time
from typing import Any

import pytest

import trunk_api
from scripted_server import Received, Reply, ScriptedServer

REPO = trunk_api.Repo("github.com", "acme", "api")
START, END = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"
#: A page token that must never reach an error message (opaque; a hostile server could send anything).
REPEATED = "tok-9f3a-never-quoted"


def page(ids: list[str], token: str = "") -> dict[str, Any]:
    return {"tests": [{"id": i, "name": i} for i in ids], "page": {"next_page_token": token, "total_rows": 5}}


def token_of(request: Received) -> str:
    return json.loads(request.body)["page_query"].get("page_token", "")


class Pages:
    """A responder serving pages by token; an unknown token is a 404; `hang` holds the answer to a token until
    released (or 5 s)."""

    def __init__(self, pages: dict[str, dict[str, Any]], hang: str | None = None) -> None:
        self.pages = pages
        self.hang = hang
        self.release = threading.Event()

    def __call__(self, request: Received) -> Reply:
        token = token_of(request)
        if token == self.hang:
            self.release.wait(5)
        if token not in self.pages:
            return Reply(404, "no such page")
        return Reply(200, self.pages[token])


THREE = {"": page(["a", "b"], "p2"), "p2": page(["c", "d"], "p3"), "p3": page(["e"])}


def sync_walk(url: str, max_results: int | None, take: int | None = None) -> list[str]:
    client = trunk_api.Client("t", url, max_retries=0)
    listing = client.iter_failing_tests(REPO, "acme", START, END, max_results=max_results)
    seen: list[str] = []
    for test in listing:
        seen.append(test.id)
        if take is not None and len(seen) == take:
            break
    return seen


def async_walk(url: str, max_results: int | None, take: int | None = None) -> list[str]:
    async def run() -> list[str]:
        async with trunk_api.AsyncClient("t", url, max_retries=0) as client:
            listing = client.iter_failing_tests(REPO, "acme", START, END, max_results=max_results)
            seen: list[str] = []
            async for test in listing:
                seen.append(test.id)
                if take is not None and len(seen) == take:
                    break
            await listing.aclose()
            return seen

    return asyncio.run(run())


WALKS = {"sync": sync_walk, "async": async_walk}


def settled(server: ScriptedServer) -> list[str]:
    """The tokens requested, once nothing more comes (a page requested ahead would show up here)."""
    time.sleep(0.15)
    return [token_of(r) for r in server.received]


@pytest.mark.parametrize("mode", WALKS)
def test_every_item_in_order_each_page_once(mode: str) -> None:
    with ScriptedServer(responder=Pages(THREE)) as server:
        assert WALKS[mode](server.url, None) == ["a", "b", "c", "d", "e"]
        assert settled(server) == ["", "p2", "p3"]


@pytest.mark.parametrize("mode", WALKS)
def test_a_repeated_token_is_a_pagination_error_that_never_quotes_it(mode: str) -> None:
    pages = {"": page(["a"], REPEATED), REPEATED: page(["b"], REPEATED)}
    seen: list[str] = []
    with ScriptedServer(responder=Pages(pages)) as server:
        with pytest.raises(trunk_api.PaginationError) as raised:
            if mode == "sync":
                for test in trunk_api.Client("t", server.url).iter_failing_tests(REPO, "acme", START, END):
                    seen.append(test.id)
            else:
                async def run() -> None:
                    async with trunk_api.AsyncClient("t", server.url) as client:
                        async for test in client.iter_failing_tests(REPO, "acme", START, END):
                            seen.append(test.id)
                asyncio.run(run())
        assert REPEATED not in str(raised.value)
        assert seen == ["a"]  # the page that repeats the token is the error, not an item
        assert settled(server) == ["", REPEATED]  # never requested twice


@pytest.mark.parametrize("mode", WALKS)
def test_an_empty_page_in_the_middle_does_not_end_the_listing(mode: str) -> None:
    pages = {"": page(["a"], "p2"), "p2": page([], "p3"), "p3": page(["c"])}
    with ScriptedServer(responder=Pages(pages)) as server:
        assert WALKS[mode](server.url, None) == ["a", "c"]


@pytest.mark.parametrize("mode", WALKS)
def test_an_error_on_page_k_comes_after_the_items_before_it_and_ends_the_listing(mode: str) -> None:
    pages = {"": page(["a", "b"], "p2"), "p2": page(["c"], "missing")}
    with ScriptedServer(responder=Pages(pages)) as server:
        seen: list[str] = []
        if mode == "sync":
            listing = trunk_api.Client("t", server.url, max_retries=0).iter_failing_tests(REPO, "acme", START, END)
            with pytest.raises(trunk_api.NotFoundError):
                for test in listing:
                    seen.append(test.id)
            assert list(listing) == []  # ended, as a generator that raised
        else:
            async def run() -> None:
                async with trunk_api.AsyncClient("t", server.url, max_retries=0) as client:
                    listing = client.iter_failing_tests(REPO, "acme", START, END)
                    with pytest.raises(trunk_api.NotFoundError):
                        async for test in listing:
                            seen.append(test.id)
                    assert [t async for t in listing] == []
            asyncio.run(run())
        assert seen == ["a", "b", "c"]
        assert settled(server) == ["", "p2", "missing"]


@pytest.mark.parametrize("mode", WALKS)
@pytest.mark.parametrize(("max_results", "tokens"), [
    (0, []), (1, [""]), (2, [""]), (3, ["", "p2"]), (4, ["", "p2"]), (5, ["", "p2", "p3"]), (6, ["", "p2", "p3"]),
])
def test_max_results_at_page_boundaries_requests_no_page_past_it(mode: str, max_results: int,
                                                                  tokens: list[str]) -> None:
    with ScriptedServer(responder=Pages(THREE)) as server:
        assert WALKS[mode](server.url, max_results) == ["a", "b", "c", "d", "e"][:max_results]
        assert settled(server) == tokens


def wait_for(server: ScriptedServer, count: int) -> None:
    deadline = time.monotonic() + 5
    while len(server.received) < count and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(server.received) >= count


@pytest.mark.parametrize("mode", WALKS)
def test_dropping_the_iterator_cancels_the_page_on_its_way(mode: str) -> None:
    responder = Pages(THREE, hang="p2")
    with ScriptedServer(responder=responder) as server:
        started = time.monotonic()
        if mode == "sync":
            client = trunk_api.Client("t", server.url)
            listing = client.iter_failing_tests(REPO, "acme", START, END)
            assert next(listing).id == "a"
            wait_for(server, 2)  # page 2 was requested ahead (and hangs)
            del listing
            gc.collect()
            # The client is free at once: another listing is answered while page 2 still hangs.
            assert [t.id for t in client.iter_failing_tests(REPO, "acme", START, END, max_results=1)] == ["a"]
        else:
            async def run() -> None:
                async with trunk_api.AsyncClient("t", server.url) as client:
                    listing = client.iter_failing_tests(REPO, "acme", START, END)
                    assert (await anext(listing)).id == "a"
                    await asyncio.to_thread(wait_for, server, 2)
                    await listing.aclose()
                    del listing
                    gc.collect()
                    assert [t.id async for t in client.iter_failing_tests(REPO, "acme", START, END,
                                                                          max_results=1)] == ["a"]
            asyncio.run(run())
        assert time.monotonic() - started < 4  # the hanging page was not waited out
        assert settled(server) == ["", "p2", ""]
        responder.release.set()


def test_cancelling_an_async_listing_mid_way_cancels_its_request() -> None:
    responder = Pages(THREE, hang="p2")
    with ScriptedServer(responder=responder) as server:
        async def run() -> list[str]:
            async with trunk_api.AsyncClient("t", server.url) as client:
                listing = client.iter_failing_tests(REPO, "acme", START, END)
                seen = [(await anext(listing)).id, (await anext(listing)).id]
                waiting = asyncio.ensure_future(anext(listing))
                await asyncio.sleep(0.2)
                waiting.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await waiting
                return seen

        started = time.monotonic()
        assert asyncio.run(run()) == ["a", "b"]
        assert time.monotonic() - started < 4
        responder.release.set()


def test_ctrl_c_mid_way_through_a_sync_listing(sigint_as_in_a_terminal: None) -> None:
    responder = Pages(THREE, hang="p2")
    with ScriptedServer(responder=responder) as server:
        listing = trunk_api.Client("t", server.url).iter_failing_tests(REPO, "acme", START, END)
        seen = [next(listing).id, next(listing).id]
        timer = threading.Timer(0.2, signal.raise_signal, (signal.SIGINT,))
        timer.start()
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            next(listing)
        assert time.monotonic() - started < 4
        assert seen == ["a", "b"]
        responder.release.set()
        # The walk stays where it was: asked again, page 2 is requested again and the listing goes on.
        assert [t.id for t in listing] == ["c", "d", "e"]



@pytest.mark.parametrize("mode", WALKS)
@pytest.mark.parametrize(("max_results", "tokens"), [(None, ["", "p2", "p3"]), (3, ["", "p2"]), (4, ["", "p2"])])
def test_to_arrow_takes_every_page_into_the_columns_and_consumes_the_listing(mode: str, max_results: int | None,
                                                                            tokens: list[str]) -> None:
    pytest.importorskip("pyarrow")
    with ScriptedServer(responder=Pages(THREE)) as server:
        if mode == "sync":
            listing = trunk_api.Client("t", server.url).iter_failing_tests(REPO, "acme", START, END,
                                                                           max_results=max_results)
            table = listing.to_arrow()
            rest = list(listing)
        else:
            async def run() -> tuple[Any, list[Any]]:
                async with trunk_api.AsyncClient("t", server.url) as client:
                    listing = client.iter_failing_tests(REPO, "acme", START, END, max_results=max_results)
                    return await listing.to_arrow(), [t async for t in listing]
            table, rest = asyncio.run(run())
        assert table.column("id").to_pylist() == ["a", "b", "c", "d", "e"][:max_results]
        assert rest == []
        assert settled(server) == tokens
