"""The exceptions of trunk_api. They mirror the C++ hierarchy (trunk/error.hpp) one to one; the C++ core
raises them through an exception translator, with messages built in C++ that never contain the token.

    TrunkError
    ├── MissingTokenError                        no token given, none in the environment (.variables)
    ├── ValidationError (also ValueError)        a request broke a rule; nothing was sent (.errors)
    ├── DecodeError                              a response could not be read (.path)
    ├── PaginationError                          the server broke the paging protocol
    ├── BulkError                                some ids of a bulk call failed (.results, .errors)
    ├── WebhookVerificationError (also ValueError)  a webhook delivery was refused (.reason)
    ├── TransportError (also ConnectionError)    no HTTP answer
    │   └── RequestTimeout (also TimeoutError)
    └── ApiError                                 non-2xx answer (.status_code, .body, .operation, .code, .request_id)
        ├── BadRequestError        400
        ├── AuthenticationError    401
        ├── PermissionDeniedError  403
        ├── NotFoundError          404
        ├── ConflictError          409
        ├── RateLimitError         429 (.retry_after)
        └── ServerError            5xx
"""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = [
    "ApiError",
    "AuthenticationError",
    "BadRequestError",
    "BulkError",
    "ConflictError",
    "DecodeError",
    "MissingTokenError",
    "NotFoundError",
    "PaginationError",
    "PermissionDeniedError",
    "RateLimitError",
    "RequestTimeout",
    "ServerError",
    "TransportError",
    "TrunkError",
    "ValidationError",
    "Violation",
    "WebhookVerificationError",
]


class TrunkError(Exception):
    """Base class of every error raised by trunk_api."""


class MissingTokenError(TrunkError):
    """No credential for what was asked (docs/reference/credentials.md).

    ``needed`` says which: ``"any"`` when the client was made with neither a token nor an API key (and none is
    in the environment variables ``variables``); ``"token"`` when ``operation``, a v1 operation, needs v1's
    organization token; ``"api_key"`` when ``operation``, a v2 operation, needs a v2 API key (``trunk_v2_...``).
    A call raises it before anything is sent."""

    def __init__(self, variables: tuple[str, ...], needed: str = "any", operation: str = "") -> None:
        self.variables = tuple(variables)
        self.needed = needed
        self.operation = operation
        first, *others = self.variables
        alternatives = f" (or {', '.join(others)})" if others else ""
        if needed == "api_key":
            message = (f"{operation} is an operation of Trunk's v2 API, which needs an API key (trunk_v2_...): "
                       f"pass Client(api_key=...) or set the {first} environment variable "
                       "(v2 refuses v1's organization token)")
        elif needed == "token":
            message = (f"{operation} is an operation of Trunk's v1 API, which needs the organization token: "
                       f"pass Client(token=...) or set the {first}{alternatives} environment variable "
                       "(v1 refuses v2 API keys)")
        else:
            message = ("no credential: pass Client(token=...) (v1's organization token) or Client(api_key=...) "
                       f"(a v2 key, trunk_v2_...), or set the {first}{alternatives} environment variable")
        super().__init__(message)

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.variables, self.needed, self.operation))


@dataclasses.dataclass(frozen=True)
class Violation:
    """One broken rule: the field (wire path), its value rendered as text, and the rule it broke."""

    field: str
    value: str
    rule: str

    def __str__(self) -> str:
        return f"{self.field}: {self.value}: {self.rule}"


class ValidationError(TrunkError, ValueError):
    """A request broke one or more rules; nothing was sent. ``errors`` lists every violation."""

    def __init__(self, message: str, errors: list[Violation] | None = None) -> None:
        super().__init__(message)
        self.errors: list[Violation] = list(errors or [])

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (str(self), self.errors))


class DecodeError(TrunkError):
    """A response could not be read. ``path`` is the JSON path of the bad value ("" for the document)."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.path = path

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (str(self), self.path))


class PaginationError(TrunkError):
    """The server broke the paging protocol (for example it handed back a page token twice)."""


class TransportError(TrunkError, ConnectionError):
    """No HTTP answer: connection refused or reset, truncated body, TLS failure..."""


class RequestTimeout(TransportError, TimeoutError):
    """An attempt, or the overall deadline across retries, ran out of time."""


class ApiError(TrunkError):
    """The server answered with a non-2xx status.

    ``status_code``, ``body`` (the raw body, bounded) and ``operation`` (the call, e.g. ``"get_queue"``) are always
    there. ``code`` is the machine code of Trunk v2's error envelope (``{"error": {"code": ..., "message": ...}}``),
    such as ``"QUEUE_ALREADY_EXISTS"`` or ``"INVALID_CURSOR"`` (new codes may appear), and ``""`` when the body is
    no envelope (v1's plain text, a 429 from the edge). ``request_id`` is the answer's ``X-Request-Id``, ``""``
    when it had none: quote it when asking Trunk's support about the call."""

    def __init__(
        self,
        message: str,
        status_code: int = 0,
        body: str = "",
        operation: str = "",
        *,
        code: str = "",
        request_id: str = "",
    ) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.body = body
        self.operation = operation
        self.code = code
        self.request_id = request_id

    def __reduce__(self) -> tuple[object, ...]:
        # code and request_id are keywords: they travel as state, set after the positional construction.
        return (type(self), (str(self), self.status_code, self.body, self.operation),
                {"code": self.code, "request_id": self.request_id})


class BadRequestError(ApiError):
    """400: the server rejected the request."""


class AuthenticationError(ApiError):
    """401: the token is missing or wrong."""


class PermissionDeniedError(ApiError):
    """403: the credential sent (token or API key) lacks a permission the operation needs."""


class NotFoundError(ApiError):
    """404: unknown repository, organization or test id."""


class ConflictError(ApiError):
    """409: what the request creates exists already (``create_queue`` of a branch that has a queue)."""


class RateLimitError(ApiError):
    """429: too many requests. ``retry_after`` is the wait in seconds the server asked for, if it said."""

    def __init__(
        self,
        message: str,
        status_code: int = 429,
        body: str = "",
        operation: str = "",
        retry_after: float | None = None,
        *,
        code: str = "",
        request_id: str = "",
    ) -> None:
        super().__init__(message, status_code, body, operation, code=code, request_id=request_id)
        self.retry_after = retry_after

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (str(self), self.status_code, self.body, self.operation, self.retry_after),
                {"code": self.code, "request_id": self.request_id})


class ServerError(ApiError):
    """5xx: the server failed."""


class BulkError(TrunkError):
    """Some inputs of a bulk call (``Client.get_test_details_many``) failed after their retries.

    Raised only once every input has finished, so nothing fetched is lost: ``results`` holds one entry per
    input, in input order (the value, or None where that input failed), and ``errors`` maps the index of every
    failed input to its exception (a :class:`NotFoundError`, :class:`RateLimitError`, ...).
    """

    def __init__(self, message: str, results: list[Any], errors: dict[int, Exception]) -> None:
        super().__init__(message)
        self.results = results
        self.errors = errors

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.args[0], self.results, self.errors))


class WebhookVerificationError(TrunkError, ValueError):
    """A webhook delivery was refused (``trunk_api.webhooks.verify``); nothing in it should be processed.

    ``reason`` says why, one of: ``missing_header``, ``malformed_header``, ``bad_secret_format``,
    ``timestamp_outside_tolerance``, ``bad_signature``, ``malformed_body``. The message never contains the
    secret or the body.
    """

    def __init__(self, message: str, reason: str = "bad_signature") -> None:
        super().__init__(message)
        self.reason = reason

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (str(self), self.reason))
