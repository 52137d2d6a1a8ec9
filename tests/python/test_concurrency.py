"""The GIL is released during network calls (threads sharing one Client overlap; a Python-thread server can
answer), and Ctrl-C interrupts a blocked call with KeyboardInterrupt."""

from __future__ import annotations

import _thread
import signal
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

import trunk_api
from trunk_api import Repo

from scripted_server import Received, Reply, ScriptedServer

UUID = "0f3c6a8e-5b7d-4c1e-9a2f-3b4c5d6e7f80"
TOKEN = "concurrency-test-token"


def test_thread_pool_sharing_one_client(box: trunk_api.Sandbox, client: trunk_api.Client, repo: Repo) -> None:
    ids = box.test_ids(repo)[:40]
    expected = [client.get_test_details(repo, box.org_url_slug, test_id) for test_id in ids]
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(lambda test_id: client.get_test_details(repo, box.org_url_slug, test_id), ids))
    assert got == expected


def test_calls_overlap_in_time() -> None:
    """Four calls only finish if all four are inside the server at once: impossible if the GIL were held."""
    barrier = threading.Barrier(4, timeout=20)

    def respond(request: Received) -> Reply:
        barrier.wait()  # raises BrokenBarrierError (-> 500, test fails) unless 4 requests are in flight
        return Reply(200, {"test": {"id": UUID}})

    with ScriptedServer(responder=respond) as server:
        client = trunk_api.Client(TOKEN, server.url, max_retries=0)
        with ThreadPoolExecutor(max_workers=4) as pool:
            results = list(pool.map(lambda _: client.get_test_details("github.com/a/b", "org", UUID), range(4)))
    assert [r.id for r in results] == [UUID] * 4


def _blocking_server(release: threading.Event) -> ScriptedServer:
    def respond(request: Received) -> Reply:
        release.wait(30)
        return Reply(200, {"test": {"id": UUID}})

    return ScriptedServer(responder=respond)


@pytest.mark.usefixtures("sigint_as_in_a_terminal")
@pytest.mark.parametrize("how", ["interrupt_main", "pthread_kill"])
def test_ctrl_c_interrupts_a_blocked_call(how: str) -> None:
    release = threading.Event()
    with _blocking_server(release) as server:
        client = trunk_api.Client(TOKEN, server.url, max_retries=0, timeout=60)
        main = threading.main_thread().ident
        assert main == threading.get_ident()

        def interrupt() -> None:
            if how == "interrupt_main":
                _thread.interrupt_main()
            else:
                signal.pthread_kill(main, signal.SIGINT)

        timer = threading.Timer(0.3, interrupt)
        timer.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                client.get_test_details("github.com/a/b", "org", UUID)
        finally:
            timer.cancel()
            release.set()
        # The client is still usable afterwards.
        assert client.get_test_details("github.com/a/b", "org", UUID).id == UUID


@pytest.mark.usefixtures("sigint_as_in_a_terminal")
def test_ctrl_c_interrupts_iteration() -> None:
    release = threading.Event()
    with _blocking_server(release) as server:
        iterator = trunk_api.Client(TOKEN, server.url, max_retries=0).iter_failing_tests(
            "github.com/a/b", "org", "2026-11-13T00:00:00Z", "2026-11-14T00:00:00Z")
        timer = threading.Timer(0.3, _thread.interrupt_main)
        timer.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                iterator.to_list()
        finally:
            timer.cancel()
            release.set()


@pytest.mark.usefixtures("sigint_as_in_a_terminal")
def test_ctrl_c_interrupts_a_retry_wait() -> None:
    with ScriptedServer([Reply(429, "wait", {"Retry-After": "30"})]) as server:
        client = trunk_api.Client(TOKEN, server.url, max_retries=3)
        timer = threading.Timer(0.3, _thread.interrupt_main)
        timer.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                client.get_test_details("github.com/a/b", "org", UUID)
        finally:
            timer.cancel()
    assert len(server.received) == 1


def test_sandbox_in_a_worker_thread_while_main_thread_runs_python(box: trunk_api.Sandbox, repo: Repo) -> None:
    """The main thread runs Python while a worker's call waits on the sandbox. The call is slowed by injected
    latency so that it is surely still in flight when the main thread looks: 20 fast calls used to finish before
    the main thread was first scheduled, which proved nothing and failed once in CI."""
    test_id = box.test_ids(repo)[0]
    client = box.client()
    box.set_faults(latency_ms=1000)
    in_call = threading.Event()
    call_returned = False

    def work() -> None:
        nonlocal call_returned
        in_call.set()
        client.get_test_details(repo, box.org_url_slug, test_id)
        call_returned = True

    worker = threading.Thread(target=work)
    worker.start()
    in_call.wait(10)
    ran_during_the_call = 0
    while not call_returned:  # Python bytecode on the main thread while the worker is inside C++
        ran_during_the_call += 1
    worker.join()
    assert ran_during_the_call > 0
