"""Process life: a Client keeps working in a child after os.fork() and under multiprocessing (fork and spawn),
never sharing a connection with its parent; a real SIGINT interrupts a long call in a separate process."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator

import pytest

import trunk_api
from trunk_api import Repo

FORK_TOKEN = "fork-token-7c1d2e3f"
CALLS = 40


@pytest.fixture(scope="module")
def fork_box() -> Iterator[trunk_api.Sandbox]:
    with trunk_api.Sandbox(seed=11, tests=200, token=FORK_TOKEN, now="2026-11-20T12:00:00Z") as box:
        yield box


def _details_match(client: trunk_api.Client, box_url_slug: str, repo: Repo, ids: list[str]) -> bool:
    """Every answer is the details of the id asked for: a connection shared with another process would mix
    up answers (or fail) with retries off."""
    return all(client.get_test_details(repo, box_url_slug, test_id).id == test_id for test_id in ids)


def test_client_works_in_a_forked_child_while_the_parent_keeps_calling(fork_box: trunk_api.Sandbox) -> None:
    repo = fork_box.repos[0]
    ids = fork_box.test_ids(repo)[:CALLS]
    client = fork_box.client(max_retries=0)
    assert client.get_test_details(repo, fork_box.org_url_slug, ids[0]).id == ids[0]  # a warm pooled connection
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no pytest machinery here, only an exit code
        os.close(read_end)
        try:
            ok = _details_match(client, fork_box.org_url_slug, repo, list(reversed(ids)))
            os.write(write_end, b"ok" if ok else b"mismatch")
        except BaseException as error:  # noqa: BLE001 - report anything to the parent
            os.write(write_end, type(error).__name__.encode())
        finally:
            os._exit(0)
    os.close(write_end)
    parent_ok = _details_match(client, fork_box.org_url_slug, repo, ids)  # at the same time as the child
    _, status = os.waitpid(pid, 0)
    with os.fdopen(read_end, "rb") as pipe:
        child_said = pipe.read().decode()
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    assert child_said == "ok"
    assert parent_ok
    assert _details_match(client, fork_box.org_url_slug, repo, ids[:5])  # the parent's client is still sound


# Workers of the multiprocessing tests: module-level so that the spawn start method can import them.
_inherited: dict[str, object] = {}


def _inherited_worker(test_id: str) -> str:
    client = _inherited["client"]
    assert isinstance(client, trunk_api.Client)
    return client.get_test_details(_inherited["repo"], _inherited["org"], test_id).id  # type: ignore[arg-type]


def _pickled_worker(args: tuple[trunk_api.Client, str, str, str]) -> str:
    client, repo, org, test_id = args
    return client.get_test_details(repo, org, test_id).id


def test_multiprocessing_fork_children_use_the_inherited_client(fork_box: trunk_api.Sandbox) -> None:
    repo = fork_box.repos[0]
    ids = fork_box.test_ids(repo)[:CALLS]
    client = fork_box.client(max_retries=0)
    client.get_test_details(repo, fork_box.org_url_slug, ids[0])  # warm connection inherited by every child
    _inherited.update(client=client, repo=str(repo), org=fork_box.org_url_slug)
    try:
        with multiprocessing.get_context("fork").Pool(3) as pool:
            answered = pool.map(_inherited_worker, ids, chunksize=4)
    finally:
        _inherited.clear()
    assert answered == ids
    assert client.get_test_details(repo, fork_box.org_url_slug, ids[1]).id == ids[1]


def test_multiprocessing_spawn_children_get_a_pickled_client_and_the_token_from_the_environment(
        fork_box: trunk_api.Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = fork_box.repos[0]
    ids = fork_box.test_ids(repo)[:8]
    client = fork_box.client(max_retries=0)
    monkeypatch.setenv("TRUNK_API_TOKEN", FORK_TOKEN)  # the pickle never carries the token: children read it here
    work = [(client, str(repo), fork_box.org_url_slug, test_id) for test_id in ids]
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        answered = pool.map(_pickled_worker, work)
    assert answered == ids


_SLOW_CALL = textwrap.dedent("""
    import os, trunk_api
    with trunk_api.Sandbox(tests=50, latency_ms=60_000, now="2026-11-20T12:00:00Z") as box:
        repo = box.repos[0]
        client = box.client(timeout=120, max_retries=0)
        print("calling", flush=True)
        try:
            client.get_test_details(repo, box.org_url_slug, box.test_ids(repo)[0])
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            os._exit(130)  # not sys.exit: stopping the sandbox would wait for its sleeping handler
        print("finished", flush=True)
""")


@pytest.mark.usefixtures("sigint_as_in_a_terminal")
def test_sigint_interrupts_a_long_call_in_another_process() -> None:
    """Like a user pressing Ctrl-C: a real SIGINT from outside, during a call the server answers only after a
    minute. The process must leave the call with KeyboardInterrupt (not wait for the answer)."""
    child = subprocess.Popen([sys.executable, "-c", _SLOW_CALL], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "calling"
        timer = threading.Timer(0.5, child.send_signal, args=(signal.SIGINT,))
        timer.start()
        # Generous bound so a loaded machine cannot fail the test; the server would answer after 60 s.
        out, err = child.communicate(timeout=30)
        timer.cancel()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 130, err
    assert out.strip() == "interrupted"
