"""The trunk-api command line's configuration and failure exit codes (3 authentication, 5 rate limited /
server / network, 130 interrupted), and the command run as a program: `python -m trunk_api`, the installed
`trunk-api` script, output into a closed pipe, and the `sandbox` subcommand stopped by SIGINT or SIGTERM."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

import trunk_api
from trunk_api import Sandbox
from trunk_api.cli import main

from cli_support import (  # noqa: F401  (fixtures are used by name)
    WRONG_TOKEN, cli, expected_failing_ids, free_port_nobody_listens_on, installed_script, one_line_error,
    program_env, read_banner, sandbox, sandbox_command, target, window,
)


# ---- configuration and failures -------------------------------------------------------------------------------

def test_wrong_token_exits_3_and_never_prints_it(cli, target, monkeypatch):
    monkeypatch.setenv("TRUNK_API_TOKEN", WRONG_TOKEN)
    run = cli("unhealthy", *target)
    assert run.code == 3 and run.out == ""
    assert "401" in one_line_error(run)


def test_token_option_works_and_warns_without_echoing_it(cli, sandbox, target, monkeypatch):
    monkeypatch.delenv("TRUNK_API_TOKEN")
    run = cli("unhealthy", *target, "--token", sandbox.token, "--max-results", "1")
    assert run.code == 0
    assert "TRUNK_API_TOKEN" in run.err  # the warning suggests the environment variable instead


def test_token_from_trunk_api_key(cli, sandbox, target, monkeypatch):
    monkeypatch.delenv("TRUNK_API_TOKEN")
    monkeypatch.setenv("TRUNK_API_KEY", sandbox.token)
    assert cli("unhealthy", *target, "--max-results", "1").code == 0


def test_base_url_with_the_version_and_trunk_api_key(cli, sandbox, target, monkeypatch):
    """The publisher's spelling of both variables, as `trunk-api sandbox` prints them."""
    monkeypatch.delenv("TRUNK_API_TOKEN")
    monkeypatch.setenv("TRUNK_API_KEY", sandbox.token)
    monkeypatch.setenv("TRUNK_BASE_URL", sandbox.url + "/v1")
    assert cli("unhealthy", *target, "--max-results", "1").code == 0
    assert cli("unhealthy", *target, "--base-url", sandbox.url + "/v1/", "--max-results", "1").code == 0
    assert {r.path for r in sandbox.requests if "unhealthy" in r.path} == {"/v1/flaky-tests/list-unhealthy-tests"}


def test_missing_token_is_a_configuration_error(cli, target, monkeypatch):
    monkeypatch.delenv("TRUNK_API_TOKEN")
    run = cli("unhealthy", *target)
    assert run.code == 2
    assert "TRUNK_API_TOKEN" in one_line_error(run)


def test_base_url_option_overrides_the_environment(cli, sandbox, target, monkeypatch):
    monkeypatch.setenv("TRUNK_BASE_URL", f"http://127.0.0.1:{free_port_nobody_listens_on()}")
    assert cli("unhealthy", *target, "--base-url", sandbox.url, "--max-results", "1").code == 0


def test_server_errors_exit_5(cli, target, monkeypatch):
    with Sandbox(seed=5, tests=50, error_rate=1.0) as failing_sandbox:
        monkeypatch.setenv("TRUNK_BASE_URL", failing_sandbox.url)
        monkeypatch.setenv("TRUNK_API_TOKEN", failing_sandbox.token)
        repo = failing_sandbox.repos[0]
        run = cli("unhealthy", "--repo", f"{repo.host}/{repo.owner}/{repo.name}", "--org",
                  failing_sandbox.org_url_slug, "--max-retries", "0")
        assert failing_sandbox.token not in run.err
    assert run.code == 5
    assert "503" in one_line_error(run)


