"""A webhook bot that gives a pull request failed by a flaky test a second chance, and what it does to the merge
queue's throughput: a simulated day of pull requests on the sandbox's virtual clock, without the bot and with it,
on the same seed.

    python3 examples/flaky_restart_bot.py                  # a day, one pull request every 6 minutes
    python3 examples/flaky_restart_bot.py --hours 6 --seed 3
    python3 examples/flaky_restart_bot.py --every 5 --concurrency 6  # more than the queue can take

The bot (FlakyRestartBot) is a webhook receiver: trunk_api.webhooks.Receiver verifies each delivery's signature,
drops the ones it has seen (same svix-id) and hands each new event to the bot. On ``pull_request.failed`` the
bot submits the pull request again, alone (``no_batch=True``), once. A failure caused by a flaky test does not
repeat on a new run, so that pull request usually merges on the retry; a genuinely broken one fails again and
is left alone (the bot remembers what it re-submitted). Nothing here is specific to the sandbox: point a real
Trunk webhook endpoint at the receiver and give the bot a Client with a real token.

The queue tests each pull request alone (batching off, its default; --batch turns it on), with a testing
concurrency of 10, enough for one pull request every 6 minutes: the queue keeps up, so what it merges per hour
is what arrives times the share that merges, which the bot raises. When more arrives than the queue can test
(--every 5 --concurrency 6), the bot's retries take slots from new pull requests: more merge in the end, not
more per hour. See docs/guides/webhook-bot.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

from trunk_api import Client, Repo, Sandbox
from trunk_api.webhooks import PullRequestEvent, Receiver, WebhookEventType, WebhookSecret

#: Where the simulated day starts (fixed, so that a seed gives the same numbers on any day).
START = datetime(2026, 11, 2, 8, 0, tzinfo=timezone.utc)
BRANCH = "main"
TERMINAL = {"merged", "failed", "canceled"}


class FlakyRestartBot:
    """On ``pull_request.failed``: submit that pull request again, alone, unless it was re-submitted before."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.resubmitted: list[int] = []  # pull request numbers, in the order re-submitted
        self._done: set[tuple[Repo, str, int]] = set()
        self._lock = threading.Lock()  # a receiver may run its handler on several threads

    def __call__(self, event: Any, message_id: str) -> None:
        if not isinstance(event, PullRequestEvent) or event.type != WebhookEventType.PULL_REQUEST_FAILED:
            return
        key = pull_request_of(event)
        if key is None:
            return  # a payload without its pull request's coordinates: nothing to act on
        with self._lock:
            if key in self._done:
                return  # failed again after its retry: most likely broken, left for a human
            self._done.add(key)
        repo, branch, number = key
        try:
            self.client.submit_pull_request(repo, number, branch, no_batch=True)
        except Exception:
            with self._lock:
                self._done.discard(key)  # the Receiver answers 500: the delivery is retried, and so is this
            raise
        self.resubmitted.append(number)


def pull_request_of(event: PullRequestEvent) -> tuple[Repo, str, int] | None:
    """(repository, target branch, number) of a merge queue event; None when the payload lacks one of them
    (the models are tolerant: a missing field reads as None)."""
    where, branch, number = event.repository, event.target_branch, event.pr_number
    if where is None or where.host is None or where.owner is None or where.name is None:
        return None
    if branch is None or number is None:
        return None
    return Repo(where.host, where.owner, where.name), branch, number


@dataclasses.dataclass
class Outcome:
    """One simulated run: what the queue concluded, and what the receiver saw."""

    bot: bool
    submitted: int  #: pull requests submitted by the "developers" (the bot's re-submissions not counted)
    merged: int  #: pull requests merged
    failed: int  #: pull requests whose last word was pull_request.failed
    hours: float  #: simulated hours, until every pull request had concluded
    resubmitted: list[int]  #: what the bot re-submitted (empty without the bot)
    #: (pull request, action, time on the sandbox clock) of every pull_request.* event, in arrival order
    events: list[tuple[int, str, datetime]]
    deliveries: int  #: delivery attempts the sandbox logged
    delivery_statuses: set[int]  #: the HTTP statuses the receiver answered

    @property
    def merged_per_hour(self) -> float:
        return self.merged / self.hours

    @property
    def merged_on_retry(self) -> int:
        merged = {number for number, action, _ in self.events if action == "merged"}
        return len(merged.intersection(self.resubmitted))


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """A WSGI application on 127.0.0.1 (a free port) in a thread, for the length of the block: its URL."""
    server = make_server("127.0.0.1", 0, app, handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/trunk-webhooks"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def simulate(*, bot: bool, seed: int = 7, hours: float = 24, every_minutes: int = 6, step_minutes: int = 1,
             flaky_failure_rate: float = 0.15, broken_pull_request_rate: float = 0.05, concurrency: int = 10,
             batch: bool = False, max_drain_hours: float = 12) -> Outcome:
    """Submits a pull request every ``every_minutes`` for ``hours`` of the virtual clock, advancing it
    ``step_minutes`` at a time (the bot reacts within one step), then lets the queue finish; ``concurrency``
    and ``batch`` are the queue's settings."""
    with Sandbox(seed=seed, tests=100, now=START, clock="virtual", flaky_failure_rate=flaky_failure_rate,
                 broken_pull_request_rate=broken_pull_request_rate) as sandbox:
        # The clients live in _day() and close their connections when it returns, so the sandbox stops at once.
        return _day(sandbox, bot=bot, hours=hours, every_minutes=every_minutes, step_minutes=step_minutes,
                    concurrency=concurrency, batch=batch, max_drain_hours=max_drain_hours)


