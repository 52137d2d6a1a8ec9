"""A tiny HTTP server on a Python thread (127.0.0.1, port 0) that answers with scripted responses.

Used where the sandbox never answers a certain way (403, 400 from the server, bad JSON, a repeated page
token) and to prove that the Client releases the GIL: this server runs Python code, so a Client that kept
the GIL while waiting for it would deadlock.
"""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: bytes | str | dict[str, Any] | list[Any] = b""
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


Responder = Callable[[Received], Reply]


class ScriptedServer:
    """Answers each POST (or GET) with the next scripted Reply (the last one repeats), or with `responder(request)`.
    With `tls`, it serves HTTPS with that context (the handshake happens as a connection is accepted; one that
    fails ends that connection only)."""

    def __init__(self, replies: list[Reply] | None = None, responder: Responder | None = None,
                 tls: ssl.SSLContext | None = None) -> None:
        self.replies = list(replies or [])
        self.responder = responder
        self.received: list[Received] = []
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length", "0"))
                request = Received(self.path, {k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length))
                reply = owner._reply(request)
                body = reply.body
                if isinstance(body, (dict, list)):
                    body = json.dumps(body).encode()
                elif isinstance(body, str):
                    body = body.encode()
                self.send_response(reply.status)
                content_type = "application/json" if reply.status == 200 else "text/plain"
                for name, value in {"Content-Type": content_type, **reply.headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST  # noqa: N815 - getMergeQueueMetrics, the one GET (its path keeps the query)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep test output quiet
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._scheme = "https" if tls else "http"
        if tls:
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    def _reply(self, request: Received) -> Reply:
        with self._lock:
            self.received.append(request)
            if self.responder is None:
                return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        return self.responder(request)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"{self._scheme}://{host}:{port}"

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
