"""The Ctrl-C tests pass however the suite was started (issue 14). A shell starting a job in the background
(`scripts/test &`, `nohup scripts/test &`) makes it ignore SIGINT, and the job's children inherit that; the
tests that press Ctrl-C set the disposition they need themselves (conftest.sigint_as_in_a_terminal). Here they
run in a pytest started with SIGINT ignored, as such a shell starts it."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Every test that interrupts a call with SIGINT (or _thread.interrupt_main, which is a no-op when SIGINT is
# ignored), and the sandbox command, which stops on SIGINT by design however it was started.
CTRL_C_TESTS = [
    "tests/python/test_concurrency.py::test_ctrl_c_interrupts_a_blocked_call",  # two parameters
    "tests/python/test_concurrency.py::test_ctrl_c_interrupts_iteration",
    "tests/python/test_concurrency.py::test_ctrl_c_interrupts_a_retry_wait",
    "tests/python/test_bulk.py::test_ctrl_c_interrupts_a_bulk_call",
    "tests/python/test_bulk_prefetch.py::test_ctrl_c_while_waiting_for_a_prefetched_page",
    "tests/python/test_fork.py::test_sigint_interrupts_a_long_call_in_another_process",
    "tests/python/test_cli_program.py::test_ctrl_c_interrupts_a_blocked_call_with_exit_130",
    "tests/python/test_cli_program.py::test_sandbox_command_serves_until_interrupted",
]


def _run_ignoring_sigint(command: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
    """`command` started the way a background job is: with SIGINT ignored (inherited across exec)."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    finally:
        signal.signal(signal.SIGINT, previous)
    try:
        out, _ = child.communicate(timeout=timeout)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return subprocess.CompletedProcess(command, child.returncode, out, None)


def test_a_background_start_really_ignores_sigint() -> None:
    """The set-up below is the real thing: a child started this way has SIGINT ignored."""
    probe = "import signal; print(signal.getsignal(signal.SIGINT) == signal.SIG_IGN)"  # an int or a Handlers member
    assert _run_ignoring_sigint([sys.executable, "-c", probe], 60).stdout.strip() == "True"


def test_the_ctrl_c_tests_pass_in_a_suite_started_in_the_background() -> None:
    result = _run_ignoring_sigint([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *CTRL_C_TESTS],
                                  timeout=300)
    assert result.returncode == 0, result.stdout
    assert f"{len(CTRL_C_TESTS) + 1} passed" in result.stdout, result.stdout  # +1: the parametrized test's second case
