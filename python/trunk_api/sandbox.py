"""A local, in-process implementation of the service (the C++ sandbox), for tests, notebooks and trying
automation offline.

    with Sandbox(seed=7, tests=500) as sandbox:
        client = sandbox.client()
        page = client.list_failing_tests(sandbox.repos[0], sandbox.org_url_slug, start, end)
        print(sandbox.requests[-1].body)

The server runs on C++ threads bound to 127.0.0.1 on a free port; it never needs the GIL, so a Client in the
same process talks to it freely. Faults (latency, 503s, 429s, dropped connections, truncated bodies) can be
changed while it runs.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
from datetime import datetime, timedelta
from types import TracebackType
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from trunk_api._core import declarations, sandbox as engine
from trunk_api._core.models import QuarantineOverrideMode, Repo
from trunk_api._core.sandbox import (
    Arrivals,
    EmpiricalRunDuration,
    FixedRunDuration,
    LognormalRunDuration,
    PullRequestScript,
    QueueControls,
)
from trunk_api._core.webhooks import WebhookSecret
from trunk_api.async_client import AsyncClient
from trunk_api.client import Client, RepoLike, _options_doc, _options_signature

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from trunk_api._core.sandbox import FaultOptionKeywords, SandboxOptionKeywords

__all__ = [
    "Arrivals",
    "EmpiricalRunDuration",
    "FixedRunDuration",
    "LognormalRunDuration",
    "PullRequestScript",
    "QueueControls",
    "RecordedRequest",
    "Sandbox",
    "WebhookDelivery",
    "WebhookEndpoint",
]

#: What a queue's runs may take (Sandbox.set_queue_controls(run_duration=...)).
RunDuration = FixedRunDuration | LognormalRunDuration | EmpiricalRunDuration

#: The options of a Sandbox and the fault settings among them, as the C++ core declares them (the rows of
#: SandboxOptions and FaultOptions, sandbox_options.hpp and fault_options.hpp): name, type, default, rule, doc.
#: Written once, there.
_OPTION_ROWS: list[dict[str, Any]] = declarations.option_rows("sandbox")
_FAULT_ROWS: list[dict[str, Any]] = declarations.option_rows("faults")
_DEFAULTS: dict[str, Any] = engine.sandbox_defaults()


@dataclasses.dataclass(frozen=True)
class RecordedRequest:
    """A request the sandbox received. The credential headers (``x-api-token``, ``Authorization``,
    ``x-trunk-token``) hold ``"<redacted>"``."""

    method: str
    path: str
    headers: dict[str, str]  #: header names in lower case
    body: Any  #: the parsed JSON body, or the text when it is not JSON
    status: int  #: status answered; 0 when the connection was dropped without an answer
    raw_body: bytes = dataclasses.field(repr=False, default=b"")
    #: the fault injected into the answer: "" (none), "drop", "rate_limit", "error" (503), "drop_after"
    #: (processed, then the connection closed) or "truncate"
    fault: str = ""
    #: the query string without its "?" ("" for none): a v2 GET's parameters, such as "limit=10&cursor=..."
    query: str = ""


@dataclasses.dataclass(frozen=True, repr=False)
class WebhookEndpoint:
    """A webhook endpoint the sandbox sends to (:meth:`Sandbox.add_webhook`). Verify its deliveries with
    ``trunk_api.webhooks.verify(body, headers, endpoint.secret)``."""

    id: str  #: "ep_..."
    url: str  #: as registered; its repr hides credentials in it ("https://***@host/hook")
    #: never printed, nor compared; ``secret.reveal()`` gives "whsec_..."
    secret: WebhookSecret = dataclasses.field(repr=False, compare=False)
    events: tuple[str, ...] = ()  #: the event types it receives; empty: every type

    def __repr__(self) -> str:
        return (f"WebhookEndpoint(id={self.id!r}, url={engine.url_without_credentials(self.url)!r}, "
                f"events={self.events!r})")


@dataclasses.dataclass(frozen=True)
class WebhookDelivery:
    """One attempt to deliver one message to one endpoint (:attr:`Sandbox.webhook_deliveries`)."""

    endpoint_id: str
    message_id: str  #: the svix-id: the same on every attempt of a message
    event_type: str
    pr_number: int | None  #: the pull request of a pull_request.* event
    attempt: int  #: 1 for the first try; retries (and an injected duplicate) count up
    status: int  #: HTTP status answered; 0 when none came (refused, timed out)
    error: str  #: why it failed without a status ("" otherwise)
    at: datetime  #: the sandbox clock when it was sent
    latency: timedelta  #: wall time from sending to the answer
    duplicate: bool  #: an extra copy sent because of ``webhook_duplicate_rate``
    next_attempt: datetime | None  #: when the retry is due; None: delivered, or given up after 8 attempts

    @property
    def succeeded(self) -> bool:
        return 200 <= self.status < 300


def _parse_body(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", errors="replace")


class Sandbox:
    """The sandbox service, started in this process (context manager, or ``start()``/``stop()``).

    Every option is a keyword, declared once in the C++ core (one row each, SandboxOptions and FaultOptions):
    the signature, the list ``help(Sandbox)`` ends with, the command lines' flags and the table of the Sandbox
    page (docs/sandbox.md) are made from those rows. ``seed`` and ``tests`` decide the generated data (same seed,
    same ``now``: same data). The fault settings (``error_rate``, ``drop_rate``, ...) can also be changed while
    it runs: as properties (``sandbox.error_rate = 0.2``) or several at once with :meth:`set_faults`; None keeps
    a setting as it is.

    Merge queues move on the sandbox clock (:attr:`clock_now`): ``clock="real"`` follows the wall clock,
    ``clock="virtual"`` stands still until :meth:`advance` moves it, so an hour of queue runs in milliseconds
    and the same seed and calls give the same outcomes. Test runs fail because of flaky tests, and pull
    requests are genuinely broken, with the probabilities implied by each repository's own history, unless
    ``flaky_failure_rate`` / ``broken_pull_request_rate`` set them.
    """

    def __init__(self, **options: Unpack[SandboxOptionKeywords]) -> None:
        # The options are the core's rows (a wrong one is a ValidationError naming it, an unknown one the same
        # TypeError as a misspelt keyword).
        self._core = engine.Sandbox(**options)
        given: dict[str, Any] = dict(options)
        self._tests = _DEFAULTS["tests"] if given.get("tests") is None else given["tests"]
        self._seed = _DEFAULTS["seed"] if given.get("seed") is None else given["seed"]

    # ---- life cycle ---------------------------------------------------------------------------------------
    def start(self) -> Sandbox:
        """Generates the data, binds a free loopback port and serves; returns once listening."""
        self._core.start()
        return self

    def stop(self) -> None:
        """Stops serving (idempotent)."""
        self._core.stop()

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._core.running

    def __repr__(self) -> str:
        where = self._core.url if self._core.running else "stopped"
        return f"Sandbox(url={where!r}, seed={self._seed}, tests={self._tests})"

    def __reduce__(self) -> tuple[Any, ...]:
        raise TypeError("a Sandbox is a running server and cannot be pickled")

    # ---- where and who ------------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        """Base address, e.g. ``http://127.0.0.1:40123`` (the operations are under ``/v1``)."""
        return self._core.url

    @property
    def port(self) -> int:
        return self._core.port

    @property
    def token(self) -> str:
        """The sandbox's own throwaway API token (v1's organization token)."""
        return self._core.token

    @property
    def api_key(self) -> str:
        """The sandbox's own throwaway v2 API key (``trunk_v2_...``), with every permission."""
        return self._core.api_key

    def create_trunk_token(self) -> str:
        """A short-lived token as Trunk's own login issues, for ``Client(trunk_token=...)``: v2 calls send it as
        ``x-trunk-token``; it reads every v2 resource and holds no permission, so writes are refused (403), as
        Trunk refuses merge-queue writes with it (docs/sandbox.md#api-keys)."""
        return self._core.create_trunk_token()

    def create_api_key(self, permissions: Sequence[str] = ()) -> str:
        """A new v2 API key holding only ``permissions`` (names of :meth:`permission_names`, such as
        ``"merge_and_cancel_prs"``); a v2 write it lacks one for answers 403 ``INSUFFICIENT_PERMISSIONS``, and with
        none it can only read. A ValidationError names every unknown permission."""
        return self._core.create_api_key(list(permissions))

    @staticmethod
    def permission_names() -> list[str]:
        """Every permission a v2 API key may hold, as :meth:`create_api_key` takes them."""
        return engine.Sandbox.permission_names()

    @property
    def org_url_slug(self) -> str:
        return self._core.org_url_slug

    @property
    def now(self) -> datetime:
        """The end of the generated history (aware UTC)."""
        return self._core.now

    @property
    def clock_now(self) -> datetime:
        """The sandbox clock, on which the merge queues move (see :meth:`advance`)."""
        return self._core.clock_now

    def advance(self, *, minutes: float = 0, seconds: float = 0, hours: float = 0) -> datetime:
        """Moves the sandbox clock forward and runs the merge queues up to the new time, which it returns:
        ``sandbox.advance(minutes=30)`` runs half an hour of queue at once (any clock mode)."""
        return self._core.advance(hours * 3600 + minutes * 60 + seconds)

    @property
    def repos(self) -> list[Repo]:
        """The repositories that hold data (any other answers 404)."""
        return self._core.repos

    def test_ids(self, repo: RepoLike) -> list[str]:
        """Ids of the test cases of ``repo``, in the order the listings return them."""
        return self._core.test_ids(repo)

    def client(self, **options: Any) -> Client:
        """A Client pointed at this sandbox with its token; ``options`` go to :class:`Client`."""
        return Client(self.token, self.url, **{"api_key": self.api_key, **options})

    def async_client(self, **options: Any) -> AsyncClient:
        """An AsyncClient pointed at this sandbox with its token; ``options`` go to :class:`AsyncClient`."""
        return AsyncClient(self.token, self.url, **{"api_key": self.api_key, **options})

    def save_data(self, path: str | os.PathLike[str]) -> None:
        """Writes the generated history as JSON (usable as ``data_file``)."""
        self._core.save_data(os.fspath(path))

    # ---- what it received ---------------------------------------------------------------------------------
    @property
    def requests(self) -> list[RecordedRequest]:
        """The requests received so far (the most recent 10,000), oldest first."""
        return [
            RecordedRequest(
                method=method,
                path=path,
                headers={name.lower(): value for name, value in headers},
                body=_parse_body(body),
                status=status,
                raw_body=body,
                fault=fault,
                query=query,
            )
            for method, path, headers, body, status, fault, query in self._core.requests()
        ]

    def clear_requests(self) -> None:
        self._core.clear_requests()

    # ---- webhooks -----------------------------------------------------------------------------------------
    def add_webhook(
        self, url: str, *, secret: str | WebhookSecret | None = None, events: list[str] | None = None
    ) -> WebhookEndpoint:
        """Sends every event of ``events`` (all types when None) to ``url`` from now on: signed as Svix signs
        (with ``secret``, "whsec_...", or a new random one: the endpoint's ``.secret``), at least once,
        retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h of the sandbox clock while the endpoint
        fails. With ``clock="virtual"``, :meth:`advance` returns once what fell due in the period was sent."""
        id_, url_, key, types = self._core.add_webhook(url, secret=secret, events=events)
        return WebhookEndpoint(id_, url_, key, tuple(types))

    def remove_webhook(self, endpoint: WebhookEndpoint | str) -> bool:
        """Stops sending to an endpoint (or its id); False when it is not registered."""
        return self._core.remove_webhook(endpoint.id if isinstance(endpoint, WebhookEndpoint) else endpoint)

    def set_test_status(self, test_id: str, status: str) -> bool:
        """Sets a test's health as a detection monitor would (``"HEALTHY"``, ``"FLAKY"`` or ``"BROKEN"``): the
        answers show it from now on (details, ``list_unhealthy_tests``, quarantined tests), and the webhook
        endpoints get the ``test_case.monitor_status_changed``, ``v2.test_case.status_changed`` and
        ``test_case.status_changed`` events before this returns. False when the test already had that health
        (nothing is sent)."""
        return self._core.set_test_status(test_id, status)

    def set_quarantine(self, test_id: str, mode: QuarantineOverrideMode | str, *, reason: str | None = None) -> bool:
        """Sets a test's quarantine override as a person in Trunk's web app would (``"alwaysQuarantine"``,
        ``"neverQuarantine"``, or ``"clear"`` to remove it; ``reason`` 1 to 1000 characters): both API versions
        show it from now on (v1's quarantined listing and ``quarantined``, v2's ``quarantine_state``,
        ``quarantined_since`` and ``quarantine_override``), and the webhook endpoints get
        ``test_case.quarantining_setting_changed`` before this returns. False when the test already had that mode
        (nothing changes or is sent). ``client.v2.tests.set_quarantine`` changes it through the API instead, which
        sends no event (as Trunk's docs say of a change made with an API key)."""
        return self._core.set_quarantine(test_id, mode, reason=reason)

    @property
    def webhooks(self) -> list[WebhookEndpoint]:
        """The endpoints registered."""
        return [WebhookEndpoint(i, u, k, tuple(t)) for i, u, k, t in self._core.webhooks()]

    @property
    def webhook_deliveries(self) -> list[WebhookDelivery]:
        """Every delivery attempt so far (the last 100,000), oldest first."""
        return [
            WebhookDelivery(e, m, t, pr, attempt, status, error, at, timedelta(microseconds=latency_us), dup, nxt)
            for e, m, t, pr, attempt, status, error, at, latency_us, dup, nxt in self._core.webhook_deliveries()
        ]

    # ---- staging exact situations in a merge queue (docs/sandbox.md) --------------------------------------
    def queue_controls(self, repo: RepoLike, branch: str = "main") -> QueueControls:
        """The controls of the merge queue of ``repo`` on ``branch``; a field None follows the sandbox."""
        return self._core.queue_controls(repo, branch)

    def set_queue_controls(
        self,
        repo: RepoLike,
        branch: str = "main",
        *,
        run_duration: RunDuration | None = None,
        flaky_run_rate: float | None = None,
        broken_pull_request_rate: float | None = None,
        arrivals: Arrivals | None = None,
    ) -> None:
        """Replaces the controls of one merge queue while the sandbox runs (a field None: the sandbox's value).

        ``run_duration``: :class:`FixedRunDuration`, :class:`LognormalRunDuration` or
        :class:`EmpiricalRunDuration` (minutes, from 1 to 10080). ``flaky_run_rate``: the chance a run fails on
        a flaky test; ``broken_pull_request_rate``: the chance a pull request submitted from now on is broken
        (both from 0 to 1). Runs already started keep what they were given. ``arrivals``: pull requests the
        queue submits by itself from now on (:class:`Arrivals`: ``Arrivals.poisson(6)``, ``Arrivals.hourly``
        with 24 or 168 rates, ``Arrivals.scheduled``; ``targets={"//app": 0.3}`` each impacted with its chance);
        the same arrivals set again keep their course. A value out of range raises ValidationError naming
        field, value and rule; a queue that does not exist too (field ``queue``)."""
        self._core.set_queue_controls(
            repo,
            branch,
            run_duration=run_duration,
            flaky_run_rate=flaky_run_rate,
            broken_pull_request_rate=broken_pull_request_rate,
            arrivals=arrivals,
        )

    def script_pull_request(
        self,
        repo: RepoLike,
        number: int,
        *,
        branch: str = "main",
        broken: bool | None = None,
        next_run: str | None = None,
        next_run_minutes: float | None = None,
    ) -> None:
        """Stages what happens to pull request ``number`` (submitted or not yet), replacing its previous script.

        ``broken=True``: it fails every run it is in (False: never broken; None: the dice decide).
        ``next_run="fail"`` or ``"pass"`` and ``next_run_minutes``: used up by the next run that tests it. In a
        run testing several scripted pull requests any scripted failure fails it, a scripted pass only skips the
        flaky die, and the longest scripted duration replaces the drawn one."""
        self._core.script_pull_request(
            repo, branch, number, broken=broken, next_run=next_run, next_run_minutes=next_run_minutes
        )

    def pull_request_scripts(self, repo: RepoLike, branch: str = "main") -> dict[int, PullRequestScript]:
        """The scripts of a merge queue not used up yet, by pull request number."""
        return self._core.pull_request_scripts(repo, branch)

    # ---- faults -------------------------------------------------------------------------------------------
    @property
    def faults(self) -> dict[str, float]:
        """The current fault settings."""
        return dict(self._core.faults())

    def set_faults(self, **faults: Unpack[FaultOptionKeywords]) -> None:
        """Changes some fault settings while running; the others stay (e.g. ``set_faults(error_rate=0.2)``)."""
        self._core.set_faults(**faults)

    if TYPE_CHECKING:  # the fault properties below are made from the rows, which a type checker cannot follow
        def __getattr__(self, name: str) -> Any:
            raise AttributeError(name)

        def __setattr__(self, name: str, value: Any) -> None:
            object.__setattr__(self, name, value)


