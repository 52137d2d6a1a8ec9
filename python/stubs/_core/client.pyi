# The hand-written part of trunk_api/_core/client.pyi: the engines behind Client and AsyncClient (bind_client.cpp,
# bind_bulk.cpp, bind_async.cpp). scripts/generate-stubs fills the marked places.

def client_defaults() -> dict[str, Any]: ...
def http_stack() -> dict[str, Any]:
    """What this build speaks HTTP with: libcurl's version, its TLS library, zlib, protocols and features, and
    where a client without ca_bundle takes its CA certificates from (docs/install.md#whats-inside-a-wheel)."""

# @client-option-keywords: scripts/generate-stubs puts the TypedDicts of the keyword options (Client, bulk calls, update_queue) here

class Client:
    def __init__(
        self,
        *,
        # @client-options: scripts/generate-stubs puts every option row (option_rows("client")) here
        log: Callable[[int, str], object] | None = None,
    ) -> None: ...
    @property
    def base_url(self) -> str: ...
    def get_test_details_many(
        self, repo: _RepoLike, org_url_slug: str, test_ids: Iterable[str], *,
        # @bulk-options: scripts/generate-stubs puts every option row (option_rows("bulk")) here
        on_progress: Callable[[int, int], object] | None = None
    ) -> tuple[list[TestCase | None], dict[int, Exception]]: ...
    # @operations: scripts/generate-stubs puts one method per declared operation here (and iter_ for listings)

class AsyncClient:
    def __init__(
        self,
        *,
        # @client-options: scripts/generate-stubs puts every option row (option_rows("client")) here
        log: Callable[[int, str], object] | None = None,
        max_in_flight: int = 64,
    ) -> None: ...
    @property
    def base_url(self) -> str: ...
    def close(self) -> None: ...
    def get_test_details_many(
        self, loop: asyncio.AbstractEventLoop, repo: _RepoLike, org_url_slug: str, test_ids: Iterable[str], *,
        # @bulk-options: scripts/generate-stubs puts every option row (option_rows("bulk")) here
        on_progress: Callable[[int, int], object] | None = None
    ) -> asyncio.Future[tuple[list[TestCase | None], dict[int, Exception]]]: ...
    # @async-operations: scripts/generate-stubs puts one method per declared operation here (loop first)
