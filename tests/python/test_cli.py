"""The trunk-api command line against the sandbox: the listings (`failing`, `unhealthy`), `test`, every output
format, the usage and validation errors (exit 2), not found (exit 4), and --help everywhere.

These call trunk_api.cli.main(argv) in-process; test_cli_program.py runs it as a program, and
test_cli_queue.py covers `queue update`. Every run checks that the token is in neither stdout nor stderr.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json

import pytest

from trunk_api import Sandbox
from trunk_api.cli import CSV_COLUMNS

from cli_support import (  # noqa: F401  (fixtures are used by name)
    Terminal, cli, expected_failing_ids, last_body, one_line_error, sandbox, target, window,
)


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
    out, err = Terminal(), Terminal()
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
    run = cli("test", test_id, *target, stdout=Terminal())
    assert run.code == 0
    assert "name:" in run.out and expected.name in run.out and test_id in run.out
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
