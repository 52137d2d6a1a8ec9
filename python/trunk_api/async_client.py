"""The asyncio twin of :class:`trunk_api.Client`: every operation as a coroutine, on the same C++ engine.

Each call converts and validates its arguments at once (a ValidationError or TypeError is raised before
anything is sent, exactly as by :class:`Client`), then queues the request for the client's engine thread: one
libcurl multi loop per AsyncClient, with the same retries, backoff, ``Retry-After``, overall deadline,
client-side rate limit and connection reuse as the sync client, and no thread per request. The engine thread
decodes the answer and completes the call's future with ``loop.call_soon_threadsafe``; the event loop only
resumes the coroutine. ``task.cancel()`` cancels the transfer in flight at once and leaves the client usable.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import inspect
import logging
from collections.abc import AsyncIterator
from typing import Any

from trunk_api import _arrow, _core, _display, _pandas, _progress
from trunk_api.client import SECRET_OPTIONS, Client, _bulk_answer
from trunk_api.v2 import V2
from trunk_api.errors import TrunkError, ValidationError, Violation

__all__ = ["AsyncClient", "AsyncListing"]

_logger = logging.getLogger("trunk_api")

#: Client's constructor: the options AsyncClient takes besides max_in_flight.
_CLIENT_OPTIONS = inspect.signature(Client.__init__)

#: The Client methods that are one request each: their coroutines are derived from the operation rows.
_OPERATIONS: tuple[str, ...] = tuple(
    name for name in dir(_core.AsyncClient) if not name.startswith("_") and name not in ("close", "base_url", "validate")
)


def _answer_of(name: str, answer: Any) -> Any:
    # What the sync facade makes of the core's answer: the test case itself, not its envelope; a bulk call's
    # list, or its BulkError.
    if name == "get_test_details":
        return answer.test
    if name == "get_test_details_many":
        return _bulk_answer(answer)
    return answer


class AsyncClient:
    """A client of the Trunk v1 API for asyncio programs: every operation of :class:`Client` as a coroutine.

    Takes the options of :class:`Client` (``token``, ``base_url``, ``timeout``, ``max_retries``, ...), plus
    ``max_in_flight`` (default 64): how many requests are on the network at once; more calls wait in the
    engine's queue. Many coroutines may share one AsyncClient. Use ``async with`` or ``await client.aclose()``
    to stop its engine thread (pending calls are cancelled). Works with any asyncio loop (uvloop included).
    """

    def __init__(self, token: str | None = None, base_url: str | None = None, *, max_in_flight: int = 64,
                 **options: Any) -> None:
        # The options are Client's, by its own signature (an unknown one is the same TypeError): one list of
        # options for both clients, with Client's defaults.
        bound = _CLIENT_OPTIONS.bind(None, token, base_url, **options)
        bound.apply_defaults()
        settings = dict(bound.arguments)
        del settings["self"]
        self._core = _core.AsyncClient(**settings, log=_logger.log, max_in_flight=max_in_flight)
        for name in SECRET_OPTIONS:
            del settings[name]
        self._closed = False
        # Everything needed to rebuild this client, except the token (which is never stored in Python).
        self._settings: dict[str, Any] = {**settings, "base_url": self._core.base_url, "max_in_flight": max_in_flight}

    @property
    def base_url(self) -> str:
        """The base address in use, without a trailing ``/``."""
        return self._core.base_url

    @property
    def v2(self) -> V2:
        """Trunk's v2 API by resource, as coroutines: ``await client.v2.merge_queues.get(id)`` (see Client.v2)."""
        return V2(self)

    def __repr__(self) -> str:
        return f"AsyncClient(base_url={self.base_url!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # The token is deliberately left out: pickles end up in caches, queues and files.
        return (_restore_async_client, (dict(self._settings),))

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Cancels the pending calls and stops the engine thread. The client cannot be used afterwards."""
        self._closed = True
        self._core.close()  # quick: the engine drops its transfers; the GIL is released meanwhile

    def _submit(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if self._closed:
            raise TrunkError(f"{name}: the AsyncClient is closed")
        return getattr(self._core, name)(asyncio.get_running_loop(), *args, **kwargs)


# help() and inspect.signature() show every option of Client (from the core's rows) and max_in_flight.
_own = inspect.signature(AsyncClient.__init__).parameters["max_in_flight"]
AsyncClient.__init__.__signature__ = _CLIENT_OPTIONS.replace(  # type: ignore[attr-defined]
    parameters=[*_CLIENT_OPTIONS.parameters.values(), _own])
del _own


def _keywords_for_defaults(signature: inspect.Signature, args: tuple[Any, ...],
                           kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The core takes a request's optional fields as keywords only (build_request.hpp); a Client method may take
    one positionally with a default (get_merge_queue_metrics(repo=None)): from there on, by keyword."""
    given = list(signature.parameters.values())[1:1 + len(args)]
    split = next((i for i, parameter in enumerate(given) if parameter.default is not parameter.empty), len(args))
    return args[:split], {**{p.name: value for p, value in zip(given[split:], args[split:])}, **kwargs}


