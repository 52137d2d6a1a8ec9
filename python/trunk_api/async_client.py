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
import functools
import inspect
import logging
from collections.abc import AsyncIterator
from typing import Any

from trunk_api import _arrow, _display, _pandas, _progress
from trunk_api._core import client as engines, pager, tables
from trunk_api.client import SECRET_OPTIONS, Client, _bulk_answer
from trunk_api.v2 import V2
from trunk_api.errors import TrunkError

__all__ = ["AsyncClient", "AsyncListing"]

_logger = logging.getLogger("trunk_api")

#: Client's constructor: the options AsyncClient takes besides max_in_flight.
_CLIENT_OPTIONS = inspect.signature(Client.__init__)

#: The Client methods that are one request each: their coroutines are derived from the operation rows.
_OPERATIONS: tuple[str, ...] = tuple(
    name for name in dir(engines.AsyncClient) if not name.startswith("_") and name not in ("close", "base_url")
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
        self._core = engines.AsyncClient(**settings, log=_logger.log, max_in_flight=max_in_flight)
        for name in SECRET_OPTIONS:
            del settings[name]
        self._closed = False
        # Everything needed to rebuild this client, except the token (which is never stored in Python).
        self._settings: dict[str, Any] = {**settings, "base_url": self._core.base_url, "max_in_flight": max_in_flight}

    @property
    def base_url(self) -> str:
        """The base address in use, without a trailing ``/``."""
        return self._core.base_url

    @functools.cached_property
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
_LISTINGS: dict[str, type] = pager.listings()
_ITERATORS: dict[str, str] = pager.iterators()  # iter_failing_tests -> list_failing_tests


class AsyncListing:
    """Every item of every page of a listing, as an async iterator (``async for item in listing``), fetched
    lazily: nothing is requested before the first item is asked for, and while a page is being read the next
    one is already on its way (unless ``prefetch_pages=False``). ``max_results`` stops early without fetching
    further pages. ``.pages`` iterates whole pages; ``await .to_list()``, ``.to_arrow()``, ``.to_polars()`` and
    ``.to_pandas()`` collect. An async iterator like the sync listings are iterators: each of these continues where
    the previous one stopped (``await anext(listing)`` then ``async for``), and a finished listing yields nothing
    more. A page token the server repeats raises PaginationError.

    A thin wrapper: the listing's one cursor is the core's (the sync iterators' own), which owns ``max_results``,
    the rest of a half-read page, the counts and the progress bar, so a listing reads the same sync and async.
    Here only the waiting is done: each read waits, without blocking the loop, until it will not wait for the
    network, then runs on the loop's thread with the GIL released."""

    def __init__(self, client: AsyncClient, name: str, walk: Any) -> None:
        self._client = client
        self._name = name
        self._walk = walk
        self._item_type = _LISTINGS[_ITERATORS[name]]
        self._started = False
        self._closed = False

    async def _ready(self) -> bool:
        """Waits until the next read will not wait; False once the listing was closed."""
        if self._client._closed:
            raise TrunkError(f"{_ITERATORS[self._name]}: the AsyncClient is closed")
        self._started = True
        if self._closed:
            return False
        try:
            await self._walk.ready(asyncio.get_running_loop())
        except BaseException:
            self._walk.cancel()  # the request in flight; the walk stays where it was, as after Ctrl-C in sync
            raise
        return True

    def __aiter__(self) -> AsyncListing:
        return self

    async def __anext__(self) -> Any:
        if (self._walk.unread() == 0 or self._closed) and not await self._ready():
            raise StopAsyncIteration
        item = self._walk.take_item()
        if item is None:
            raise StopAsyncIteration  # at the end, and again after it
        return item

    async def _pages(self) -> AsyncIterator[Any]:
        while await self._ready():
            page = self._walk.next_page()
            if page is None:
                return
            yield page

    @property
    def pages(self) -> AsyncIterator[Any]:
        """The pages as the server sent them (the rest of one whose items were taken first); the page that crosses
        max_results is cut there, and no page past it is fetched."""
        return self._pages()

    async def aclose(self) -> None:
        """Stops the walk: a page fetched ahead is dropped; what is left yields nothing."""
        self._closed = True
        self._walk.cancel()

    @property
    def _fetched(self) -> tuple[int, int, int, int | None]:
        """(pages fetched, items in them, items given out, the listing's total), for the notebook display."""
        return self._walk._fetched  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        # Never fetches: says which listing it is and whether it has started (as the sync iterators do).
        return f"<AsyncListing {self._name}, {'started' if self._started else 'not started'}>"

    def _repr_html_(self) -> str:
        return _display.html_of(self)

    async def to_list(self) -> list[Any]:
        """Every remaining item, fetched now (a page at a time, its items moved out of it)."""
        items: list[Any] = []
        while await self._ready():
            page_items = self._walk.read_items()
            if page_items is None:
                break
            items += page_items
        return items

    async def to_pandas(self, *, dtype_backend: str | None = None) -> Any:
        """Every item as a pandas.DataFrame with the columns of the sync iterator's to_pandas(), numpy-backed or,
        with ``dtype_backend="pyarrow"``, Arrow-backed."""
        # Both checked before fetching: a wrong argument or a missing library requests nothing.
        form = tables.pandas_arrow_form(dtype_backend)
        if form is not None:
            return await self._arrow(form)
        _pandas.require_libraries()
        items = await self.to_list()
        return _pandas.frame_from_columns(tables.listing_columns(self._item_type, items))

    async def to_arrow(self) -> Any:
        """Every item as a pyarrow.Table with the columns of the sync iterator's to_arrow(), filled in C++."""
        return await self._arrow("table")

    async def to_polars(self) -> Any:
        """Every item as a polars.DataFrame with the columns of the sync iterator's to_polars()."""
        return await self._arrow("polars")

    async def _arrow(self, form: str) -> Any:
        _arrow.require(form)  # before fetching: without the library nothing is requested
        # Each page goes into the Arrow columns where it is decoded, as the sync iterators do it; no Python object
        # is made per item.
        while await self._ready():
            if self._walk.read_into_arrow() is None:
                break
        return self._walk.arrow(form)


def _listing(name: str) -> Any:
    sync = getattr(Client, name)
    signature = inspect.signature(sync)
    description = name.removeprefix("iter_").replace("_", " ")

    @functools.wraps(sync)
    def call(self: AsyncClient, *args: Any, **kwargs: Any) -> AsyncListing:
        signature.bind(self, *args, **kwargs)  # a wrong call is the same TypeError as the sync method's
        if self._closed:
            raise TrunkError(f"{_ITERATORS[name]}: the AsyncClient is closed")
        progress = kwargs.pop("progress", "auto")
        kwargs.update(_progress.on_page_keywords(progress, description, kwargs.get("max_results")))
        # The core converts and validates the arguments now (errors raised here, as by Client); nothing is sent.
        return AsyncListing(self, name, getattr(self._core, "_pages_" + _ITERATORS[name])(*args, **kwargs))

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
