"""A WSGI app served on 127.0.0.1:0 in a thread, for the tests that receive the sandbox's webhooks."""

from __future__ import annotations

import threading
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


class Served:
    """Serves `app` until close(); its URL ends in /hooks."""

    def __init__(self, app: Any) -> None:
        self.server: WSGIServer = make_server("127.0.0.1", 0, app, handler_class=_Quiet)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}/hooks"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)
