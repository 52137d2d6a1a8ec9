"""Webhooks: the events Trunk sends (through Svix), verified and typed. See docs/webhooks.md.

    from trunk_api import webhooks
    event = webhooks.verify(request_body, request_headers, "whsec_...")   # raises WebhookVerificationError
    match event:
        case webhooks.PullRequestEvent(type=webhooks.WebhookEventType.PULL_REQUEST_FAILED):
            ...

Verification, signing and the reading of events are the C++ core's (trunk/webhook_signature.hpp,
trunk/webhook_event.hpp); this module adds the framework-neutral receiving helpers: :class:`Deduplicator`
(Svix delivers at least once: the same ``svix-id`` can arrive again) and :class:`Receiver`, which turns a
request's body and headers into an HTTP status and gives each new event to a handler once, as a WSGI or ASGI
application too.
"""

from __future__ import annotations

import collections
import datetime as dt
import logging
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Union

from trunk_api._core import webhooks as engine
from trunk_api._core.webhooks import (
    Actor,
    EventRepository,
    InvestigationFact,
    LegacyStatusChange,
    LegacyTestCaseStatusChangedEvent,
    Monitor,
    PullRequestBatchEvent,
    PullRequestEvent,
    QuarantineSettingChange,
    QueueEventRepository,
    StatusTrigger,
    TestCaseInvestigationCompletedEvent,
    TestCaseMonitorStatusChangedEvent,
    TestCaseQuarantiningSettingChangedEvent,
    TestCaseStatusChangedEvent,
    UnknownEvent,
    WebhookSecret,
)
from trunk_api.enums import (
    CancellationReason,
    MergedReason,
    MonitorStatus,
    QuarantiningSetting,
    QueuedReason,
    QueueEventAction,
    QueueFailureReason,
    SubmittedReason,
    WebhookEventType,
)
from trunk_api.errors import WebhookVerificationError

__all__ = [
    "Actor",
    "CancellationReason",
    "construct_event",
    "Deduplicator",
    "DEFAULT_TOLERANCE",
    "delivery_id",
    "Event",
    "EventRepository",
    "InvestigationFact",
    "LegacyStatusChange",
    "LegacyTestCaseStatusChangedEvent",
    "MergedReason",
    "Monitor",
    "MonitorStatus",
    "PullRequestBatchEvent",
    "PullRequestEvent",
    "QuarantineSettingChange",
    "QuarantiningSetting",
    "QueuedReason",
    "QueueEventAction",
    "QueueEventRepository",
    "QueueFailureReason",
    "Receiver",
    "sign",
    "StatusTrigger",
    "SubmittedReason",
    "TestCaseInvestigationCompletedEvent",
    "TestCaseMonitorStatusChangedEvent",
    "TestCaseQuarantiningSettingChangedEvent",
    "TestCaseStatusChangedEvent",
    "UnknownEvent",
    "verify",
    "WebhookEventType",
    "WebhookSecret",
    "WebhookVerificationError",
]

_log = logging.getLogger("trunk_api.webhooks")

#: Any event :func:`verify` returns: one class per payload shape, UnknownEvent for a type this library does
#: not know (its fields are in ``.extra``).
Event = Union[
    PullRequestEvent,
    PullRequestBatchEvent,
    TestCaseStatusChangedEvent,
    TestCaseMonitorStatusChangedEvent,
    TestCaseQuarantiningSettingChangedEvent,
    TestCaseInvestigationCompletedEvent,
    LegacyTestCaseStatusChangedEvent,
    UnknownEvent,
]

#: How far svix-timestamp may be from now, either way, as Svix's own verifiers allow.
DEFAULT_TOLERANCE = dt.timedelta(minutes=5)

Headers = Union[Mapping[str, Any], Iterable[tuple[Any, Any]]]


def verify(body: bytes | bytearray | memoryview | str, headers: Headers, secret: str | WebhookSecret, *,
           tolerance: dt.timedelta = DEFAULT_TOLERANCE, now: dt.datetime | None = None) -> Event:
    """The event of a delivery, once its signature and timestamp check out.

    ``body`` must be the raw request body, exactly as received (never re-serialised JSON). ``headers`` is any
    mapping or sequence of (name, value) pairs, names in any case (svix-* or webhook-*). ``secret`` is the
    endpoint's "whsec_..." text or a :class:`WebhookSecret` (parsed once: faster when verifying many).
    ``now`` replaces the clock (tests, replays of logged deliveries). Raises :class:`WebhookVerificationError`
    with a ``reason``; an unknown event type is not an error (:class:`UnknownEvent`).
    """
    return engine.verify_webhook(body, headers, secret, tolerance, now)  # type: ignore[no-any-return]


def construct_event(body: bytes | bytearray | memoryview | str) -> Event:
    """The event of a body already verified (or read back from a log): no signature check.

    Raises :class:`trunk_api.DecodeError` when the body is not a JSON object (or a known field has the wrong
    kind)."""
    return engine.construct_webhook_event(body)  # type: ignore[no-any-return]


def sign(secret: str | WebhookSecret, msg_id: str, timestamp: int | dt.datetime,
         body: bytes | bytearray | memoryview | str) -> str:
    """The svix-signature header value ("v1,<base64>") a sender puts on a delivery (tests, local senders)."""
    key = secret if isinstance(secret, WebhookSecret) else WebhookSecret(secret)
    return key.sign(msg_id, timestamp, body)


