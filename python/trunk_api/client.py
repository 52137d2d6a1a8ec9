"""The Client of the Trunk v1 API: a thin facade over the C++ client in ``trunk_api._core.client``.

Everything substantial happens in C++: argument conversion and validation (a ValidationError naming every bad
field, before anything is sent), JSON encoding and decoding, HTTP, retries with backoff, and paging. The GIL is
released during every network call, so threads sharing one Client run their calls concurrently, and Ctrl-C
interrupts a blocked call within about a second.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from trunk_api import _progress
from trunk_api._core import client as engines, declarations
from trunk_api import v2 as _v2
from trunk_api._core.models import (
    Acknowledgement,
    MergeQueueMetrics,
    MergeQueueTestingResults,
    PullRequestPage,
    QuarantinedTestPage,
    QueueSettings,
    Repo,
    ServiceStatus,
    SubmittedPullRequest,
    SubmittedPullRequests,
    TestCase,
    TestPage,
    TestRunDetails,
)
from trunk_api._core.pager import PullRequestIterator, QuarantinedTestIterator, TestIterator
from trunk_api.enums import (
    AllTargets,
    HealthStatus,
    PullRequestState,
    QueueMode,
)
from trunk_api._progress import ProgressLike
from trunk_api.errors import BulkError, MissingTokenError, TrunkError
from trunk_api._arguments import RepoLike, TimeLike, argument_annotation
from trunk_api._declared import model_entry
from trunk_api.history import MAX_WINDOW, FailingTestsHistory

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from trunk_api._core.client import BulkOptionKeywords, ClientOptionKeywords, QueueSettingKeywords

__all__ = ["Client", "ProgressLike", "RepoLike", "TimeLike"]


_logger = logging.getLogger("trunk_api")

#: The options of a Client, as the C++ core declares them (the rows of ClientOptions, option_rows.hpp): name,
#: type, default (seconds for durations), rule, environment variables, doc. Written once, there.
_OPTION_ROWS: list[dict[str, Any]] = declarations.option_rows("client")

#: The credentials (the secret rows: token, api_key, trunk_token), which a client never keeps in Python nor pickles.
SECRET_OPTIONS = frozenset(row["name"] for row in _OPTION_ROWS if row["secret"])


def _options_signature(rows: list[dict[str, Any]], positional: tuple[str, ...]) -> inspect.Signature:
    """``(self, <positional>, *, <every other row>)``, each with its declared type and default, for
    inspect.signature() and help(): the facades take the options as keywords and forward them to the core."""
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    by_name = {row["name"]: row for row in rows}
    for name in positional:
        row = by_name[name]
        parameters.append(inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=row["default"],
                                            annotation=row["type"]))
    for row in rows:
        if row["name"] not in positional:
            parameters.append(inspect.Parameter(row["name"], inspect.Parameter.KEYWORD_ONLY, default=row["default"],
                                                annotation=row["type"]))
    return inspect.Signature(parameters, return_annotation="None")


def _options_doc(rows: list[dict[str, Any]], indent: str = "    ") -> str:
    """One line per option for the docstring: name, default, doc, rule (with the unit) and variables, from the
    rows."""
    lines = []
    for row in rows:
        default = "" if row["secret"] else f" = {row['default']!r}"
        rule = f" ({row['rule']})" if row["rule"] else ""
        variables = f" None reads {', then '.join(row['variables'])}." if row["variables"] else ""
        lines.append(f"{indent}``{row['name']}{default}``: {row['doc']}{rule}{variables}")
    return "\n".join(lines)


class Client:
    """A client of the Trunk v1 API (merge queue and flaky tests).

    Every option is a keyword (``token`` and ``base_url`` may also come first, in that order). The options are
    declared once, in the C++ core (one row each): the signature, the list ``help(Client)`` ends with and the
    table of the Configuration page (docs/configuration.md) are made from those rows.
    429, 5xx and network failures are retried with exponential backoff and jitter, honouring Retry-After.

    One Client may be shared by many threads. The token is never shown: not in ``repr``, log records,
    exception messages or pickles (an unpickled Client reads the token from the environment again).

    In memory, the client keeps its one copy of the token in pages excluded from core dumps and wiped when
    the client is garbage-collected; the copies libcurl makes for each request are wiped when freed. The
    client cannot wipe *your* copies: the ``str`` you pass (Python strings are immutable, and
    ``del`` does not clear their memory), ``os.environ`` / the process environment, or any string you read
    the token from. Those are in a core dump of your process unless you keep them out of it. See the
    documentation's Security page (docs/security.md).
    """

    def __init__(self, token: str | None = None, base_url: str | None = None,
                 **options: Unpack[ClientOptionKeywords]) -> None:
        # The options are the core's rows (a wrong one is a ValidationError naming it, an unknown one the same
        # TypeError as a misspelt keyword): bound here only to keep what a pickle needs.
        bound = _CLIENT_SIGNATURE.bind(self, token, base_url, **options)
        self._core = engines.Client(**{name: value for name, value in bound.arguments.items() if name != "self"},
                                  log=_logger.log)
        bound.apply_defaults()
        # Everything needed to rebuild this client, except the credentials (which are never stored in Python).
        self._settings: dict[str, Any] = {name: value for name, value in bound.arguments.items()
                                          if name != "self" and name not in SECRET_OPTIONS}
        self._settings["base_url"] = self._core.base_url

    @property
    def base_url(self) -> str:
        """The base address in use, without a trailing ``/``."""
        return self._core.base_url

    @functools.cached_property
    def v2(self) -> _v2.V2:
        """Trunk's v2 API by resource: ``client.v2.merge_queues.list()``, ``.get(id)``, ``.pause(id)``... (needs an
        API key, ``api_key=``, or a trunk token, ``trunk_token=``; docs/reference/v2.md). Made once per client: a
        call through it costs what the flat method costs."""
        return _v2.V2(self)

    def __repr__(self) -> str:
        return f"Client(base_url={self.base_url!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # The credentials are deliberately left out: pickles end up in caches, queues and files.
        return (_restore_client, (dict(self._settings),))

    # ---- flaky tests --------------------------------------------------------------------------------------
    def list_failing_tests(
        self,
        repo: RepoLike,
        org_url_slug: str,
        start_time: TimeLike,
        end_time: TimeLike,
        *,
        page_size: int = 100,
        page_token: str = "",
    ) -> TestPage:
        """One page of the distinct tests that failed in ``[start_time, end_time)`` (at most 7 days)."""
        return self._core.list_failing_tests(
            repo, org_url_slug, start_time, end_time, page_size=page_size, page_token=page_token
        )

    def list_unhealthy_tests(
        self,
        repo: RepoLike,
        org_url_slug: str,
        status: HealthStatus | str,
        *,
        page_size: int = 100,
        page_token: str = "",
    ) -> TestPage:
        """One page of the tests classed ``status`` (``"FLAKY"`` or ``"BROKEN"``, any case)."""
        return self._core.list_unhealthy_tests(
            repo, org_url_slug, status, page_size=page_size, page_token=page_token
        )

    def get_test_details(self, repo: RepoLike, org_url_slug: str, test_id: str) -> TestCase:
        """Every detail of one test case (``test_id`` is a UUID)."""
        return self._core.get_test_details(repo, org_url_slug, test_id).test

    def list_quarantined_tests(
        self, repo: RepoLike, org_url_slug: str, *, page_size: int = 100, page_token: str = ""
    ) -> QuarantinedTestPage:
        """One page of the tests the service quarantines (their failures do not block merges)."""
        return self._core.list_quarantined_tests(repo, org_url_slug, page_size=page_size, page_token=page_token)

    def iter_quarantined_tests(
        self,
        repo: RepoLike,
        org_url_slug: str,
        *,
        page_size: int = 100,
        max_results: int | None = None,
        progress: ProgressLike = "auto",
    ) -> QuarantinedTestIterator:
        """Every quarantined test across all pages, fetched lazily (``.to_list()``, ``.to_pandas()``).
        ``progress``: a progress bar (see :meth:`iter_failing_tests`)."""
        return self._core.iter_quarantined_tests(repo, org_url_slug, page_size=page_size, max_results=max_results,
                                                 **_progress.on_page_keywords(progress, "quarantined tests", max_results))

    def get_test_details_many(
        self,
        repo: RepoLike,
        org_url_slug: str,
        test_ids: Iterable[str],
        *,
        progress: ProgressLike = "auto",
        **options: Unpack[BulkOptionKeywords],
    ) -> list[TestCase]:
        """The details of many tests, fetched concurrently; the list is in the order of ``test_ids``.

        Requests go over kept-alive connections, as many at once as the options below allow; each id gets the
        same retries as :meth:`get_test_details`, and ``max_requests_per_second`` spaces them all. Every id is
        validated first (one ValidationError naming each bad ``test_ids[i]``; nothing is sent). When some ids
        fail, :class:`BulkError` is raised after all have finished, carrying ``.results`` (TestCase or None per
        id) and ``.errors`` ({index: exception}). The GIL is released for the whole call; Ctrl-C stops it.
        ``progress``: a progress bar counting the ids as they end, answered or failed (see
        :meth:`iter_failing_tests`).
        """
        on_progress = _progress.count_reporter(progress, "test details")
        return _bulk_answer(self._core.get_test_details_many(repo, org_url_slug, test_ids, on_progress=on_progress,
                                                             **options))

    def iter_failing_tests(
        self,
        repo: RepoLike,
        org_url_slug: str,
        start_time: TimeLike,
        end_time: TimeLike,
        *,
        page_size: int = 100,
        max_results: int | None = None,
        progress: ProgressLike = "auto",
    ) -> TestIterator:
        """Every failing test of the window across all pages, fetched lazily (see :class:`TestIterator`).

        ``progress``: ``True`` shows a ``tqdm.auto`` progress bar (its total from the first page's
        ``total_rows``), ``False`` never does; ``"auto"`` shows one in a notebook when tqdm is installed and
        nowhere else. Without a bar nothing is added to the iteration."""
        return self._core.iter_failing_tests(
            repo, org_url_slug, start_time, end_time, page_size=page_size, max_results=max_results,
            **_progress.on_page_keywords(progress, "failing tests", max_results)
        )

    def iter_failing_tests_between(
        self,
        repo: RepoLike,
        org_url_slug: str,
        start_time: TimeLike,
        end_time: TimeLike,
        *,
        window: timedelta = MAX_WINDOW,
        page_size: int = 100,
        max_results: int | None = None,
        concurrency: int = 4,
        progress: ProgressLike = "auto",
    ) -> FailingTestsHistory:
        """The failing tests of any range ``[start_time, end_time)``, longer than the service's 7 days: walked as
        consecutive windows of at most ``window`` (0 < window <= 7 days), up to ``concurrency`` (1..16) fetched
        at once, the tests in window order, each a :class:`WindowedTest` with ``window_start`` and
        ``window_end``. ``.to_pandas()`` adds those two columns to the usual ones. Everything is checked when
        this is called; nothing is fetched before the first item is asked for. ``progress``: a bar counting
        windows (see :meth:`iter_failing_tests`)."""
        return FailingTestsHistory(self._core, repo, org_url_slug, start_time, end_time, window=window,
                                   page_size=page_size, max_results=max_results, concurrency=concurrency,
                                   progress=progress)

    def iter_unhealthy_tests(
        self,
        repo: RepoLike,
        org_url_slug: str,
        status: HealthStatus | str,
        *,
        page_size: int = 100,
        max_results: int | None = None,
        progress: ProgressLike = "auto",
    ) -> TestIterator:
        """Every unhealthy test with ``status`` across all pages, fetched lazily. ``progress``: a progress bar
        (see :meth:`iter_failing_tests`)."""
        return self._core.iter_unhealthy_tests(
            repo, org_url_slug, status, page_size=page_size, max_results=max_results,
            **_progress.on_page_keywords(progress, f"{getattr(status, 'value', status)} tests".lower(), max_results)
        )

    # ---- merge queue --------------------------------------------------------------------------------------
    def get_queue(self, repo: RepoLike, target_branch: str) -> QueueSettings:
        """The settings of the merge queue of ``target_branch`` and the pull requests in it
        (``enqueued_pull_requests``). Reading it changes nothing."""
        return self._core.get_queue(repo, target_branch)

    def update_queue(self, repo: RepoLike, target_branch: str,
                     **settings: Unpack[QueueSettingKeywords]) -> QueueSettings:
        """Changes the merge queue of ``target_branch`` and returns the settings after the change.

        Every setting is a keyword; None means "not sent": only the settings given go on the wire, and the
        others stay as they are. ``required_statuses=[]`` sets an empty list; ``delete_required_statuses=True``
        falls back to branch protection (giving both is a ValidationError).
        """
        # The settings are the core's declaration (queue_setting_rows.hpp): a wrong one is a ValidationError
        # naming it, a misspelt keyword the TypeError of the signature made from them.
        _UPDATE_QUEUE_SIGNATURE.bind(self, repo, target_branch, **settings)
        return self._core.update_queue(repo, target_branch, **settings)

    def create_queue(
        self, repo: RepoLike, target_branch: str, *, mode: QueueMode | str | None = None, concurrency: int | None = None
    ) -> Acknowledgement:
        """Creates the merge queue of ``target_branch`` (ConflictError when it exists). Not repeated by retries
        unless the first attempt provably never reached the service."""
        return self._core.create_queue(repo, target_branch, mode=mode, concurrency=concurrency)

    def delete_queue(self, repo: RepoLike, target_branch: str) -> Acknowledgement:
        """Deletes the merge queue of ``target_branch``; only an empty queue may be deleted (400 otherwise)."""
        return self._core.delete_queue(repo, target_branch)

    def submit_pull_request(
        self,
        repo: RepoLike,
        number: int,
        target_branch: str,
        *,
        priority: int | str | None = None,
        no_batch: bool | None = None,
    ) -> Acknowledgement:
        """Submits pull request ``number`` to the merge queue of ``target_branch``.

        ``priority``: 0..4294967295 (lower first; 0 is urgent) or a name ("urgent", "high", "medium",
        "low"); None: the queue's default. Not safe to repeat: a retry happens only when the first attempt
        provably never reached the service (connection refused, 429, 503). After any other failure, read back
        with :meth:`get_submitted_pull_request` before submitting again.
        """
        return self._core.submit_pull_request(repo, number, target_branch, priority=priority, no_batch=no_batch)

    def cancel_pull_request(self, repo: RepoLike, number: int, target_branch: str) -> Acknowledgement:
        """Takes pull request ``number`` out of the merge queue (safe to repeat)."""
        return self._core.cancel_pull_request(repo, number, target_branch)

    def restart_tests_on_pull_request(self, repo: RepoLike, number: int, target_branch: str) -> Acknowledgement:
        """Restarts the tests of pull request ``number`` in the merge queue (not safe to repeat)."""
        return self._core.restart_tests_on_pull_request(repo, number, target_branch)

    def get_submitted_pull_request(self, repo: RepoLike, number: int, target_branch: str) -> SubmittedPullRequest:
        """Where pull request ``number`` stands in the merge queue, and what it still waits for (``readiness``)."""
        return self._core.get_submitted_pull_request(repo, number, target_branch)

    def get_submitted_pull_requests(
        self, repo: RepoLike, prs: Sequence[int | dict[str, Any]], target_branch: str
    ) -> SubmittedPullRequests:
        """Where 1 to 50 pull requests of the merge queue stand, in one call: ``prs`` are their numbers. The
        answer's ``pull_requests`` are those the queue knows (as :meth:`get_submitted_pull_request` answers
        each); ``not_found`` names the others. An item may also be a dict such as ``{"number": 7}``. More than 50, or none, is a ValidationError before anything is
        sent."""
        return self._core.get_submitted_pull_requests(repo, prs, target_branch)

    def list_pull_requests(
        self,
        repo: RepoLike,
        target_branch: str,
        *,
        state: PullRequestState | str | None = None,
        since: TimeLike | None = None,
        until: TimeLike | None = None,
        cursor: str | None = None,
        take: int = 50,
    ) -> PullRequestPage:
        """One page of the pull requests of the merge queue (``next_cursor`` is None on the last page).
        ``since`` keeps the pull requests concluded after it, ``until`` those concluded at or before it;
        ``take`` is 1..100."""
        return self._core.list_pull_requests(repo, target_branch, state=state, since=since, until=until,
                                             cursor=cursor, take=take)

    def iter_pull_requests(
        self,
        repo: RepoLike,
        target_branch: str,
        *,
        state: PullRequestState | str | None = None,
        since: TimeLike | None = None,
        until: TimeLike | None = None,
        take: int = 50,
        max_results: int | None = None,
        progress: ProgressLike = "auto",
    ) -> PullRequestIterator:
        """Every pull request of the merge queue across all pages, fetched lazily (``.to_pandas()``).
        ``progress``: a progress bar (see :meth:`iter_failing_tests`; this listing has no total)."""
        return self._core.iter_pull_requests(
            repo, target_branch, state=state, since=since, until=until, take=take, max_results=max_results,
            **_progress.on_page_keywords(progress, "pull requests", max_results)
        )

    def set_impacted_targets(
        self,
        repo: RepoLike,
        number: int,
        sha: str,
        target_branch: str,
        targets: Sequence[str] | AllTargets | str,
    ) -> Acknowledgement:
        """Reports the build targets pull request ``number`` at commit ``sha`` changes: a list of target names,
        or ``"ALL"``. Not safe to repeat (see :meth:`submit_pull_request`)."""
        return self._core.set_impacted_targets(repo, number, sha, target_branch, targets)

    def get_merge_queue_testing_details(self, repo: RepoLike, target_branch: str, test_run_id: str) -> TestRunDetails:
        """The details of one merge queue test run: what it tests, its checks and how it stands."""
        return self._core.get_merge_queue_testing_details(repo, target_branch, test_run_id)

    def list_merge_queue_testing_results(
        self,
        repo: RepoLike,
        target_branch: str,
        since: TimeLike,
        *,
        until: TimeLike | None = None,
        offset: int | None = None,
        take: int = 50,
    ) -> MergeQueueTestingResults:
        """The testing the merge queue of ``target_branch`` completed between ``since`` and ``until`` (both
        inclusive; ``until`` defaults to now), newest first: one entry per pull request per attempt, each with the
        ``test_run_id`` that :meth:`get_merge_queue_testing_details` takes. ``offset`` (0 or more) skips entries,
        ``take`` (1..100) bounds them; ``total`` counts every match. The service keeps 45 days."""
        return self._core.list_merge_queue_testing_results(repo, target_branch, since, until=until, offset=offset,
                                                           take=take)

    def get_merge_queue_metrics(self, repo: RepoLike | None = None) -> MergeQueueMetrics:
        """The merge queue metrics of ``repo`` (``None``: of every repository, and no query is sent): the
        Prometheus text (``.text``), its parsed ``.samples``, and typed access to the series:
        ``.gauge(name, **labels)``, ``.histogram(name, **labels)`` with ``.quantile(q)``."""
        return self._core.get_merge_queue_metrics(repo=repo)

    # ---- the service itself ------------------------------------------------------------------------------------

    def status(self) -> ServiceStatus:
        """Whether Trunk's services are up (``overall_status.type``: ``"up"`` or ``"impacted"``, with
        ``impacted_statuses``), and each service's own ``statuses``. Sends no credential: the service's
        description asks for none here."""
        return self._core.status()

    # ---- flaky tests: tickets -----------------------------------------------------------------------------
    def link_ticket_to_test_case(self, repo: RepoLike, test_case_id: str, external_ticket_id: str) -> Acknowledgement:
        """Links ticket ``external_ticket_id`` (e.g. ``"KAN-123"``) of the issue tracker to a test case."""
        return self._core.link_ticket_to_test_case(repo, test_case_id, external_ticket_id)


def _bulk_answer(outcome: tuple[list[TestCase | None], dict[int, Exception]]) -> list[TestCase]:
    """The list of a bulk call's TestCases; BulkError when some ids failed (the sync and async calls alike)."""
    results, errors = outcome
    if errors:
        shown = "; ".join(f"[{index}] {type(error).__name__}: {error}" for index, error in list(errors.items())[:3])
        more = f"; and {len(errors) - 3} more" if len(errors) > 3 else ""
        raise BulkError(
            f"get_test_details_many: {len(errors)} of {len(results)} test ids failed: {shown}{more}",
            results,
            errors,
        )
    return results  # type: ignore[return-value]