def test_retries_are_logged_with_verbose(cli, target, monkeypatch):
    with Sandbox(seed=5, tests=50, error_rate=1.0) as failing_sandbox:
        monkeypatch.setenv("TRUNK_BASE_URL", failing_sandbox.url)
        monkeypatch.setenv("TRUNK_API_TOKEN", failing_sandbox.token)
        repo = failing_sandbox.repos[0]
        run = cli("unhealthy", "--repo", f"{repo.host}/{repo.owner}/{repo.name}", "--org",
                  failing_sandbox.org_url_slug, "--max-retries", "1", "-v")
        assert failing_sandbox.token not in run.err
        assert len(failing_sandbox.requests) == 2
    assert run.code == 5
    assert "INFO" in run.err  # the retry
    assert run.err.strip().splitlines()[-1].startswith("trunk-api: error:")


def test_verbose_leaves_the_library_logger_as_it_found_it(cli, target):
    logger = logging.getLogger("trunk_api")
    before = (logger.level, list(logger.handlers))
    assert cli("failing", *target, "--since", "1h", "-vv").code == 0
    assert (logger.level, list(logger.handlers)) == before


def test_rate_limited_exits_5_and_says_when_to_retry(cli, monkeypatch):
    # One request per 100 s: the first passes, the second is answered 429 with Retry-After.
    with Sandbox(seed=5, tests=50, rate_limit=0.01) as limited:
        monkeypatch.setenv("TRUNK_BASE_URL", limited.url)
        monkeypatch.setenv("TRUNK_API_TOKEN", limited.token)
        repo = limited.repos[0]
        argv = ["queue", "update", "--repo", f"{repo.host}/{repo.owner}/{repo.name}", "--branch", "main",
                "--max-retries", "0"]
        assert cli(*argv).code == 0
        run = cli(*argv)
        assert limited.token not in run.err
    assert run.code == 5 and run.out == ""
    message = one_line_error(run)
    assert "429" in message and "retry after" in message


