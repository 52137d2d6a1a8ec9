# The hand-written part of trunk_api/_core.pyi: what is not derived from the API's declarations (the engines
# behind Client and Sandbox). scripts/generate-stubs appends it to the generated part, filling its marked places.

_RepoLike = Repo | str
_TimeLike = datetime | str

# @iterators: scripts/generate-stubs puts the iterator classes of every declared listing here

def test_columns(tests: Sequence[TestCase]) -> dict[str, tuple[str, Any, Any]]: ...
def column_names(item_type: type[TestCase] | type[QuarantinedTest]) -> list[str]: ...
def flat_row(item: TestCase | QuarantinedTest) -> tuple[Any, ...]: ...
def schema() -> dict[str, Any]: ...
def client_defaults() -> dict[str, Any]: ...
def sandbox_defaults() -> dict[str, Any]: ...
def openapi_document() -> str: ...
def _connect_facade(errors: Any, frames: Any) -> None: ...

class Client:
    def __init__(
        self,
        *,
        token: str | None = None,
        base_url: str | None = None,
        timeout: float = ...,  # the defaults are ClientOptions' (client_defaults())
        max_retries: int = ...,
        user_agent: str | None = None,
        connect_timeout: float = ...,
        overall_deadline: float = ...,
        verify_tls: bool = ...,
        ca_bundle: str | None = None,
        allow_insecure_http: bool = ...,
        max_requests_per_second: float = ...,
        log: Callable[[int, str], object] | None = None,
        prefetch_pages: bool = ...,
    ) -> None: ...
    @property
    def base_url(self) -> str: ...
    def get_test_details_many(
        self, repo: _RepoLike, org_url_slug: str, test_ids: Iterable[str], *, concurrency: int = 8
    ) -> tuple[list[TestCase | None], dict[int, Exception]]: ...
    # @operations: scripts/generate-stubs puts one method per declared operation here (and iter_ for listings)

class AsyncClient:
    def __init__(
        self,
        *,
        token: str | None = None,
        base_url: str | None = None,
        timeout: float = ...,  # the defaults are ClientOptions' (client_defaults())
        max_retries: int = ...,
        user_agent: str | None = None,
        connect_timeout: float = ...,
        overall_deadline: float = ...,
        verify_tls: bool = ...,
        ca_bundle: str | None = None,
        allow_insecure_http: bool = ...,
        max_requests_per_second: float = ...,
        log: Callable[[int, str], object] | None = None,
        max_in_flight: int = 64,
    ) -> None: ...
    @property
    def base_url(self) -> str: ...
    def close(self) -> None: ...
    # @async-operations: scripts/generate-stubs puts one method per declared operation here (loop first)

class Sandbox:
    def __init__(
        self,
        *,
        seed: int = ...,  # the defaults are SandboxOptions' (sandbox_defaults())
        tests: int = ...,
        token: str | None = None,
        org_url_slug: str = ...,
        now: _TimeLike | None = None,
        switching_modes_seconds: float = ...,
        state_file: str | None = None,
        data_file: str | None = None,
        threads: int | None = None,
        host: str = ...,
        port: int = ...,
        record_requests: bool = ...,
        clock: str = ...,
        flaky_failure_rate: float | None = None,
        broken_pull_request_rate: float | None = None,
        **faults: float | None,
    ) -> None: ...
    def start(self) -> None: ...
    def stop(self) -> None: ...
    @property
    def running(self) -> bool: ...
    @property
    def url(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def token(self) -> str: ...
    @property
    def org_url_slug(self) -> str: ...
    @property
    def now(self) -> datetime: ...
    @property
    def clock_now(self) -> datetime: ...
    def advance(self, seconds: float) -> datetime: ...
    @property
    def repos(self) -> list[Repo]: ...
    def test_ids(self, repo: _RepoLike) -> list[str]: ...
    def faults(self) -> dict[str, float]: ...
    def set_faults(self, **faults: float) -> None: ...
    def requests(self) -> list[tuple[str, str, list[tuple[str, str]], bytes, int, str]]: ...
    def clear_requests(self) -> None: ...
    def save_data(self, path: str) -> None: ...
