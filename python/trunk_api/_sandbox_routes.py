"""A client of the queue-control routes of a sandbox that is already running, maybe in another process
(docs/sandbox.md, "Staging exact situations"): ``GET``/``PUT /sandbox/queues/controls`` and ``POST
/sandbox/queues/pull-requests/{number}/script``.

A :class:`trunk_api.Sandbox` started in this process changes its queues directly, through the C++ core; a
sandbox started elsewhere is only reachable over HTTP, and the C++ client speaks the service's operations, not
these routes. So this sends them with the standard library. It checks nothing of what it sends: the sandbox
does, and its refusal (400 naming field, value and rule) comes back as the library's own error classes, so the
command line reports it, and chooses its exit code, as it does for the service's.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from trunk_api import errors

#: The library's error of each refusal the routes answer (docs/sandbox.md: 400, 401, 404; a 429 or 503 when the
#: sandbox injects faults); any other status is an ApiError.
_ERRORS_BY_STATUS: dict[int, type[errors.ApiError]] = {
    400: errors.BadRequestError,
    401: errors.AuthenticationError,
    403: errors.PermissionDeniedError,
    404: errors.NotFoundError,
    429: errors.RateLimitError,
}


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """The sandbox never redirects; following one would send the token to wherever it points."""

    def redirect_request(self, *args: Any) -> None:
        return None


#: No proxy either: a sandbox binds 127.0.0.1, where a proxy from the environment could only get in the way,
#: and would see the token.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirects())


class SandboxRoutes:
    """The control routes of the sandbox at ``base_url`` (without ``/v1``), sending ``token`` as ``x-api-token``.
    Each call answers the queue's state as the route gives it: ``{"repo", "branch", "controls", "scripts"}``."""

    def __init__(self, base_url: str, token: str, timeout: float) -> None:
        self._base_url = base_url
        self._token = token
        self._timeout = timeout

    def __repr__(self) -> str:  # never the token
        return f"SandboxRoutes(base_url={self._base_url!r})"

    def queue(self, repo: str, branch: str) -> dict[str, Any]:
        """The queue's controls and the scripts not used up yet."""
        return self._send("GET", "/sandbox/queues/controls", repo, branch, None, "read the queue's controls")

    def replace_controls(self, repo: str, branch: str, controls: dict[str, Any]) -> dict[str, Any]:
        """Replaces every control of the queue (absent or null: the sandbox's value)."""
        return self._send("PUT", "/sandbox/queues/controls", repo, branch, controls, "set the queue's controls")

    def script(self, repo: str, branch: str, number: int, script: dict[str, Any]) -> dict[str, Any]:
        """Replaces the script of pull request ``number``."""
        return self._send("POST", f"/sandbox/queues/pull-requests/{number}/script", repo, branch, script,
                          f"script pull request {number}")

    def _send(self, method: str, path: str, repo: str, branch: str, body: dict[str, Any] | None,
              what: str) -> dict[str, Any]:
        query = urllib.parse.urlencode({"repo": repo, "branch": branch})
        url = f"{self._base_url}{path}?{query}"
        request = urllib.request.Request(
            url, method=method, data=None if body is None else json.dumps(body).encode(),
            headers={"x-api-token": self._token, "Content-Type": "application/json", "Accept": "application/json"})
        try:
            with _OPENER.open(request, timeout=self._timeout) as answer:
                text = answer.read().decode("utf-8", errors="replace")
        except urllib.error.HTTPError as refused:
            raise _refusal(refused, what) from None
        except (urllib.error.URLError, OSError) as failure:
            # A timeout comes bare while reading, and as a URLError's reason while connecting.
            reason = getattr(failure, "reason", failure)
            if isinstance(reason, TimeoutError):
                raise errors.RequestTimeout(f"could not {what}: no answer from the sandbox at {self._base_url} "
                                            f"within {self._timeout:g} s") from None
            raise errors.TransportError(f"could not {what}: no sandbox answers at {self._base_url} ({reason}); is "
                                        "it running, and is this the address it printed?") from None
        try:
            state = json.loads(text)
        except ValueError:
            state = None
        if not isinstance(state, dict) or "controls" not in state:
            raise errors.DecodeError(f"could not {what}: {self._base_url} answered something other than a sandbox's "
                                     "queue controls; is this the address the sandbox printed?")
        return state


def _refusal(refused: urllib.error.HTTPError, what: str) -> errors.ApiError:
    """The library's error of a refusal, with the sandbox's one-line reason (it never holds the token)."""
    with refused:
        body = refused.read().decode("utf-8", errors="replace").strip()
    status = refused.code
    cls = _ERRORS_BY_STATUS.get(status, errors.ServerError if status >= 500 else errors.ApiError)
    return cls(f"could not {what}: the sandbox answered {status}: {body or refused.reason}", status, body, what)