@pytest.mark.usefixtures("sigint_as_in_a_terminal")
def test_ctrl_c_interrupts_a_blocked_call_with_exit_130(sandbox, target):
    # A server that reads the request and never answers: once it has the request, the CLI is blocked in the
    # call, and Ctrl-C must end it (exit 0 would mean it waited for an answer, which never comes).
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(30)
        url = f"http://127.0.0.1:{server.getsockname()[1]}"
        process = subprocess.Popen(
            [sys.executable, "-m", "trunk_api", "unhealthy", *target, "--base-url", url, "--timeout", "120"],
            env=program_env(sandbox, sandbox.token), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            connection, _ = server.accept()
            with connection:
                connection.settimeout(30)
                assert b"list-unhealthy-tests" in connection.recv(65536)
                process.send_signal(signal.SIGINT)
                out, err = process.communicate(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert process.returncode == 130
    assert out == "" and err.strip() == "trunk-api: interrupted"


def test_unreachable_service_exits_5(cli, target):
    dead = f"http://127.0.0.1:{free_port_nobody_listens_on()}"
    run = cli("unhealthy", *target, "--base-url", dead, "--max-retries", "0")
    assert run.code == 5 and run.out == ""
    one_line_error(run)


# ---- as a program --------------------------------------------------------------------------------------------

def test_python_dash_m_trunk_api(sandbox, target):
    result = subprocess.run([sys.executable, "-m", "trunk_api", "failing", *target, *window(sandbox)],
                            env=program_env(sandbox, sandbox.token), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    ids = [json.loads(line)["id"] for line in result.stdout.splitlines()]
    assert ids == expected_failing_ids(sandbox)
    assert sandbox.token not in result.stdout + result.stderr


def test_installed_script_reports_a_wrong_token_in_one_line(sandbox, target):
    script = installed_script()
    result = subprocess.run([str(script), "unhealthy", *target], env=program_env(sandbox, WRONG_TOKEN),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 3
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert WRONG_TOKEN not in result.stderr


def test_output_into_a_closed_pipe_is_not_an_error(sandbox, target):
    command = [sys.executable, "-m", "trunk_api", "failing", *target, *window(sandbox, hours=24 * 7)]
    with subprocess.Popen(command, env=program_env(sandbox, sandbox.token), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.readline()
        process.stdout.close()  # like `| head -1`
        err = process.stderr.read().decode()
        assert process.wait(timeout=60) == 0
    assert "Traceback" not in err


def test_sandbox_command_serves_until_interrupted(cli, monkeypatch):
    with sandbox_command("--tests", "120", "--seed", "9") as process:
        printed = read_banner(process)
        assert printed["TRUNK_BASE_URL"].startswith("http://127.0.0.1:")
        monkeypatch.setenv("TRUNK_BASE_URL", printed["TRUNK_BASE_URL"])
        monkeypatch.setenv("TRUNK_API_TOKEN", printed["TRUNK_API_TOKEN"])
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["unhealthy", "--repo", printed["repo"], "--org", printed["org"], "--format", "json"])
        assert code == 0, err.getvalue()
        assert json.loads(out.getvalue())

        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
        assert process.stderr is not None and "Traceback" not in process.stderr.read()


def test_sandbox_command_stops_on_sigterm():
    with sandbox_command("--tests", "50") as process:
        read_banner(process)
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0


def test_sandbox_command_injects_rate_limited_answers_with_the_given_retry_after():
    with sandbox_command("--tests", "40", "--rate-limited-rate", "1", "--rate-limited-retry-after", "3") as process:
        printed = read_banner(process)
        client = trunk_api.Client(base_url=printed["TRUNK_BASE_URL"], token=printed["TRUNK_API_TOKEN"], max_retries=0)
        with pytest.raises(trunk_api.RateLimitError) as caught:
            client.list_unhealthy_tests(printed["repo"], printed["org"], "flaky")
        assert caught.value.retry_after == 3
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0


def test_sandbox_command_listens_on_the_port_given():
    with socket.socket() as probe:  # a port that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with sandbox_command("--tests", "30", "--port", str(port)) as process:
        printed = read_banner(process)
        assert printed["TRUNK_BASE_URL"] == f"http://127.0.0.1:{port}/v1"  # the publisher's spelling
        assert printed["TRUNK_API_KEY"] == printed["TRUNK_API_TOKEN"]
        client = trunk_api.Client(base_url=printed["TRUNK_BASE_URL"], token=printed["TRUNK_API_TOKEN"])
        assert client.list_unhealthy_tests(printed["repo"], printed["org"], "flaky").page is not None
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0


def test_sandbox_command_sends_webhooks_to_the_url_given():
    """`trunk-api sandbox --webhook URL` prints the endpoint's secret; the moving queue's events reach the URL,
    signed with it."""
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    from trunk_api.webhooks import PullRequestEvent, Receiver

    class Quiet(WSGIRequestHandler):
        def log_message(self, format, *args):  # noqa: A002
            pass

    events: list[PullRequestEvent] = []
    receivers: list[Receiver] = []

    def app(environ, start_response):
        return receivers[0].wsgi(environ, start_response)

    server = make_server("127.0.0.1", 0, app, handler_class=Quiet)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/hook"
        with sandbox_command("--tests", "30", "--clock", "virtual", "--webhook", url,
                             "--webhook-duplicate-rate", "0") as process:
            printed = read_banner(process)
            receivers.append(Receiver(printed["webhook_secret"], lambda event, _: events.append(event)))
            client = trunk_api.Client(base_url=printed["TRUNK_BASE_URL"], token=printed["TRUNK_API_TOKEN"])
            client.submit_pull_request(printed["repo"], 77, "main")
            deadline = time.monotonic() + 30
            while not events and time.monotonic() < deadline:
                time.sleep(0.05)
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=30) == 0
    finally:
        server.shutdown()
        server.server_close()
    assert events and events[0].pr_number == 77 and str(events[0].action) == "submitted"