def _coroutine(name: str) -> Any:
    sync = getattr(Client, name)
    signature = inspect.signature(sync)

    @functools.wraps(sync)
    async def call(self: AsyncClient, *args: Any, **kwargs: Any) -> Any:
        # Converted and validated now, on this thread (errors raised as by the sync client); then awaited.
        signature.bind(self, *args, **kwargs)  # a wrong call is the same TypeError as the sync method's
        args, kwargs = _keywords_for_defaults(signature, args, kwargs)
        if name == "get_test_details_many":  # its bar is drawn on the loop's thread, as ids end
            kwargs["on_progress"] = _progress.count_reporter(kwargs.pop("progress", "auto"), "test details")
        future = self._submit(name, args, kwargs)
        return _answer_of(name, await future)

    call.__signature__ = signature  # type: ignore[attr-defined]
    call.__qualname__ = f"AsyncClient.{name}"  # wraps() copied Client's, which would name the wrong class
    call.__doc__ = f"The coroutine of :meth:`Client.{name}`. " + (sync.__doc__ or "")
    return call


for _name in _OPERATIONS:
    setattr(AsyncClient, _name, _coroutine(_name))
del _name


# ---- listings -------------------------------------------------------------------------------------------------
#: {list operation: item type}, from the core's PageTraits; each has the async iterator iter_<noun>, as Client has.
_LISTINGS: dict[str, type] = _core.listings()
_ITERATORS: dict[str, str] = _core.iterators()  # iter_failing_tests -> list_failing_tests