#: Client's signature and the options part of its docstring, made from the rows (help(Client) shows both).
_CLIENT_SIGNATURE = _options_signature(_OPTION_ROWS, ("token", "base_url"))
Client.__init__.__signature__ = _CLIENT_SIGNATURE  # type: ignore[attr-defined]
Client.__doc__ = f"{Client.__doc__}\n    Options:\n\n{_options_doc(_OPTION_ROWS)}\n"


def _take_option_rows(method: Any, rows: list[dict[str, Any]]) -> None:
    """Gives a method that forwards ``**options`` the signature and docs of the rows it takes: each row a
    keyword-only parameter (before the method's own keywords), and one line per row in its docstring."""
    signature = inspect.signature(method)
    own = [parameter for parameter in signature.parameters.values() if parameter.kind is not parameter.VAR_KEYWORD]
    first_keyword = next(i for i, parameter in enumerate(own) if parameter.kind is parameter.KEYWORD_ONLY)
    keywords = [inspect.Parameter(row["name"], inspect.Parameter.KEYWORD_ONLY, default=row["default"],
                                  annotation=row["type"]) for row in rows]
    method.__signature__ = signature.replace(parameters=[*own[:first_keyword], *keywords, *own[first_keyword:]])
    method.__doc__ = f"{method.__doc__}\n        Options:\n\n{_options_doc(rows, indent='        ')}\n"


