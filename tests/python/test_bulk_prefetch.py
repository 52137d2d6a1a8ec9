"""Pipelined paging from Python (Client(prefetch_pages=...)): the next page is requested while the current one
is read, switching it off restores fetch-on-demand, dropping an iterator with a prefetch in flight neither
hangs nor leaks (even with a logging handler that needs the GIL), and Ctrl-C stops a wait for a prefetched
page."""

from __future__ import annotations

import _thread
import gc
import json
import logging
import subprocess
import sys
import threading
import time
from datetime import timedelta

import pytest

import trunk_api
from trunk_api import Repo

from conftest import NOW, WEEK_START
from scripted_server import Received, Reply, ScriptedServer

TOKEN = "prefetch-test-token"


def listing_calls(box: trunk_api.Sandbox) -> int:
    return sum(1 for r in box.requests if r.path.endswith("list-failing-tests"))


def wait_until(condition, seconds: float = 10.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def test_the_next_page_is_requested_while_the_current_one_is_read(box: trunk_api.Sandbox, repo: Repo) -> None:
    expected = [t.id for t in box.client(prefetch_pages=False).iter_failing_tests(
        repo, box.org_url_slug, WEEK_START, NOW, page_size=5)]
    box.clear_requests()
    iterator = box.client().iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=5)
    first = next(iterator)
    assert len(expected) > 3 * 5
    # While we hold page 1: page 2 is prefetched, and page 3 read ahead as soon as page 2's answer is in.
    assert wait_until(lambda: listing_calls(box) == 3)
    time.sleep(0.1)
    assert listing_calls(box) == 3  # and no further
    got = [first.id]
    got += [test.id for test in iterator]  # continues after `first`
    assert got == expected  # same tests, same order
    assert listing_calls(box) == -(-len(expected) // 5)  # and not one request more


def test_switched_off_pages_are_fetched_on_demand(box: trunk_api.Sandbox, repo: Repo) -> None:
    iterator = box.client(prefetch_pages=False).iter_failing_tests(repo, box.org_url_slug, WEEK_START, NOW, page_size=5)
    next(iterator)
    time.sleep(0.2)
    assert listing_calls(box) == 1


def test_prefetch_pages_must_be_a_bool(box: trunk_api.Sandbox) -> None:
    with pytest.raises(trunk_api.ValidationError) as caught:
        box.client(prefetch_pages="yes")
    assert [v.field for v in caught.value.errors] == ["prefetch_pages"]


def test_dropping_an_iterator_with_a_prefetch_in_flight_returns(caplog: pytest.LogCaptureFixture) -> None:
    with trunk_api.Sandbox(tests=300, latency_ms=300) as slow:
        caplog.set_level(logging.DEBUG, logger="trunk_api")  # the prefetch thread logs through Python
        iterator = slow.client().iter_failing_tests(slow.repos[0], slow.org_url_slug,
                                                    slow.now - timedelta(days=7), slow.now, page_size=5)
        next(iterator)  # page 2 is now on its way, 300 ms from arriving
        del iterator
        gc.collect()  # cancels and joins the prefetch (with the GIL released while joining)
        seen = [record.getMessage() for record in caplog.records]
        time.sleep(0.6)  # past the 300 ms answer: a prefetch still running would log it now
        assert [record.getMessage() for record in caplog.records] == seen
        assert not any("HTTP 200" in message for message in seen[1:]), seen  # page 2 never completed


READ_AHEAD_DROPPED = """
import logging, sys, time
from datetime import timedelta
import trunk_api
logging.basicConfig(level=logging.DEBUG, stream=sys.stderr)  # the engine thread logs through Python
with trunk_api.Sandbox(tests=300, latency_ms=300) as slow:
    iterator = slow.client().iter_failing_tests(slow.repos[0], slow.org_url_slug,
                                                slow.now - timedelta(days=7), slow.now, page_size=5)
    next(iterator)   # page 2 is prefetched; once it is in (300 ms), page 3 is read ahead on the engine thread
    time.sleep(0.45)
    del iterator     # the Client's last reference, with page 3 in flight: its cancellation is logged
print("returned")
"""


def test_dropping_the_last_reference_with_a_read_ahead_in_flight_returns() -> None:
    # The Client's engine thread logs the cancelled read-ahead through Python while the Client is destroyed; the
    # destructor must not hold the GIL while it waits for that thread. A child process, so that a deadlock is a
    # failed test and not a hung run.
    result = subprocess.run([sys.executable, "-c", READ_AHEAD_DROPPED], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "returned"
    assert "cancelled" in result.stderr  # the read-ahead was in flight and was cancelled, not waited out


@pytest.mark.usefixtures("sigint_as_in_a_terminal")
def test_ctrl_c_while_waiting_for_a_prefetched_page() -> None:
    release = threading.Event()
    first = {"page": {"next_page_token": "p2"}, "tests": [{"id": "00000000-0000-4000-8000-000000000001"}]}

    def respond(request: Received) -> Reply:
        if json.loads(request.body)["page_query"].get("page_token"):
            release.wait(30)  # page 2 hangs
        return Reply(200, first)

    with ScriptedServer(responder=respond) as server:
        iterator = trunk_api.Client(TOKEN, server.url, max_retries=0).iter_failing_tests(
            "github.com/a/b", "org", "2026-11-13T00:00:00Z", "2026-11-14T00:00:00Z")
        next(iterator)
        timer = threading.Timer(0.3, _thread.interrupt_main)
        timer.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                next(iterator)
        finally:
            timer.cancel()
            release.set()