class AsyncListing:
    """Every item of every page of a listing, as an async iterator (``async for item in listing``), fetched
    lazily: nothing is requested before the first item is asked for, and while a page is being read the next
    one is already on its way (unless ``prefetch_pages=False``). ``max_results`` stops early without fetching
    further pages. ``.pages`` iterates whole pages; ``await .to_list()`` and ``await .to_pandas()`` collect.
    An async iterator like the sync listings are iterators: each of these continues where the previous one
    stopped (``await anext(listing)`` then ``async for``), and a finished listing yields nothing more. A page
    token the server repeats raises PaginationError."""

    def __init__(self, client: AsyncClient, name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                 max_results: int | None, progress: _progress.ProgressLike = False) -> None:
        if max_results is not None and (isinstance(max_results, bool) or not isinstance(max_results, int)
                                        or max_results < 0):
            raise ValidationError(
                f"{name}(): max_results must be >= 0 or None",
                [Violation("max_results", repr(max_results), "must be >= 0 or None")],
            )
        self._client = client
        self._name = name
        self._operation = _ITERATORS[name]
        self._item_type = _LISTINGS[self._operation]
        self._args = args
        self._kwargs = kwargs
        self._max_results = max_results
        # The core's walk over the pages (made by the first item or page asked for), whether it is over, and the
        # items of the page being read that were not given out yet.
        self._walk: Any = None
        self._started = False
        self._finished = False
        self._unread: collections.deque[Any] = collections.deque()
        self._left = max_results  # items still to give out under max_results; None: no limit
        self._on_page = _progress.page_reporter(progress, name.removeprefix("iter_").replace("_", " "), max_results)
        # (pages fetched, items in them, items given out, total_rows of the first page), for the notebook display.
        self._fetched: tuple[int, int, int, int | None] = (0, 0, 0, None)

    def _core_walk(self) -> Any:
        """The core's walk over this listing's pages, limited to max_results."""
        if self._client._closed:
            raise TrunkError(f"{self._operation}: the AsyncClient is closed")
        walk = getattr(self._client._core, "_pages_" + self._operation)(*self._args, **self._kwargs)
        if self._max_results is not None:
            walk.limit(self._max_results)
        return walk

    async def _next_page(self, whole: bool) -> tuple[Any, int] | None:
        """(the next page, its item count) when `whole` (for .pages), else (its items, their count), the items moved
        out of the page; None after the last. The walk itself - the next page requested ahead, the repeated-token
        check, no page past max_results - is the core's page pipeline, the sync iterators' own. An error or a
        cancel ends the walk, as the exception would end a generator."""
        self._started = True
        if self._finished:
            return None
        if self._max_results == 0:
            self._finished = True
            return None
        try:
            if self._walk is None:
                self._walk = self._core_walk()
            await self._walk.ready(asyncio.get_running_loop())  # the page is in: read it here (GIL released)
            if whole:
                read = self._walk.read()
                facts = None if read is None else _core.page_facts(read)
            else:
                read, facts = self._walk.read_items() or (None, None)
        except BaseException:
            self._finish()
            raise
        if read is None:
            self._finish()
            return None
        count, total, last = facts
        pages, fetched, given, first_total = self._fetched
        self._fetched = (pages + 1, fetched + count, given, total if first_total is None else first_total)
        if self._on_page is not None:
            self._on_page(count, total, last)  # the core's rule, as the sync iterators report it
        return read, count

    def _finish(self) -> None:
        """Ends the walk: a page on its way that nobody will read is dropped."""
        self._finished = True
        if self._walk is not None:
            self._walk.cancel()

    async def _pages(self) -> AsyncIterator[Any]:
        if self._unread:
            # A page object cannot be cut here as the sync iterator cuts it: refuse rather than drop items.
            raise ValueError(f"{self._name}(): .pages after items of a page were taken; take its other items first")
        while self._left is None or self._left > 0:
            read = await self._next_page(whole=True)
            if read is None:
                return
            page, count = read
            self._give(count)
            yield page

    def _give(self, count: int) -> None:
        if self._left is not None:
            self._left -= count
        pages, fetched, given, total = self._fetched
        self._fetched = (pages, fetched, given + count, total)

    @property
    def pages(self) -> AsyncIterator[Any]:
        """Whole pages as the server sent them; max_results stops fetching further ones."""
        return self._pages()

    def __aiter__(self) -> AsyncListing:
        return self

    async def __anext__(self) -> Any:
        while not self._unread:
            if self._left is not None and self._left <= 0:
                raise StopAsyncIteration
            read = await self._next_page(whole=False)
            if read is None:
                raise StopAsyncIteration  # at the end, and again after it
            self._unread.extend(read[0])
        if self._left is not None and self._left <= 0:
            raise StopAsyncIteration
        self._give(1)
        return self._unread.popleft()

    async def aclose(self) -> None:
        """Stops the walk: a page fetched ahead is dropped; what is left yields nothing."""
        self._unread.clear()
        self._finish()

    def __repr__(self) -> str:
        # Never fetches: says which listing it is and whether it has started (as the sync iterators do).
        return f"<AsyncListing {self._name}, {'started' if self._started else 'not started'}>"

    def _repr_html_(self) -> str:
        return _display.html_of(self)

    async def to_list(self) -> list[Any]:
        """Every item, fetched now."""
        # A page at a time: its items come moved out of the page, and the list takes them whole.
        room = len(self._unread) if self._left is None else min(self._left, len(self._unread))
        items = [self._unread.popleft() for _ in range(room)]
        self._give(room)
        while self._left is None or self._left > 0:
            read = await self._next_page(whole=False)
            if read is None:
                break
            page_items: list[Any] = read[0]
            if self._left is not None and len(page_items) > self._left:
                self._unread.extend(page_items[self._left:])  # past max_results: never given out
                del page_items[self._left:]
            self._give(len(page_items))
            items += page_items
        return items

    async def to_pandas(self, *, dtype_backend: str | None = None) -> Any:
        """Every item as a pandas.DataFrame with the columns of the sync iterator's to_pandas(), numpy-backed or,
        with ``dtype_backend="pyarrow"``, Arrow-backed."""
        # Both checked before fetching: a wrong argument or a missing library requests nothing.
        form = _core.pandas_arrow_form(dtype_backend)
        if form is not None:
            return await self._arrow(form)
        _pandas.require_libraries()
        items = await self.to_list()
        return _pandas.frame_from_columns(_core.listing_columns(self._item_type, items))

    async def to_arrow(self) -> Any:
        """Every item as a pyarrow.Table with the columns of the sync iterator's to_arrow(), filled in C++."""
        return await self._arrow("table")

    async def to_polars(self) -> Any:
        """Every item as a polars.DataFrame with the columns of the sync iterator's to_polars()."""
        return await self._arrow("polars")

    async def _arrow(self, form: str) -> Any:
        _arrow.require(form)  # before fetching: without the library nothing is requested
        if self._started or self._on_page is not None:
            # Started already (or reporting progress page by page): from the items, as they come.
            items = await self.to_list()
            return _core.listing_arrow(self._item_type, items, form)
        # Untouched: each page goes into the Arrow columns where it is decoded, as the sync iterators do it; no
        # Python object is made per item. The listing is consumed: iterating it afterwards yields nothing.
        self._started = self._finished = True
        walk = self._walk = self._core_walk()
        loop = asyncio.get_running_loop()
        try:
            while self._left is None or self._left > 0:
                await walk.ready(loop)  # the page is in: read it here, on the loop's thread (GIL released)
                count = walk.read_into_arrow(self._left)
                if count is None:
                    break
                pages, fetched, given, total = self._fetched
                self._fetched = (pages + 1, fetched + count, given, total)
                self._give(count)
        finally:
            walk.cancel()
        return walk.arrow(form)


