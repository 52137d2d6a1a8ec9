"""Scenario 11 of benchmarks/run.py (issue 29): the sandbox keeps up with its queue. A simulated day of pull
requests on the virtual clock, every event delivered to a local receiver that verifies each signature, then
checks: none lost, none unsigned, duplicates only where the fault options asked for them, in order per pull
request.

The receiver (CountingReceiver) speaks just enough HTTP/1.1 over a plain socket to keep up with the sender's
kept-alive connection; each delivery is verified with trunk_api.webhooks.verify against a WebhookSecret parsed
once, and recorded in arrival order.
"""

from __future__ import annotations

import dataclasses
import socket
import threading
import time
from collections import defaultdict
from datetime import datetime, timezone
from typing import Any

from trunk_api import Sandbox, WebhookVerificationError
from trunk_api.webhooks import PullRequestEvent, WebhookSecret, verify

START = datetime(2026, 11, 2, 0, 0, tzinfo=timezone.utc)  # a fixed day: a seed gives the same events
DAY_MINUTES = 24 * 60
TERMINAL = {"merged", "failed", "canceled"}


@dataclasses.dataclass(frozen=True)
class Arrival:
    message_id: str
    event_type: str
    pr_number: int | None  # pull_request.* events
    action: str | None
    at: datetime | None  # the transition's time on the sandbox clock (the payload's timestamp)


class CountingReceiver:
    """Verifies and records every delivery; answers 204, or 400 to one that does not verify (counted).

    HTTP/1.1 over plain sockets, one thread per connection, reading only what a delivery needs (the request
    line, the headers, Content-Length bytes of body): the sandbox's sender keeps its connection alive, so one
    thread serves the whole day. The standard library's ThreadingHTTPServer did the same at a quarter of the rate
    (its header parsing cost about 0.6 ms a delivery), which measured http.server rather than the sandbox."""

    def __init__(self, secret: WebhookSecret) -> None:
        self.secret = secret
        self.arrivals: list[Arrival] = []
        self.refused: list[str] = []  # the reasons of the deliveries that did not verify
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._threads = [threading.Thread(target=self._accept, daemon=True)]
        self._threads[0].start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/webhooks"

    def receive(self, body: bytes, headers: list[tuple[str, str]]) -> int:
        try:
            event = verify(body, headers, self.secret)
        except WebhookVerificationError as error:
            with self._lock:
                self.refused.append(str(error.reason))
            return 400
        message_id = next(value for name, value in headers if name.lower() == "svix-id")
        if isinstance(event, PullRequestEvent):
            arrival = Arrival(message_id, str(event.type), event.pr_number, str(event.action), event.timestamp)
        else:
            arrival = Arrival(message_id, str(event.type), None, None, None)
        with self._lock:
            self.arrivals.append(arrival)
        return 204

    def close(self) -> None:
        self._listener.shutdown(socket.SHUT_RDWR)  # wakes accept()
        self._listener.close()
        self._threads[0].join(timeout=10)

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(connection,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, connection: socket.socket) -> None:
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        pending = b""
        with connection:
            while True:
                while b"\r\n\r\n" not in pending:
                    chunk = connection.recv(65536)
                    if not chunk:
                        return  # the sender closed the connection
                    pending += chunk
                head, pending = pending.split(b"\r\n\r\n", 1)
                headers = [_header(line) for line in head.decode("latin-1").split("\r\n")[1:]]
                length = int(next((value for name, value in headers if name.lower() == "content-length"), "0"))
                while len(pending) < length:
                    chunk = connection.recv(65536)
                    if not chunk:
                        return
                    pending += chunk
                body, pending = pending[:length], pending[length:]
                status = self.receive(body, headers)
                connection.sendall(_ANSWERS[status])


