# The hand-written part of trunk_api/async_client.pyi: the classes' own members. scripts/generate-stubs fills the
# marked places with a coroutine per Client operation and an async listing per Client iterator, from Client's
# signatures, and writes the file.
from collections.abc import AsyncIterator
from typing import Any, Generic, TypeVar

# @imports

__all__ = ["AsyncClient", "AsyncListing"]

_Item = TypeVar("_Item")
_Page = TypeVar("_Page")

class AsyncListing(Generic[_Item, _Page]):
    # Made by AsyncClient.iter_*, never directly.
    def __init__(self, client: AsyncClient, name: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                 max_results: int | None, progress: bool | str = False) -> None: ...
    def __aiter__(self) -> AsyncListing[_Item, _Page]: ...
    async def __anext__(self) -> _Item: ...
    async def aclose(self) -> None: ...
    @property
    def pages(self) -> AsyncIterator[_Page]: ...
    async def to_list(self) -> list[_Item]: ...
    async def to_pandas(self, *, dtype_backend: str | None = None) -> Any: ...
    async def to_arrow(self) -> Any: ...
    async def to_polars(self) -> Any: ...

class AsyncClient:
    def __init__(
        self,
        token: str | None = None,
        base_url: str | None = None,
        *,
        timeout: float = ...,
        max_retries: int = ...,
        user_agent: str | None = None,
        connect_timeout: float = ...,
        overall_deadline: float = ...,
        verify_tls: bool = ...,
        ca_bundle: str | None = None,
        allow_insecure_http: bool = ...,
        max_requests_per_second: float = ...,
        prefetch_pages: bool = ...,
        max_in_flight: int = 64,
    ) -> None: ...
    @property
    def base_url(self) -> str: ...
    def __reduce__(self) -> tuple[Any, ...]: ...
    async def __aenter__(self) -> AsyncClient: ...
    async def __aexit__(self, *exc_info: object) -> None: ...
    async def aclose(self) -> None: ...
    # @coroutines: scripts/generate-stubs puts Client's operations here, as coroutines, and iter_ listings
