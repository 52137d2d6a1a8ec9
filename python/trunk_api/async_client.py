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
from typing import Any

from trunk_api import _core
from trunk_api.client import _DEFAULTS, Client
from trunk_api.errors import TrunkError

__all__ = ["AsyncClient"]

_logger = logging.getLogger("trunk_api")

#: The Client methods that are one request each: their coroutines are derived from the operation rows.
_OPERATIONS: tuple[str, ...] = tuple(
    name for name in dir(_core.AsyncClient) if not name.startswith("_") and name not in ("close", "base_url")
)


def _answer_of(name: str, answer: Any) -> Any:
    # The sync facade returns the test case itself, not its envelope.
    return answer.test if name == "get_test_details" else answer


class AsyncClient:
    """A client of the Trunk v1 API for asyncio programs: every operation of :class:`Client` as a coroutine.

    Takes the options of :class:`Client` (``token``, ``base_url``, ``timeout``, ``max_retries``, ...), plus
    ``max_in_flight`` (default 64): how many requests are on the network at once; more calls wait in the
    engine's queue. Many coroutines may share one AsyncClient. Use ``async with`` or ``await client.aclose()``
    to stop its engine thread (pending calls are cancelled). Works with any asyncio loop (uvloop included).
    """

    def __init__(
        self,
        token: str | None = None,
        base_url: str | None = None,
        *,
        timeout: float = _DEFAULTS["timeout"],
        max_retries: int = _DEFAULTS["max_retries"],
        user_agent: str | None = None,
        connect_timeout: float = _DEFAULTS["connect_timeout"],
        overall_deadline: float = _DEFAULTS["overall_deadline"],
        verify_tls: bool = _DEFAULTS["verify_tls"],
        ca_bundle: str | None = None,
        allow_insecure_http: bool = _DEFAULTS["allow_insecure_http"],
        max_requests_per_second: float = _DEFAULTS["max_requests_per_second"],
        prefetch_pages: bool = _DEFAULTS["prefetch_pages"],
        max_in_flight: int = 64,
    ) -> None:
        self._core = _core.AsyncClient(
            token=token,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            user_agent=user_agent,
            connect_timeout=connect_timeout,
            overall_deadline=overall_deadline,
            verify_tls=verify_tls,
            ca_bundle=ca_bundle,
            allow_insecure_http=allow_insecure_http,
            max_requests_per_second=max_requests_per_second,
            log=_logger.log,
            max_in_flight=max_in_flight,
        )
        self._closed = False
        # Everything needed to rebuild this client, except the token (which is never stored in Python).
        self._settings: dict[str, Any] = {
            "base_url": self._core.base_url,
            "timeout": timeout,
            "max_retries": max_retries,
            "user_agent": user_agent,
            "connect_timeout": connect_timeout,
            "overall_deadline": overall_deadline,
            "verify_tls": verify_tls,
            "ca_bundle": ca_bundle,
            "allow_insecure_http": allow_insecure_http,
            "max_requests_per_second": max_requests_per_second,
            "prefetch_pages": prefetch_pages,
            "max_in_flight": max_in_flight,
        }

    @property
    def base_url(self) -> str:
        """The base address in use, without a trailing ``/``."""
        return self._core.base_url

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


def _coroutine(name: str) -> Any:
    sync = getattr(Client, name)
    signature = inspect.signature(sync)

    @functools.wraps(sync)
    async def call(self: AsyncClient, *args: Any, **kwargs: Any) -> Any:
        # Converted and validated now, on this thread (errors raised as by the sync client); then awaited.
        signature.bind(self, *args, **kwargs)  # a wrong call is the same TypeError as the sync method's
        future = self._submit(name, args, kwargs)
        return _answer_of(name, await future)

    call.__signature__ = signature  # type: ignore[attr-defined]
    call.__qualname__ = f"AsyncClient.{name}"  # wraps() copied Client's, which would name the wrong class
    call.__doc__ = f"The coroutine of :meth:`Client.{name}`. " + (sync.__doc__ or "")
    return call


for _name in _OPERATIONS:
    setattr(AsyncClient, _name, _coroutine(_name))
del _name


def _restore_async_client(settings: dict[str, Any]) -> AsyncClient:
    try:
        return AsyncClient(None, **settings)
    except TrunkError as error:
        raise TrunkError(
            "an unpickled trunk_api.AsyncClient needs its token again (it is never pickled): set TRUNK_API_TOKEN "
            f"or TRUNK_API_KEY in this process ({error})"
        ) from None