_take_option_rows(Client.get_test_details_many, declarations.option_rows("bulk"))


def _request_settings(request: str) -> list[dict[str, Any]]:
    """The optional fields of a request model of the core's schema: what a call takes as keywords that default
    to "not sent"."""
    model = model_entry(request)
    assert model is not None, request
    return [field for field in model["fields"] if field["optional"]]


def _take_request_settings(method: Any, request: str) -> inspect.Signature:
    """Gives a method that forwards ``**settings`` one keyword-only parameter (default None: not sent) per optional
    field of `request`, and one docstring line per field (its doc and range); returns the signature."""
    settings = _request_settings(request)
    signature = inspect.signature(method)
    own = [parameter for parameter in signature.parameters.values() if parameter.kind is not parameter.VAR_KEYWORD]
    keywords = [inspect.Parameter(field["name"], inspect.Parameter.KEYWORD_ONLY, default=None,
                                  annotation=f"{argument_annotation(field)} | None") for field in settings]
    settings_signature = signature.replace(parameters=[*own, *keywords])
    method.__signature__ = settings_signature
    lines = []
    for field in settings:
        bounds = f" ({field['min']}..{field['max']})" if field["min"] is not None else ""
        lines.append(f"        ``{field['name']}``: {field['doc']}{bounds}")
    method.__doc__ = f"{method.__doc__}\n        Settings:\n\n" + "\n".join(lines) + "\n"
    return settings_signature


_UPDATE_QUEUE_SIGNATURE = _take_request_settings(Client.update_queue, "UpdateQueueRequest")
_v2.add_flat_methods(Client)  # v2's operations, flat (list_merge_queues, ...), from the core's rows


def _restore_client(settings: dict[str, Any]) -> Client:
    try:
        return Client(None, **settings)
    except MissingTokenError as error:
        raise TrunkError(
            "an unpickled trunk_api.Client needs its credentials again (they are never pickled): set "
            f"{' or '.join(error.variables)} in this process"
        ) from None