def _listing(name: str) -> Any:
    sync = getattr(Client, name)
    signature = inspect.signature(sync)

    @functools.wraps(sync)
    def call(self: AsyncClient, *args: Any, **kwargs: Any) -> AsyncListing:
        signature.bind(self, *args, **kwargs)  # a wrong call is the same TypeError as the sync method's
        max_results = kwargs.pop("max_results", None)
        progress = kwargs.pop("progress", "auto")
        listing = AsyncListing(self, name, args, kwargs, max_results, progress)
        _core.AsyncClient.validate(listing._operation, *args, **kwargs)  # bad arguments fail here, as in Client
        return listing

    call.__signature__ = signature.replace(return_annotation="AsyncListing")  # type: ignore[attr-defined]
    call.__qualname__ = f"AsyncClient.{name}"
    call.__doc__ = f"The async iterator of :meth:`Client.{name}` (``async for``, ``.pages``, ``await .to_list()``)."
    return call


for _name in _ITERATORS:
    setattr(AsyncClient, _name, _listing(_name))
del _name


def _restore_async_client(settings: dict[str, Any]) -> AsyncClient:
    try:
        return AsyncClient(None, **settings)
    except TrunkError as error:
        raise TrunkError(
            "an unpickled trunk_api.AsyncClient needs its credentials again (they are never pickled): set TRUNK_API_TOKEN "
            f"or TRUNK_API_KEY in this process ({error})"
        ) from None