_ANSWERS = {204: b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n",
            400: b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"}


def _header(line: str) -> tuple[str, str]:
    name, _, value = line.partition(":")
    return name.strip(), value.strip()


def out_of_order(arrivals: list[Arrival]) -> list[str]:
    """The pull requests whose events did not arrive in their life's order: submitted first; each testing after
    a queued; one conclusion, last; the transitions' times never going back. First arrivals only (a duplicate
    comes again later, as Svix's do)."""
    seen: set[str] = set()
    lives: dict[int, list[Arrival]] = defaultdict(list)
    for arrival in arrivals:
        if arrival.message_id in seen or arrival.pr_number is None:
            continue
        seen.add(arrival.message_id)
        lives[arrival.pr_number].append(arrival)
    wrong = []
    for number, life in lives.items():
        actions = [a.action for a in life]
        queued = False
        ok = actions[0] == "submitted" and actions[-1] in TERMINAL
        ok = ok and sum(action in TERMINAL for action in actions) == 1
        ok = ok and all(a.at is not None and b.at is not None and a.at <= b.at for a, b in zip(life, life[1:]))
        for action in actions:
            if action == "queued":
                queued = True
            elif action == "testing":
                ok = ok and queued
                queued = False
        if not ok:
            wrong.append(f"#{number}: {' '.join(str(a) for a in actions)}")
    return wrong


@dataclasses.dataclass
class DayResult:
    pull_requests: int
    events: int  # deliveries received
    logged: int  # delivery attempts in the sandbox's log
    seconds: float  # wall time of the simulated day (submitting, advancing, delivering)
    checks: dict[str, bool]
    problems: list[str]

    @property
    def per_second(self) -> float:
        return self.events / self.seconds


def deliver_day(pull_requests: int, *, seed: int = 11, duplicate_rate: float = 0.0, jitter_ms: int = 0) -> DayResult:
    """``pull_requests`` submitted evenly over one simulated day (a few flaky and broken ones, so that some fail
    and some are tested again), the clock advanced a minute at a time, every event delivered."""
    secret = WebhookSecret.generate()
    receiver = CountingReceiver(secret)
    try:
        with Sandbox(seed=seed, tests=100, now=START, clock="virtual", flaky_failure_rate=0.03,
                     broken_pull_request_rate=0.005, webhook_duplicate_rate=duplicate_rate,
                     webhook_jitter_ms=jitter_ms, fault_seed=seed, record_requests=False) as sandbox:
            started = time.perf_counter()
            logged = _run_day(sandbox, receiver, secret, pull_requests)
            seconds = time.perf_counter() - started
    finally:
        receiver.close()
    return _check(pull_requests, receiver, logged, seconds, duplicate_rate > 0)


def _run_day(sandbox: Sandbox, receiver: CountingReceiver, secret: WebhookSecret, pull_requests: int) -> list[Any]:
    client = sandbox.client()
    repo = sandbox.repos[0]
    # Batches of 8 (or what waited 10 minutes), enough testing slots for them (a run takes about 15 minutes):
    # the queue keeps up, so the day ends with every pull request concluded.
    client.update_queue(repo, "main", concurrency=8, batch=True, batching_min_size=8,
                        batching_max_wait_time_minutes=10)
    sandbox.add_webhook(receiver.url, secret=secret)
    submitted = 0
    for minute in range(DAY_MINUTES + 120):  # the day, and two hours for the last ones to conclude
        while submitted < pull_requests and submitted * DAY_MINUTES < minute * pull_requests:
            submitted += 1
            client.submit_pull_request(repo, submitted, "main")
        sandbox.advance(minutes=1)
    return sandbox.webhook_deliveries


def _check(pull_requests: int, receiver: CountingReceiver, logged: list[Any], seconds: float,
           duplicates_asked: bool) -> DayResult:
    arrivals = receiver.arrivals
    received_ids = [a.message_id for a in arrivals]
    logged_ids = [d.message_id for d in logged]
    repeated = len(received_ids) - len(set(received_ids))
    duplicates_logged = [d for d in logged if d.duplicate]
    problems: list[str] = []
    concluded = {a.pr_number for a in arrivals if a.action in TERMINAL}
    checks = {
        # Every attempt the sandbox logged reached the receiver and was answered 2xx: nothing lost on the way.
        "none lost": (len(arrivals) == len(logged) and all(d.succeeded for d in logged)
                      and sorted(received_ids) == sorted(logged_ids) and len(concluded) == pull_requests),
        "none unsigned": not receiver.refused,
        # An svix-id arrives twice exactly when the sandbox sent a duplicate of it, and only if asked to.
        "duplicates only as asked": (repeated == len(duplicates_logged) and (repeated > 0) == duplicates_asked
                                     and {d.message_id for d in duplicates_logged} <= set(received_ids)),
        "in order per pull request": not out_of_order(arrivals),
    }
    if receiver.refused:
        problems.append(f"{len(receiver.refused)} refused, e.g. {receiver.refused[0]}")
    if len(arrivals) != len(logged) or len(concluded) != pull_requests:
        problems.append(f"{len(arrivals)} received, {len(logged)} logged, {len(concluded)} of {pull_requests} "
                        "pull requests concluded")
    problems += out_of_order(arrivals)[:5]
    return DayResult(pull_requests, len(arrivals), len(logged), seconds, checks, problems)
