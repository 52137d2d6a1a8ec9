# The hand-written part of trunk_api/_core.pyi: what is not derived from the API's declarations (the engines
# behind Client, Sandbox and the iterators). scripts/generate-stubs appends it to the generated part.

_RepoLike = Repo | str
_TimeLike = datetime | str

class PageIterator(Iterator[TestPage]):
    def __iter__(self) -> PageIterator: ...
    def __next__(self) -> TestPage: ...

class TestIterator(Iterator[TestCase]):
    """Lazy, single-use: a second start raises ValueError("Iterator has already started")."""
    __test__: ClassVar[bool]
    def __iter__(self) -> TestIterator: ...
    def __next__(self) -> TestCase: ...
    @property
    def pages(self) -> PageIterator: ...
    def to_list(self) -> list[TestCase]: ...
    def to_columns(self) -> dict[str, tuple[str, Any, Any]]: ...
    def to_pandas(self) -> Any: ...  # pandas.DataFrame (pandas ships no type information)

def test_columns(tests: Sequence[TestCase]) -> dict[str, tuple[str, Any, Any]]: ...
def column_names(item_type: type[TestCase] | type[QuarantinedTest]) -> list[str]: ...
def flat_rows(item_type: type[TestCase] | type[QuarantinedTest], items: Iterable[Any]) -> list[tuple[Any, ...]]: ...
def schema() -> dict[str, Any]: ...

class Client:
    def __init__(
        self,
        *,
        token: str | None = None,
        base_url: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        user_agent: str | None = None,
        connect_timeout: float = 10.0,
        overall_deadline: float = 120.0,
        verify_tls: bool = True,
        ca_bundle: str | None = None,
        allow_insecure_http: bool = False,
        max_requests_per_second: float = 0.0,
        log: Callable[[int, str], object] | None = None,
        prefetch_pages: bool = True,
    ) -> None: ...
    @property
    def base_url(self) -> str: ...
    def list_failing_tests(
        self,
        repo: _RepoLike,
        org_url_slug: str,
        start_time: _TimeLike,
        end_time: _TimeLike,
        *,
        page_size: int = 100,
        page_token: str = "",
    ) -> TestPage: ...
    def list_unhealthy_tests(
        self,
        repo: _RepoLike,
        org_url_slug: str,
        status: HealthStatus | str,
        *,
        page_size: int = 100,
        page_token: str = "",
    ) -> TestPage: ...
    def get_test_details(self, repo: _RepoLike, org_url_slug: str, test_id: str) -> TestCase: ...
    def get_test_details_many(
        self, repo: _RepoLike, org_url_slug: str, test_ids: Iterable[str], *, concurrency: int = 8
    ) -> tuple[list[TestCase | None], dict[int, Exception]]: ...
    def update_queue(self, repo: _RepoLike, target_branch: str, **fields: Any) -> QueueSettings: ...
    def iter_failing_tests(
        self,
        repo: _RepoLike,
        org_url_slug: str,
        start_time: _TimeLike,
        end_time: _TimeLike,
        *,
        page_size: int = 100,
        max_results: int | None = None,
    ) -> TestIterator: ...
    def iter_unhealthy_tests(
        self,
        repo: _RepoLike,
        org_url_slug: str,
        status: HealthStatus | str,
        *,
        page_size: int = 100,
        max_results: int | None = None,
    ) -> TestIterator: ...

class Sandbox:
    def __init__(
        self,
        *,
        seed: int = 42,
        tests: int = 2000,
        token: str | None = None,
        org_url_slug: str = "trunk-sandbox",
        now: _TimeLike | None = None,
        switching_modes_seconds: float = 2.0,
        state_file: str | None = None,
        data_file: str | None = None,
        threads: int | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        record_requests: bool = True,
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
    def repos(self) -> list[Repo]: ...
    def test_ids(self, repo: _RepoLike) -> list[str]: ...
    def faults(self) -> dict[str, float]: ...
    def set_faults(self, **faults: float) -> None: ...
    def requests(self) -> list[tuple[str, str, list[tuple[str, str]], bytes, int, str]]: ...
    def clear_requests(self) -> None: ...
    def save_data(self, path: str) -> None: ...
