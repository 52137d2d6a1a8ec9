"""`trunk-api webhooks listen`: a local endpoint that verifies webhook deliveries and prints their events.

For debugging a subscription or a sender: it is :class:`trunk_api.webhooks.Receiver` (verification in the C++
core, de-duplication by svix-id) behind the standard library's WSGI server, on 127.0.0.1 by default.
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import threading
import time
import wsgiref.simple_server
from typing import IO, Any

from trunk_api import _cli_output as render
from trunk_api import webhooks
from trunk_api._cli_common import UsageError

SECRET_VARIABLE = "TRUNK_WEBHOOK_SECRET"
COLUMNS = ("RECEIVED", "SVIX-ID", "TYPE", "SUBJECT")
WIDTHS = (20, 28, 38, 0)


def add_command(commands: Any) -> None:
    """Adds `webhooks listen` to the command line's subcommands."""
    group = commands.add_parser("webhooks", help="receive and verify webhook deliveries",
                                description="Receive Trunk's webhook deliveries locally, for debugging.")
    sub = group.add_subparsers(dest="webhooks_command", metavar="COMMAND", required=True)
    listen = sub.add_parser(
        "listen", help="verify deliveries on a local port and print their events",
        description="Listen for webhook deliveries (POST, any path), verify their signatures with the endpoint's "
                    "secret, answer 204 (or 400 with the reason, also printed on stderr) and print every new "
                    "event: a table on a terminal, one JSON object per line otherwise. Retries of a delivery "
                    "(same svix-id) are answered but printed once. Ctrl-C stops.")
    listen.add_argument("--port", type=int, default=0, help="port (default 0: any free port, printed on stderr)")
    listen.add_argument("--host", default="127.0.0.1", help="address to listen on (default %(default)s)")
    listen.add_argument("--secret", default=None, metavar="WHSEC",
                        help=f"the endpoint's signing secret (whsec_...); default ${SECRET_VARIABLE}, which is "
                             "better: a command line shows up in ps and shell history")
    listen.add_argument("--format", choices=("table", "ndjson"), default=None,
                        help="output (default: table on a terminal, else ndjson)")
    listen.add_argument("--max-events", type=int, default=None, metavar="N", help="stop after N new events")
    listen.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="stop after this long (default: never)")
    listen.set_defaults(handler=run)


class _QuietHandler(wsgiref.simple_server.WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the standard library's name
        pass  # one line per event is printed instead; access logs would only repeat it


def _subject(event: Any) -> str:
    if isinstance(event, webhooks.PullRequestEvent):
        where = f" {event.repository.owner}/{event.repository.name}" if event.repository else ""
        return f"PR #{event.pr_number}{where} -> {event.target_branch or '?'}"
    test_case = getattr(event, "test_case", None)
    if test_case is not None and test_case.name:
        return str(test_case.name)
    return "-"


class _Printer:
    def __init__(self, out: IO[str], fmt: str) -> None:
        self.out = out
        self.fmt = fmt
        self.count = 0
        self.lock = threading.Lock()

    def __call__(self, event: Any, message_id: str) -> None:
        with self.lock:
            self.count += 1
            if self.fmt == "ndjson":
                render.write_json_object(self.out, {"svix_id": message_id, "type": str(event.type),
                                                    "event": event.to_dict()}, pretty=False)
            else:
                if self.count == 1:
                    self._row(COLUMNS)
                received = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
                self._row((received, message_id, str(event.type), _subject(event)))
            self.out.flush()

    def _row(self, cells: tuple[str, ...]) -> None:
        self.out.write("  ".join(cell.ljust(width) if width else cell for cell, width in zip(cells, WIDTHS)).rstrip()
                       + "\n")


def run(ctx: Any) -> int:
    args = ctx.args
    secret = args.secret if args.secret is not None else os.environ.get(SECRET_VARIABLE)
    if not secret:
        raise UsageError(f"no webhook secret: set {SECRET_VARIABLE} or pass --secret")
    fmt = args.format or ("table" if render.isatty(ctx.stdout) else "ndjson")
    printer = _Printer(ctx.stdout, fmt)

    def refused(error: webhooks.WebhookVerificationError) -> None:
        print(f"trunk-api webhooks: refused: {error}", file=ctx.stderr, flush=True)

    receiver = webhooks.Receiver(webhooks.WebhookSecret(secret), printer, on_refused=refused)
    stop = threading.Event()
    previous: dict[signal.Signals, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for number in (signal.SIGINT, signal.SIGTERM):
            previous[number] = signal.signal(number, lambda *_: stop.set())
    deadline = time.monotonic() + args.timeout if args.timeout is not None else None
    try:
        with wsgiref.simple_server.make_server(args.host, args.port, receiver.wsgi,
                                               handler_class=_QuietHandler) as server:
            server.timeout = 0.2  # handle_request returns this often, so the stop conditions are checked
            print(f"trunk-api webhooks: listening on http://{args.host}:{server.server_port}/ (Ctrl-C stops)",
                  file=ctx.stderr,
                  flush=True)
            while not stop.is_set():
                if args.max_events is not None and printer.count >= args.max_events:
                    break
                if deadline is not None and time.monotonic() >= deadline:
                    break
                server.handle_request()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    print(f"trunk-api webhooks: stopped after {printer.count} event(s)", file=ctx.stderr)
    return 0
