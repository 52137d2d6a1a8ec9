"""The trunk-api command line against the in-process sandbox: every subcommand, every output format, every
exit code, the token kept out of all output, and --help everywhere.

Most tests call trunk_api.cli.main(argv) in-process (fast); a few run `python -m trunk_api` and the installed
`trunk-api` script as subprocesses, since that is how people use it.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from trunk_api import Sandbox
from trunk_api.cli import CSV_COLUMNS, main

WRONG_TOKEN = "cli-test-wrong-token-7f3a9"


class _Terminal(io.StringIO):
    """A StringIO that says it is a terminal (to test the table default and the progress line)."""

    def isatty(self) -> bool:
        return True


class Run:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def lines(self) -> list[str]:
        return [line for line in self.out.splitlines() if line]

    def ndjson(self) -> list[dict]:
        return [json.loads(line) for line in self.lines()]


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(seed=5, tests=600, switching_modes_seconds=0.2) as sb:
        yield sb


@pytest.fixture()
def cli(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch):
    """Runs main(argv) with the sandbox's address and token in the environment (as users configure it) and
    checks that the token appears in neither stdout nor stderr."""
    monkeypatch.setenv("TRUNK_BASE_URL", sandbox.url)
    monkeypatch.setenv("TRUNK_API_TOKEN", sandbox.token)
    monkeypatch.delenv("TRUNK_API_KEY", raising=False)

    def run(*argv: str, stdout: io.StringIO | None = None, stderr: io.StringIO | None = None) -> Run:
        out = stdout if stdout is not None else io.StringIO()
        err = stderr if stderr is not None else io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(argv))
        result = Run(code, out.getvalue(), err.getvalue())
        for secret in (sandbox.token, WRONG_TOKEN):
            assert secret not in result.out and secret not in result.err
        assert "Traceback" not in result.err
        return result

    return run


@pytest.fixture()
def target(sandbox: Sandbox) -> list[str]:
    repo = sandbox.repos[0]
    return ["--repo", f"{repo.host}/{repo.owner}/{repo.name}", "--org", sandbox.org_url_slug]


def window(sandbox: Sandbox, hours: float = 24) -> list[str]:
    end = sandbox.now
    return ["--start", (end - dt.timedelta(hours=hours)).isoformat(), "--end", end.isoformat()]


def last_body(sandbox: Sandbox, path_end: str) -> dict:
    bodies = [r.body for r in sandbox.requests if r.path.endswith(path_end)]
    assert bodies, f"no request to {path_end}"
    return bodies[-1]


def expected_failing_ids(sandbox: Sandbox, hours: float = 24) -> list[str]:
    end = sandbox.now
    tests = sandbox.client().iter_failing_tests(sandbox.repos[0], sandbox.org_url_slug,
                                                end - dt.timedelta(hours=hours), end)
    return [t.id for t in tests]


def one_line_error(run: Run) -> str:
    lines = run.err.strip().splitlines()
    assert len(lines) == 1, run.err
    assert lines[0].startswith("trunk-api")
    return lines[0]


def free_port_nobody_listens_on() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---- failing -------------------------------------------------------------------------------------------------

def test_failing_ndjson_is_the_default_off_a_terminal_and_matches_the_library(cli, sandbox, target):
    run = cli("failing", *target, *window(sandbox))
    assert run.code == 0 and run.err == ""
    rows = run.ndjson()
    assert [row["id"] for row in rows] == expected_failing_ids(sandbox)
    assert len(rows) > 100  # more than one page of 100
    assert {"name", "status", "failure_rate_last_24h", "most_common_failures"} <= set(rows[0])


def test_failing_json_is_one_array_of_wire_objects(cli, sandbox, target):
    run = cli("failing", *target, *window(sandbox), "--format", "json")
    assert run.code == 0
    rows = json.loads(run.out)
    assert isinstance(rows, list)
    assert [row["id"] for row in rows] == expected_failing_ids(sandbox)


def test_failing_json_of_an_empty_window_is_an_empty_array(cli, sandbox, target):
    long_ago = sandbox.now - dt.timedelta(days=400)
    run = cli("failing", *target, "--start", long_ago.isoformat(),
              "--end", (long_ago + dt.timedelta(hours=1)).isoformat(), "--format", "json")
    assert run.code == 0
    assert json.loads(run.out) == []


def test_failing_csv_has_flat_columns(cli, sandbox, target):
    run = cli("failing", *target, *window(sandbox), "--format", "csv")
    assert run.code == 0
    reader = csv.DictReader(io.StringIO(run.out))
    assert tuple(reader.fieldnames or ()) == CSV_COLUMNS
    rows = list(reader)
    assert [row["id"] for row in rows] == expected_failing_ids(sandbox)
    for row in rows:
        assert 0.0 <= float(row["failure_rate_last_24h"]) <= 1.0
        assert row["quarantined"] in ("true", "false")
        dt.datetime.fromisoformat(row["status_timestamp"])
        assert isinstance(json.loads(row["most_common_failures"]), list)


def test_failing_table_is_the_default_on_a_terminal_with_progress_on_stderr(cli, sandbox, target):
    out, err = _Terminal(), _Terminal()
    run = cli("failing", *target, *window(sandbox), stdout=out, stderr=err)
    assert run.code == 0
    ids = expected_failing_ids(sandbox)
    lines = run.lines()
    assert lines[0].split()[:3] == ["NAME", "STATUS", "FAIL"]
    assert lines[-1] == f"{len(ids)} failing tests"
    assert len(lines) == len(ids) + 2
    assert all(line.rstrip().endswith(test_id) for line, test_id in zip(lines[1:-1], ids))
    assert f"fetched {len(ids)} of {len(ids)} failing tests" in run.err


def test_no_progress_when_stderr_is_not_a_terminal(cli, sandbox, target):
    run = cli("failing", *target, *window(sandbox), "--format", "table")
    assert run.code == 0 and run.err == ""


def test_max_results_stops_early_without_fetching_more_pages(cli, sandbox, target):
    expected = expected_failing_ids(sandbox)[:7]
    sandbox.clear_requests()
    run = cli("failing", *target, *window(sandbox), "--page-size", "5", "--max-results", "7")
    assert run.code == 0
    assert [row["id"] for row in run.ndjson()] == expected
    pages = [r for r in sandbox.requests if r.path.endswith("list-failing-tests")]
    assert len(pages) == 2  # 5 + 2 of the second page; the third page is never asked for
    assert all(page.body["page_query"]["page_size"] == 5 for page in pages)


@pytest.mark.parametrize("since, delta", [("30m", dt.timedelta(minutes=30)), ("24h", dt.timedelta(hours=24)),
                                          ("7d", dt.timedelta(days=7)), ("1w", dt.timedelta(weeks=1))])
def test_since_sends_a_window_of_that_length_ending_now(cli, sandbox, target, since, delta):
    before = dt.datetime.now(dt.timezone.utc)
    run = cli("failing", *target, "--since", since, "--max-results", "1")
    assert run.code == 0
    body = last_body(sandbox, "list-failing-tests")
    start, end = (dt.datetime.fromisoformat(body[k]) for k in ("start_time", "end_time"))
    assert end - start == delta
    assert before - dt.timedelta(seconds=1) <= end <= dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=1)


def test_default_window_is_the_last_24_hours(cli, sandbox, target):
    assert cli("failing", *target, "--max-results", "1").code == 0
    body = last_body(sandbox, "list-failing-tests")
    start, end = (dt.datetime.fromisoformat(body[k]) for k in ("start_time", "end_time"))
    assert end - start == dt.timedelta(hours=24)


def test_a_window_longer_than_7_days_is_a_validation_error_naming_the_rule(cli, sandbox, target):
    run = cli("failing", *target, "--since", "8d")
    assert run.code == 2 and run.out == ""
    message = one_line_error(run)
    assert "7 days" in message and "end_time" in message


def test_exactly_7_days_passes_and_one_microsecond_more_fails(cli, sandbox, target):
    end = sandbox.now
    ok = cli("failing", *target, "--start", (end - dt.timedelta(days=7)).isoformat(), "--end", end.isoformat(),
             "--max-results", "1")
    assert ok.code == 0
    too_long = cli("failing", *target, "--start", (end - dt.timedelta(days=7, microseconds=1)).isoformat(),
                   "--end", end.isoformat())
    assert too_long.code == 2


@pytest.mark.parametrize("argv, fragment", [
    (["--since", "yesterday"], "invalid duration"),
    (["--since", "24h", "--start", "2024-01-01T00:00:00Z"], "not allowed with"),
    (["--end", "2024-01-01T00:00:00Z"], "--end needs --start"),
    (["--start", "not a time"], "start_time"),
    (["--page-size", "0"], "page_size"),
    (["--page-size", "101"], "page_size"),
    (["--max-results", "-1"], "max_results"),
])
def test_bad_arguments_exit_2_with_one_line(cli, target, argv, fragment):
    run = cli("failing", *target, *argv)
    assert run.code == 2 and run.out == ""
    assert fragment in one_line_error(run)


def test_missing_required_option_is_a_usage_error(cli, sandbox):
    run = cli("failing", "--org", sandbox.org_url_slug)
    assert run.code == 2
    assert "--repo" in one_line_error(run)


def test_unknown_repository_exits_4(cli, sandbox):
    run = cli("failing", "--repo", "github.com/nobody/nothing", "--org", sandbox.org_url_slug)
    assert run.code == 4
    one_line_error(run)


# ---- unhealthy -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("status", ["flaky", "BROKEN"])
def test_unhealthy_lists_the_status_asked_for(cli, sandbox, target, status):
    run = cli("unhealthy", *target, "--status", status, "--format", "json")
    assert run.code == 0
    rows = json.loads(run.out)
    assert rows and {row["status"]["value"] for row in rows} == {status.lower()}
    assert all("failure_rate_last_7d" not in row for row in rows)  # the unhealthy listing omits it
    assert last_body(sandbox, "list-unhealthy-tests")["status"] == status.upper()


def test_unhealthy_defaults_to_flaky_and_prints_a_table(cli, sandbox, target):
    run = cli("unhealthy", *target, "--format", "table")
    assert run.code == 0
    assert run.lines()[0].split()[:2] == ["NAME", "STATUS"]
    assert run.lines()[-1].endswith("unhealthy tests")
    assert last_body(sandbox, "list-unhealthy-tests")["status"] == "FLAKY"


def test_unhealthy_csv_and_ndjson_agree(cli, target):
    ndjson = cli("unhealthy", *target, "--status", "broken", "--format", "ndjson").ndjson()
    rows = list(csv.DictReader(io.StringIO(cli("unhealthy", *target, "--status", "broken", "--format", "csv").out)))
    assert [row["id"] for row in rows] == [row["id"] for row in ndjson]
    assert {row["failure_rate_last_7d"] for row in rows} == {""}  # absent, not zero


def test_unhealthy_with_an_unknown_status_exits_2(cli, target):
    run = cli("unhealthy", *target, "--status", "sideways")
    assert run.code == 2
    assert "status" in one_line_error(run)


# ---- test ----------------------------------------------------------------------------------------------------

@pytest.fixture()
def test_id(sandbox: Sandbox) -> str:
    return expected_failing_ids(sandbox)[0]


def test_test_details_as_json(cli, sandbox, target, test_id):
    run = cli("test", test_id, *target)
    assert run.code == 0
    details = json.loads(run.out)  # json is the default for one object off a terminal
    assert details["id"] == test_id
    assert isinstance(details["most_common_failures"], list)
    assert last_body(sandbox, "get-test-details")["test_id"] == test_id


def test_test_details_as_a_table_shows_the_most_common_failures(cli, sandbox, target, test_id):
    expected = sandbox.client().get_test_details(sandbox.repos[0], sandbox.org_url_slug, test_id)
    run = cli("test", test_id, *target, stdout=_Terminal())
    assert run.code == 0
    assert f"name:" in run.out and expected.name in run.out and test_id in run.out
    assert f"most common failures ({len(expected.most_common_failures or [])})" in run.out
    for failure in expected.most_common_failures or []:
        assert failure.summary[:40] in run.out


def test_test_details_as_csv_and_ndjson(cli, target, test_id):
    rows = list(csv.DictReader(io.StringIO(cli("test", test_id, *target, "--format", "csv").out)))
    assert len(rows) == 1 and rows[0]["id"] == test_id
    lines = cli("test", test_id, *target, "--format", "ndjson").lines()
    assert len(lines) == 1 and json.loads(lines[0])["id"] == test_id


def test_unknown_test_id_exits_4(cli, target):
    run = cli("test", "00000000-0000-4000-8000-000000000000", *target)
    assert run.code == 4 and run.out == ""
    assert "404" in one_line_error(run)


def test_malformed_test_id_exits_2_without_a_request(cli, sandbox, target):
    sandbox.clear_requests()
    run = cli("test", "not-a-uuid", *target)
    assert run.code == 2
    assert "test_id" in one_line_error(run)
    assert sandbox.requests == []


# ---- queue update --------------------------------------------------------------------------------------------

def queue_args(sandbox: Sandbox, branch: str) -> list[str]:
    repo = sandbox.repos[0]
    return ["queue", "update", "--repo", f"{repo.host}/{repo.owner}/{repo.name}", "--branch", branch]


def test_queue_pause_sends_only_the_state(cli, sandbox):
    run = cli(*queue_args(sandbox, "cli-pause"), "--state", "paused")
    assert run.code == 0
    settings = json.loads(run.out)
    assert settings["state"] == "paused" and settings["branch"] == "cli-pause"
    body = last_body(sandbox, "updateQueue")
    assert set(body) == {"repo", "targetBranch", "state"}


def test_queue_every_setting_goes_on_the_wire_in_camel_case(cli, sandbox):
    run = cli(*queue_args(sandbox, "cli-all"), "--state", "draining", "--mode", "parallel", "--concurrency", "5",
              "--bisection-concurrency", "2", "--testing-timeout-minutes", "60", "--pending-failure-depth", "3",
              "--can-optimistically-merge", "--no-batch", "--batching-max-wait-time-minutes", "15",
              "--batching-min-size", "4", "--no-comments-enabled", "--commands-enabled",
              "--create-prs-for-testing-branches", "--direct-merge-mode", "always",
              "--optimization-mode", "bisection_skip_redundant_tests", "--merge-method", "squash",
              "--no-status-check-enabled", "--required-status", "ci/build", "--required-status", "ci/test")
    assert run.code == 0, run.err
    body = last_body(sandbox, "updateQueue")
    body.pop("repo")
    assert body == {
        "targetBranch": "cli-all", "state": "draining", "mode": "parallel", "concurrency": 5,
        "bisectionConcurrency": 2, "testingTimeoutMinutes": 60, "pendingFailureDepth": 3,
        "canOptimisticallyMerge": True, "batch": False, "batchingMaxWaitTimeMinutes": 15, "batchingMinSize": 4,
        "commentsEnabled": False, "commandsEnabled": True, "createPrsForTestingBranches": True,
        "directMergeMode": "always", "optimizationMode": "bisection_skip_redundant_tests",
        "mergeMethod": "squash", "statusCheckEnabled": False, "requiredStatuses": ["ci/build", "ci/test"],
    }
    settings = json.loads(run.out)
    assert settings["concurrency"] == 5 and settings["mergeMethod"] == "squash"
    assert settings["requiredStatuses"] == ["ci/build", "ci/test"]


def test_queue_clear_and_delete_required_statuses_are_different_requests(cli, sandbox):
    assert cli(*queue_args(sandbox, "cli-statuses"), "--clear-required-statuses").code == 0
    body = last_body(sandbox, "updateQueue")
    assert body["requiredStatuses"] == [] and "deleteRequiredStatuses" not in body
    assert cli(*queue_args(sandbox, "cli-statuses"), "--delete-required-statuses").code == 0
    body = last_body(sandbox, "updateQueue")
    assert body["deleteRequiredStatuses"] is True and "requiredStatuses" not in body


def test_queue_required_status_with_delete_is_a_validation_error(cli, sandbox):
    run = cli(*queue_args(sandbox, "cli-statuses"), "--required-status", "ci", "--delete-required-statuses")
    assert run.code == 2
    assert "deleteRequiredStatuses" in one_line_error(run) or "requiredStatuses" in run.err


def test_queue_required_status_with_clear_is_a_usage_error(cli, sandbox):
    run = cli(*queue_args(sandbox, "cli-statuses"), "--required-status", "ci", "--clear-required-statuses")
    assert run.code == 2
    one_line_error(run)


@pytest.mark.parametrize("value, code", [("0", 2), ("1", 0), ("4294967295", 0), ("4294967296", 2), ("-1", 2)])
def test_queue_integer_settings_boundaries(cli, sandbox, value, code):
    run = cli(*queue_args(sandbox, "cli-bounds"), "--concurrency", value)
    assert run.code == code, run.err
    if code == 0:
        assert json.loads(run.out)["concurrency"] == int(value)
    else:
        message = one_line_error(run)
        assert "concurrency" in message and value in message


@pytest.mark.parametrize("flag, value", [("--state", "switching_modes"), ("--state", "asleep"),
                                         ("--mode", "serial"), ("--merge-method", "octopus")])
def test_queue_enum_values_are_validated_by_the_library(cli, sandbox, flag, value):
    run = cli(*queue_args(sandbox, "cli-enums"), flag, value)
    assert run.code == 2
    assert value in one_line_error(run)


def test_queue_with_no_setting_prints_the_current_settings_as_a_table(cli, sandbox):
    assert cli(*queue_args(sandbox, "cli-show"), "--state", "paused").code == 0
    run = cli(*queue_args(sandbox, "cli-show"), stdout=_Terminal())
    assert run.code == 0
    assert "state:" in run.out and "paused" in run.out and "required_statuses:" in run.out
    assert set(last_body(sandbox, "updateQueue")) == {"repo", "targetBranch"}


def test_queue_mode_change_reports_switching_modes(cli, sandbox):
    run = cli(*queue_args(sandbox, "cli-switch"), "--mode", "parallel", "--format", "ndjson")
    assert run.code == 0
    assert json.loads(run.out)["state"] == "switching_modes"


def test_queue_csv(cli, sandbox):
    rows = list(csv.DictReader(io.StringIO(cli(*queue_args(sandbox, "cli-csv"), "--format", "csv").out)))
    assert len(rows) == 1 and rows[0]["branch"] == "cli-csv" and rows[0]["state"]


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


def test_ctrl_c_interrupts_a_slow_call_with_exit_130(sandbox, target):
    with Sandbox(seed=5, tests=50, latency_ms=6_000) as slow:
        repo = slow.repos[0]
        process = subprocess.Popen(
            [sys.executable, "-m", "trunk_api", "unhealthy", "--repo", f"{repo.host}/{repo.owner}/{repo.name}",
             "--org", slow.org_url_slug], env=program_env(slow, slow.token), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 30
            while not slow.requests and time.monotonic() < deadline:  # the request is in flight
                time.sleep(0.05)
            assert slow.requests, "the CLI never reached the sandbox"
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=30)  # exit 0 would mean it waited for the 6 s answer
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


# ---- help ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [[], ["failing"], ["unhealthy"], ["test"], ["queue"], ["queue", "update"],
                                  ["sandbox"]])
def test_help_everywhere(cli, argv):
    run = cli(*argv, "--help")
    assert run.code == 0
    assert run.out.startswith("usage: trunk-api")
    assert run.err == ""


def test_queue_help_lists_every_setting(cli):
    out = cli("queue", "update", "--help").out
    for flag in ("--state", "--concurrency", "--bisection-concurrency", "--testing-timeout-minutes",
                 "--pending-failure-depth", "--can-optimistically-merge", "--batch", "--no-batch",
                 "--batching-max-wait-time-minutes", "--batching-min-size", "--mode", "--comments-enabled",
                 "--commands-enabled", "--create-prs-for-testing-branches", "--direct-merge-mode",
                 "--optimization-mode", "--merge-method", "--status-check-enabled", "--required-status",
                 "--clear-required-statuses", "--delete-required-statuses"):
        assert flag in out


def test_no_subcommand_is_a_usage_error(cli):
    run = cli()
    assert run.code == 2
    one_line_error(run)


# ---- as a program --------------------------------------------------------------------------------------------

def program_env(sandbox: Sandbox, token: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUNK_")}
    env.update(TRUNK_BASE_URL=sandbox.url, TRUNK_API_TOKEN=token)
    return env


def installed_script() -> Path:
    """Where `pip install .` put the trunk-api console script (this interpreter's scripts directory)."""
    candidates = [Path(sysconfig.get_path("scripts")) / "trunk-api", Path(sys.executable).with_name("trunk-api")]
    found = shutil.which("trunk-api")
    if found:
        candidates.append(Path(found))
    for candidate in candidates:
        if candidate.exists():
            return candidate
    raise AssertionError(f"pip install . should have installed the trunk-api script (looked in {candidates})")


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
    process = subprocess.Popen([sys.executable, "-m", "trunk_api", "sandbox", "--tests", "120", "--seed", "9"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        printed: dict[str, str] = {}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            assert line, "the sandbox command ended early: " + (process.stderr.read() if process.stderr else "")
            if line.startswith("export "):
                name, value = line[len("export "):].strip().split("=", 1)
                printed[name] = value
            elif line.startswith("repo:"):
                printed.setdefault("repo", line.split()[1])
            elif line.startswith("org:"):
                printed["org"] = line.split()[1]
            if line.startswith("Press Ctrl-C"):
                break
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
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_sandbox_command_stops_on_sigterm():
    process = subprocess.Popen([sys.executable, "-m", "trunk_api", "sandbox", "--tests", "50"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        while not process.stdout.readline().startswith("Press Ctrl-C"):
            assert process.poll() is None
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