def delivery_id(headers: Headers) -> str | None:
    """The delivery's svix-id (the same on every retry of one message): the key to de-duplicate by."""
    return engine.webhook_headers(headers)[0]


class Deduplicator:
    """Remembers the last ``capacity`` delivery ids: :meth:`first_time` is True once per id.

    Svix retries a message until an endpoint answers 2xx, and may deliver it again after a success whose answer
    was lost, always with the same ``svix-id``; a receiver that must act once per event checks it here. Thread
    safe. Keep it in shared storage (a database's unique key) when several processes receive.
    """

    def __init__(self, capacity: int = 100_000) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self._capacity = capacity
        self._seen: collections.OrderedDict[str, None] = collections.OrderedDict()
        self._lock = threading.Lock()

    def first_time(self, message_id: str) -> bool:
        with self._lock:
            if message_id in self._seen:
                self._seen.move_to_end(message_id)
                return False
            self._seen[message_id] = None
            if len(self._seen) > self._capacity:
                self._seen.popitem(last=False)
            return True

    def forget(self, message_id: str) -> None:
        """Lets the id through again (its handling failed, so the retry must be handled)."""
        with self._lock:
            self._seen.pop(message_id, None)

    def __len__(self) -> int:
        return len(self._seen)


Handler = Callable[[Any, str], None]


class Receiver:
    """A webhook endpoint without a framework: verify, de-duplicate, hand each new event to ``handler(event,
    message_id)``.

    :meth:`receive` gives the HTTP status to answer: 204 for a new event handled (or one seen before: Svix then
    stops retrying), 400 for a refused delivery (the reason is in ``last_error``), 500 when the handler raised
    (Svix retries later, with the same id, which is not marked seen in that case). :meth:`wsgi` and :meth:`asgi`
    are the same as applications for any WSGI or ASGI server. Bodies over ``max_body_bytes`` are refused (413)
    before reading.
    """

    def __init__(self, secret: str | WebhookSecret, handler: Handler, *, tolerance: dt.timedelta = DEFAULT_TOLERANCE,
                 deduplicator: Deduplicator | None = None, max_body_bytes: int = 1 << 20,
                 on_refused: Callable[[WebhookVerificationError], None] | None = None) -> None:
        self._secret = secret if isinstance(secret, WebhookSecret) else WebhookSecret(secret)
        self._handler = handler
        self._tolerance = tolerance
        self.deduplicator = deduplicator if deduplicator is not None else Deduplicator()
        self.max_body_bytes = max_body_bytes
        self._on_refused = on_refused
        self.last_error: WebhookVerificationError | None = None

    def __repr__(self) -> str:
        return f"Receiver(secret=<redacted>, handler={self._handler!r})"

    def __reduce__(self) -> Any:
        raise TypeError("a webhook Receiver holds its secret and is not pickled")

    def receive(self, body: bytes, headers: Headers) -> int:
        try:
            event = verify(body, headers, self._secret, tolerance=self._tolerance)
        except WebhookVerificationError as error:
            self.last_error = error
            if self._on_refused is not None:
                self._on_refused(error)
            return 400
        message_id = delivery_id(headers) or ""
        if not self.deduplicator.first_time(message_id):
            return 204
        try:
            self._handler(event, message_id)
        except Exception:
            _log.exception("webhook handler failed for %s; answered 500 so that it is retried", message_id)
            self.deduplicator.forget(message_id)
            return 500
        return 204

    # ---- WSGI -------------------------------------------------------------------------------------------------
    def wsgi(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        """A WSGI application: POST anywhere; the headers are read from ``environ`` (HTTP_SVIX_ID...)."""
        status = self._wsgi_status(environ)
        start_response(_STATUS_LINES[status], [("Content-Length", "0")])
        return [b""]

    def _wsgi_status(self, environ: dict[str, Any]) -> int:
        if environ.get("REQUEST_METHOD") != "POST":
            return 405
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return 400
        if length > self.max_body_bytes:
            return 413
        body = environ["wsgi.input"].read(length) if length > 0 else b""
        headers = [(key[5:].replace("_", "-"), value) for key, value in environ.items() if key.startswith("HTTP_")]
        return self.receive(body, headers)

    # ---- ASGI -------------------------------------------------------------------------------------------------
    async def asgi(self, scope: dict[str, Any], receive: Callable[[], Awaitable[dict[str, Any]]],
                   send: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        """An ASGI application (HTTP only): POST anywhere."""
        if scope["type"] != "http":
            return
        status = 405
        if scope.get("method") == "POST":
            chunks: list[bytes] = []
            size, status = 0, 0
            while True:
                message = await receive()
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > self.max_body_bytes:
                    status = 413
                    break
                chunks.append(chunk)
                if not message.get("more_body", False):
                    break
            if status == 0:
                status = self.receive(b"".join(chunks), scope.get("headers", []))
        await send({"type": "http.response.start", "status": status, "headers": [(b"content-length", b"0")]})
        await send({"type": "http.response.body", "body": b""})


_STATUS_LINES = {204: "204 No Content", 400: "400 Bad Request", 405: "405 Method Not Allowed",
                 413: "413 Content Too Large", 500: "500 Internal Server Error"}