def _day(sandbox: Sandbox, *, bot: bool, hours: float, every_minutes: int, step_minutes: int, concurrency: int,
         batch: bool, max_drain_hours: float) -> Outcome:
    client = sandbox.client()
    repo = sandbox.repos[0]
    client.update_queue(repo, BRANCH, concurrency=concurrency, batch=batch)
    restart = FlakyRestartBot(sandbox.client()) if bot else None
    events: list[tuple[int, str, datetime]] = []
    last_action: dict[int, str] = {}

    def handle(event: Any, message_id: str) -> None:
        if isinstance(event, PullRequestEvent):
            assert event.pr_number is not None and event.timestamp is not None  # the sandbox sends both
            events.append((event.pr_number, str(event.action), event.timestamp))
            last_action[event.pr_number] = str(event.action)
        if restart is not None:
            restart(event, message_id)

    secret = WebhookSecret.generate()
    with serving(Receiver(secret, handle).wsgi) as url:
        sandbox.add_webhook(url, secret=secret)
        submitted, minute = 0, 0
        while minute < hours * 60:
            if minute % every_minutes == 0:
                submitted += 1
                client.submit_pull_request(repo, submitted, BRANCH)
            sandbox.advance(minutes=step_minutes)  # returns once what fell due was delivered (and handled)
            minute += step_minutes
        # Then until every pull request has concluded (a re-submission is a new "submitted" before it does).
        while any(action not in TERMINAL for action in last_action.values()) and \
                minute < (hours + max_drain_hours) * 60:
            sandbox.advance(minutes=step_minutes)
            minute += step_minutes
    deliveries = sandbox.webhook_deliveries
    finals = list(last_action.values())
    return Outcome(bot=bot, submitted=submitted, merged=finals.count("merged"), failed=finals.count("failed"),
                   hours=minute / 60, resubmitted=restart.resubmitted if restart else [], events=events,
                   deliveries=len(deliveries), delivery_statuses={d.status for d in deliveries})


def run(**options: Any) -> tuple[Outcome, Outcome]:
    """The same simulated day without the bot and with it (``options``: those of :func:`simulate`)."""
    return simulate(bot=False, **options), simulate(bot=True, **options)


def table(without: Outcome, with_bot: Outcome) -> str:
    rows = [("", "without bot", "with bot")]
    for label, pick in (("pull requests submitted", lambda o: o.submitted),
                        ("re-submitted by the bot", lambda o: len(o.resubmitted)),
                        ("  of which merged on the retry", lambda o: o.merged_on_retry),
                        ("merged", lambda o: o.merged),
                        ("failed (for good)", lambda o: o.failed),
                        ("simulated hours", lambda o: f"{o.hours:.1f}"),
                        ("merged per simulated hour", lambda o: f"{o.merged_per_hour:.2f}"),
                        ("webhook deliveries (all 2xx)", lambda o: f"{o.deliveries} ({all_2xx(o)})")):
        rows.append((label, str(pick(without)), str(pick(with_bot))))
    return "\n".join(f"{a:<30} {b:>12} {c:>12}" for a, b, c in rows)


def all_2xx(outcome: Outcome) -> str:
    return "yes" if all(200 <= status < 300 for status in outcome.delivery_statuses) else "NO"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--hours", type=float, default=24, help="simulated hours of submissions (default 24)")
    parser.add_argument("--every", type=int, default=6, help="minutes between submissions (default 6)")
    parser.add_argument("--flaky", type=float, default=0.15, help="share of test runs failed by a flaky test")
    parser.add_argument("--broken", type=float, default=0.05, help="share of pull requests genuinely broken")
    parser.add_argument("--concurrency", type=int, default=10, help="the queue's testing concurrency (default 10)")
    parser.add_argument("--batch", action="store_true", help="batching on, with the queue's default batch settings")
    args = parser.parse_args()
    without, with_bot = run(seed=args.seed, hours=args.hours, every_minutes=args.every,
                            flaky_failure_rate=args.flaky, broken_pull_request_rate=args.broken,
                            concurrency=args.concurrency, batch=args.batch)
    print(f"seed {args.seed}: a pull request every {args.every} min for {args.hours:g} h, "
          f"{args.flaky:.0%} of runs flaky, {args.broken:.0%} of pull requests broken, "
          f"concurrency {args.concurrency}, batching {'on' if args.batch else 'off'}")
    print(table(without, with_bot))
    gain = with_bot.merged_per_hour / without.merged_per_hour - 1
    print(f"with the bot: {with_bot.merged - without.merged:+d} merged, {gain:+.1%} merged per hour")
    return 0


if __name__ == "__main__":
    sys.exit(main())