def _fault_property(row: dict[str, Any]) -> property:
    """A fault setting as a property: reads the current value, sets it alone (as set_faults does)."""
    name = row["name"]
    rule = f" ({row['rule']})" if row["rule"] else ""
    return property(lambda self: self._core.faults()[name],
                    lambda self, value: self._core.set_faults(**{name: value}),
                    doc=f"{row['doc']}{rule} Default {row['default']!r}.")


for _row in _FAULT_ROWS:
    setattr(Sandbox, _row["name"], _fault_property(_row))
del _row

#: Sandbox's signature and the options part of its docstring, made from the rows (help(Sandbox) shows both).
Sandbox.__init__.__signature__ = _options_signature(_OPTION_ROWS, ())  # type: ignore[attr-defined]
Sandbox.__doc__ = f"{Sandbox.__doc__}\n    Options:\n\n{_options_doc(_OPTION_ROWS)}\n"
_SET_FAULTS = inspect.signature(Sandbox.set_faults)
Sandbox.set_faults.__signature__ = _SET_FAULTS.replace(  # type: ignore[attr-defined]
    parameters=[_SET_FAULTS.parameters["self"], *(
        inspect.Parameter(row["name"], inspect.Parameter.KEYWORD_ONLY, default=None, annotation=f"{row['type']} | None")
        for row in _FAULT_ROWS)])
