"""`trunk-api sandbox-controls show|set|script` against a running sandbox: show prints the queue's controls (JSON in
a pipe, a table on a terminal), set changes only what its flags give (each flag tested), a value the sandbox
refuses is exit code 2 naming the field (and the flag), script stages a pull request, and a sandbox that is not
there, a wrong token or a missing address are one line on stderr, never a traceback.

The rules of the values are the sandbox's (tested in test_sandbox_controls.py and the C++ suite); here only that
the command line hands them over and reports the refusal. Every run checks that the token is not printed."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from trunk_api import Sandbox
from trunk_api.sandbox import Arrivals, FixedRunDuration

from cli_support import (  # noqa: F401  (fixtures are used by name)
    WRONG_TOKEN, Terminal, cli, free_port_nobody_listens_on, one_line_error, program_env, read_banner,
    sandbox_command,
)
from conftest import NOW, ensure_queue


@pytest.fixture()
def sandbox() -> Iterator[Sandbox]:
    """A small sandbox of each test's own (controls outlive a test), on the virtual clock: nothing moves unless
    asked. It is `cli`'s sandbox: the environment points at it."""
    with Sandbox(seed=5, tests=60, now=NOW, clock="virtual") as box:
        yield box


@pytest.fixture()
def repo(sandbox: Sandbox) -> str:
    return str(sandbox.repos[0])


def controls(cli: Any, repo: str, *argv: str) -> dict[str, Any]:
    """The queue's controls as `show` prints them in a pipe."""
    run = cli("sandbox-controls", "show", "--repo", repo, *argv)
    assert run.code == 0 and run.err == "", run.err
    return json.loads(run.out)["controls"]


#: Every control set, so that a test of one flag sees the others stay.
EVERYTHING = ["--run-minutes", "40", "--flaky-rate", "0.1", "--broken-rate", "0.2", "--arrivals-per-hour", "6",
              "--target", "//app=0.3", "--priority", "0=0.05", "--first-number", "500"]
EVERYTHING_ON_THE_WIRE = {
    "run_duration": {"kind": "fixed", "minutes": 40.0},
    "flaky_run_rate": 0.1,
    "broken_pull_request_rate": 0.2,
    "arrivals": {"kind": "poisson", "per_hour": 6.0, "targets": [{"target": "//app", "probability": 0.3}],
                 "first_number": 500, "priorities": [{"value": 0, "probability": 0.05}]},
}


# ---- show ------------------------------------------------------------------------------------------------------

def test_show_in_a_pipe_prints_the_routes_json_of_the_queue(cli, sandbox, repo):
    run = cli("sandbox-controls", "show", "--repo", repo)
    assert run.code == 0 and run.err == ""
    assert json.loads(run.out) == {"repo": repo, "branch": "main", "scripts": [], "controls": {
        "run_duration": None, "flaky_run_rate": None, "broken_pull_request_rate": None, "arrivals": None}}


def test_show_prints_what_the_sandbox_object_set(cli, sandbox, repo):
    sandbox.set_queue_controls(sandbox.repos[0], run_duration=FixedRunDuration(25), flaky_run_rate=0.05,
                               arrivals=Arrivals.poisson(3, targets={"//web": 0.5}))
    sandbox.script_pull_request(sandbox.repos[0], 7, broken=True)
    shown = json.loads(cli("sandbox-controls", "show", "--repo", repo).out)
    assert shown["controls"]["run_duration"] == {"kind": "fixed", "minutes": 25.0}
    assert shown["controls"]["flaky_run_rate"] == 0.05
    assert shown["controls"]["arrivals"]["targets"] == [{"target": "//web", "probability": 0.5}]
    assert shown["scripts"] == [{"number": 7, "broken": True, "next_run": None, "next_run_minutes": None}]


def test_show_on_a_terminal_is_a_table_and_format_chooses(cli, sandbox, repo):
    assert cli("sandbox-controls", "set", "--repo", repo, *EVERYTHING).code == 0
    assert cli("sandbox-controls", "script", "8", "--repo", repo, "--next-run", "pass").code == 0
    run = cli("sandbox-controls", "show", "--repo", repo, stdout=Terminal())
    assert run.code == 0
    assert f"queue:                    {repo} main" in run.out
    assert "run duration:             fixed, 40 minutes" in run.out
    assert "flaky run rate:           0.1" in run.out
    assert "arrivals:                 poisson, 6 an hour; targets //app 0.3; priorities 0 0.05; first number 500" \
        in run.out
    assert "scripts (1):" in run.out and "#8" in run.out and "pass" in run.out
    assert json.loads(cli("sandbox-controls", "show", "--repo", repo, "--format", "json", stdout=Terminal()).out)
    assert "queue:" in cli("sandbox-controls", "show", "--repo", repo, "--format", "table").out


def test_show_of_a_queue_with_nothing_set_says_whose_values_apply(cli, sandbox, repo):
    run = cli("sandbox-controls", "show", "--repo", repo, "--format", "table")
    assert "run duration:             (the sandbox's)" in run.out
    assert "arrivals:                 (none)" in run.out and "scripts (0):" in run.out


def test_the_table_shows_each_kind_and_cuts_long_lists(cli, repo):
    assert cli("sandbox-controls", "set", "--repo", repo, "--run-durations", ",".join(map(str, range(1, 30))),
               "--arrivals-hourly", ",".join(["2"] * 168)).code == 0
    table = cli("sandbox-controls", "show", "--repo", repo, "--format", "table").out
    assert "empirical, one of 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ... (29 in all) minutes" in table
    assert "hourly, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, ... (168 in all) an hour; targets ALL; priorities the queue's default; " \
        "first number 1" in table
    assert cli("sandbox-controls", "set", "--repo", repo, "--run-median-minutes", "20",
               "--arrivals-at", "2030-01-01T00:00:00Z").code == 0
    table = cli("sandbox-controls", "show", "--repo", repo, "--format", "table").out
    assert "lognormal, median 20 minutes, sigma 0.35" in table and "scheduled at 2030-01-01T00:00:00Z;" in table


def test_branch_names_the_queue(cli, sandbox, repo):
    ensure_queue(sandbox, sandbox.repos[0], "release/1.x")  # a '/' in the branch, sent in the query
    assert cli("sandbox-controls", "set", "--repo", repo, "--branch", "release/1.x", "--flaky-rate", "0.4").code == 0
    assert sandbox.queue_controls(sandbox.repos[0], "release/1.x").flaky_run_rate == 0.4
    assert sandbox.queue_controls(sandbox.repos[0], "main").flaky_run_rate is None
    assert json.loads(cli("sandbox-controls", "show", "--repo", repo, "--branch", "release/1.x").out)["branch"] == \
        "release/1.x"


@pytest.mark.parametrize("where", [["--branch", "nowhere"], ["--repo", "github.com/acme/unknown"]])
def test_a_queue_that_does_not_exist_exits_4(cli, repo, where):
    run = cli("sandbox-controls", "show", "--repo", repo, *where)
    assert run.code == 4 and run.out == ""
    assert "404" in one_line_error(run)


# ---- set: only what is given changes ----------------------------------------------------------------------------

#: (flags, what they change on the wire), each from EVERYTHING.
ONE_CHANGE = {
    "run-minutes": (["--run-minutes", "12.5"], {"run_duration": {"kind": "fixed", "minutes": 12.5}}),
    "lognormal": (["--run-median-minutes", "20", "--run-sigma", "0.5"],
                  {"run_duration": {"kind": "lognormal", "median_minutes": 20.0, "sigma": 0.5}}),
    "run-median-minutes alone": (["--run-median-minutes", "30"],  # the sandbox's default spread
                                 {"run_duration": {"kind": "lognormal", "median_minutes": 30.0, "sigma": 0.35}}),
    "run-sigma alone": (["--run-sigma", "1"],  # the sandbox's default median
                        {"run_duration": {"kind": "lognormal", "median_minutes": 15.0, "sigma": 1.0}}),
    "run-durations": (["--run-durations", "8,40,41.5"],
                      {"run_duration": {"kind": "empirical", "minutes": [8.0, 40.0, 41.5]}}),
    "clear-run-duration": (["--clear-run-duration"], {"run_duration": None}),
    "flaky-rate": (["--flaky-rate", "0"], {"flaky_run_rate": 0.0}),
    "clear-flaky-rate": (["--clear-flaky-rate"], {"flaky_run_rate": None}),
    "broken-rate": (["--broken-rate", "1"], {"broken_pull_request_rate": 1.0}),
    "clear-broken-rate": (["--clear-broken-rate"], {"broken_pull_request_rate": None}),
    "arrivals-per-hour": (["--arrivals-per-hour", "2.5"], {"arrivals": {
        **EVERYTHING_ON_THE_WIRE["arrivals"], "per_hour": 2.5}}),
    "arrivals-hourly": (["--arrivals-hourly", ",".join(["0"] * 9 + ["6"] * 8 + ["0"] * 7)], {"arrivals": {
        **EVERYTHING_ON_THE_WIRE["arrivals"], "kind": "hourly", "per_hour": [0.0] * 9 + [6.0] * 8 + [0.0] * 7}}),
    "arrivals-at": (["--arrivals-at", "2026-11-21T09:00:00Z,2026-11-21T10:30:00Z"], {"arrivals": {
        "kind": "scheduled", "at": ["2026-11-21T09:00:00Z", "2026-11-21T10:30:00Z"],
        "targets": EVERYTHING_ON_THE_WIRE["arrivals"]["targets"], "first_number": 500,
        "priorities": EVERYTHING_ON_THE_WIRE["arrivals"]["priorities"]}}),
    "clear-arrivals": (["--clear-arrivals"], {"arrivals": None}),
    "target": (["--target", "//web=0.5", "--target", "//docs=0.05"], {"arrivals": {
        **EVERYTHING_ON_THE_WIRE["arrivals"],
        "targets": [{"target": "//web", "probability": 0.5}, {"target": "//docs", "probability": 0.05}]}}),
    "clear-targets": (["--clear-targets"], {"arrivals": {**EVERYTHING_ON_THE_WIRE["arrivals"], "targets": []}}),
    "priority": (["--priority", "10=0.2", "--priority", "200=0.5"], {"arrivals": {
        **EVERYTHING_ON_THE_WIRE["arrivals"],
        "priorities": [{"value": 10, "probability": 0.2}, {"value": 200, "probability": 0.5}]}}),
    "clear-priorities": (["--clear-priorities"], {"arrivals": {**EVERYTHING_ON_THE_WIRE["arrivals"],
                                                               "priorities": []}}),
    "first-number": (["--first-number", "900"], {"arrivals": {**EVERYTHING_ON_THE_WIRE["arrivals"],
                                                               "first_number": 900}}),
}


@pytest.mark.parametrize("flags, changed", ONE_CHANGE.values(), ids=ONE_CHANGE.keys())
def test_set_changes_only_what_its_flags_give(cli, sandbox, repo, flags, changed):
    assert controls(cli, repo) != EVERYTHING_ON_THE_WIRE
    run = cli("sandbox-controls", "set", "--repo", repo, *EVERYTHING)
    assert run.code == 0, run.err
    assert json.loads(run.out)["controls"] == EVERYTHING_ON_THE_WIRE  # set prints what results
    run = cli("sandbox-controls", "set", "--repo", repo, *flags)
    assert run.code == 0, run.err
    assert json.loads(run.out)["controls"] == controls(cli, repo) == {**EVERYTHING_ON_THE_WIRE, **changed}


def test_median_alone_keeps_the_current_lognormal_spread_and_sigma_alone_its_median(cli, repo):
    assert cli("sandbox-controls", "set", "--repo", repo, "--run-median-minutes", "20", "--run-sigma", "0.8").code == 0
    assert cli("sandbox-controls", "set", "--repo", repo, "--run-median-minutes", "25").code == 0
    assert controls(cli, repo)["run_duration"] == {"kind": "lognormal", "median_minutes": 25.0, "sigma": 0.8}
    assert cli("sandbox-controls", "set", "--repo", repo, "--run-sigma", "0.1").code == 0
    assert controls(cli, repo)["run_duration"] == {"kind": "lognormal", "median_minutes": 25.0, "sigma": 0.1}


@pytest.mark.parametrize("separated", ["8\n40\n41.5\n", "8, 40, 41.5", "8 40\t41.5"])
def test_run_durations_file(cli, repo, tmp_path, separated):
    path = tmp_path / "durations.txt"
    path.write_text(separated)
    assert cli("sandbox-controls", "set", "--repo", repo, "--run-durations-file", str(path)).code == 0
    assert controls(cli, repo)["run_duration"] == {"kind": "empirical", "minutes": [8.0, 40.0, 41.5]}


def test_run_durations_file_dash_reads_stdin(cli, repo, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("12\n13\n"))
    assert cli("sandbox-controls", "set", "--repo", repo, "--run-durations-file", "-").code == 0
    assert controls(cli, repo)["run_duration"] == {"kind": "empirical", "minutes": [12.0, 13.0]}


def test_a_new_arrival_process_keeps_the_current_targets_unless_given(cli, repo):
    assert cli("sandbox-controls", "set", "--repo", repo, "--arrivals-per-hour", "4", "--target", "//app=0.3").code == 0
    assert cli("sandbox-controls", "set", "--repo", repo, "--arrivals-hourly", ",".join(["1"] * 168)).code == 0
    arrivals = controls(cli, repo)["arrivals"]
    assert (arrivals["kind"], len(arrivals["per_hour"])) == ("hourly", 168)
    assert arrivals["targets"] == [{"target": "//app", "probability": 0.3}]


def test_clear_all_puts_every_control_back_and_other_flags_then_set_afresh(cli, repo):
    assert cli("sandbox-controls", "set", "--repo", repo, *EVERYTHING).code == 0
    assert cli("sandbox-controls", "set", "--repo", repo, "--clear-all").code == 0
    assert set(controls(cli, repo).values()) == {None}
    assert cli("sandbox-controls", "set", "--repo", repo, *EVERYTHING).code == 0
    assert cli("sandbox-controls", "set", "--repo", repo, "--clear-all", "--flaky-rate", "0.3").code == 0
    assert controls(cli, repo) == {"run_duration": None, "flaky_run_rate": 0.3, "broken_pull_request_rate": None,
                                   "arrivals": None}


def test_set_with_no_flag_changes_nothing_and_prints_the_controls(cli, sandbox, repo):
    assert cli("sandbox-controls", "set", "--repo", repo, *EVERYTHING).code == 0
    sandbox.clear_requests()
    run = cli("sandbox-controls", "set", "--repo", repo)
    assert run.code == 0 and json.loads(run.out)["controls"] == EVERYTHING_ON_THE_WIRE
    assert [r.method for r in sandbox.requests] == ["GET"]


def test_set_sends_the_arrivals_back_as_they_were_so_that_they_keep_their_course(cli, sandbox, repo):
    """The sandbox keeps the course of arrivals set again unchanged (docs/sandbox.md): a change of another
    control must send them back exactly as read."""
    assert cli("sandbox-controls", "set", "--repo", repo, *EVERYTHING).code == 0
    sandbox.clear_requests()
    assert cli("sandbox-controls", "set", "--repo", repo, "--flaky-rate", "0.3").code == 0
    put = next(r for r in sandbox.requests if r.method == "PUT")
    assert put.body["arrivals"] == EVERYTHING_ON_THE_WIRE["arrivals"]
    assert sandbox.queue_controls(sandbox.repos[0]).arrivals == Arrivals.poisson(6, targets={"//app": 0.3},
                                                                               priorities={0: 0.05},
                                                                               first_number=500)


# ---- values the sandbox refuses: exit 2, naming the field (and the flag) -------------------------------------------

REFUSED = {
    "flaky rate above 1": (["--flaky-rate", "1.5"], "flaky_run_rate: 1.5", "--flaky-rate"),
    "negative broken rate": (["--broken-rate", "-0.1"], "broken_pull_request_rate: -0.1", "--broken-rate"),
    "negative minutes": (["--run-minutes", "-5"], "run_duration.minutes: -5", "--run-minutes"),
    "too long a run": (["--run-minutes", "10081"], "run_duration.minutes: 10081", "--run-minutes"),
    "sigma too wide": (["--run-sigma", "9"], "run_duration.sigma: 9", "--run-sigma"),
    "median of no time": (["--run-median-minutes", "0"], "run_duration.median_minutes: 0", "--run-median-minutes"),
    "an empirical zero": (["--run-durations", "8,0"], "run_duration.minutes[1]: 0", "--run-durations"),
    "23 hourly rates": (["--arrivals-hourly", ",".join(["1"] * 23)], "arrivals.per_hour: 23 rates",
                        "--arrivals-hourly"),
    "negative arrival rate": (["--arrivals-per-hour", "-1"], "arrivals.per_hour: -1", "--arrivals-per-hour"),
    "not a time": (["--arrivals-at", "2026-11-21T09:00:00Z,tomorrow"], "arrivals.at[1]", "--arrivals-at"),
    "a chance above 1": (["--arrivals-per-hour", "1", "--target", "//app=1.5"],
                         "arrivals.targets[0].probability: 1.5", "--target"),
    "priorities over 1": (["--arrivals-per-hour", "1", "--priority", "0=0.6", "--priority", "10=0.5"],
                          "arrivals.priorities: chances summing to 1.1", "--priority"),
    "a priority twice": (["--arrivals-per-hour", "1", "--priority", "7=0.1", "--priority", "7=0.2"],
                         "arrivals.priorities[1].value: 7: must not be given twice", "--priority"),
    "first number 0": (["--arrivals-per-hour", "1", "--first-number", "0"], "arrivals.first_number: 0",
                       "--first-number"),
}


@pytest.mark.parametrize("flags, field, flag", REFUSED.values(), ids=REFUSED.keys())
def test_a_value_the_sandbox_refuses_exits_2_naming_field_and_flag_and_changes_nothing(cli, repo, flags, field, flag):
    before = controls(cli, repo)
    run = cli("sandbox-controls", "set", "--repo", repo, *flags)
    assert run.code == 2 and run.out == ""
    line = one_line_error(run)
    assert "400" in line and field in line and flag in line, line
    assert controls(cli, repo) == before


def test_every_value_refused_is_named_with_its_flag(cli, repo):
    run = cli("sandbox-controls", "set", "--repo", repo, "--flaky-rate", "2", "--broken-rate", "3")
    assert run.code == 2
    line = one_line_error(run)
    assert "flaky_run_rate: 2" in line and "broken_pull_request_rate: 3" in line
    assert "(set by --flaky-rate; --broken-rate)" in line


@pytest.mark.parametrize("flags, says", [
    (["--run-minutes", "40", "--run-durations", "8,9"], "one run duration at a time"),
    (["--run-sigma", "0.5", "--clear-run-duration"], "one run duration at a time"),
    (["--run-durations", "8", "--run-durations-file", "-"], "one run duration at a time"),
    (["--target", "//app=0.3"], "it has none"),
    (["--first-number", "5"], "it has none"),
    (["--priority", "0=0.1"], "it has none"),
    (["--clear-arrivals", "--clear-priorities"], "--clear-arrivals stops the arrivals"),
    (["--clear-arrivals", "--first-number", "5"], "--clear-arrivals stops the arrivals"),
    (["--run-durations-file", "/nonexistent/durations.txt"], "/nonexistent/durations.txt"),
])
def test_flags_that_contradict_each_other_or_a_missing_file_are_usage_errors(cli, sandbox, repo, flags, says):
    sandbox.clear_requests()
    run = cli("sandbox-controls", "set", "--repo", repo, *flags)
    assert run.code == 2 and run.out == ""
    assert says in one_line_error(run)
    assert "PUT" not in {r.method for r in sandbox.requests}


@pytest.mark.parametrize("flags", [["--flaky-rate", "high"], ["--flaky-rate", "nan"], ["--run-durations", "8,x"],
                                   ["--target", "//app"], ["--flaky-rate", "0.1", "--clear-flaky-rate"],
                                   ["--arrivals-per-hour", "1", "--clear-arrivals"],
                                   ["--target", "//a=0.1", "--clear-targets"], ["--priority", "high=0.1"],
                                   ["--priority", "0"], ["--priority", "0=0.1", "--clear-priorities"]])
def test_what_is_not_a_value_is_refused_by_the_parser_with_exit_2(cli, repo, flags):
    run = cli("sandbox-controls", "set", "--repo", repo, *flags)
    assert run.code == 2 and run.out == ""
    one_line_error(run)


def test_a_durations_file_holding_something_else_is_a_usage_error(cli, repo, tmp_path):
    path = tmp_path / "durations.csv"
    path.write_text("minutes\n8\n")
    run = cli("sandbox-controls", "set", "--repo", repo, "--run-durations-file", str(path))
    assert run.code == 2 and "'minutes' is not a number" in one_line_error(run)


# ---- script ----------------------------------------------------------------------------------------------------

def scripts(sandbox: Sandbox) -> dict[int, tuple[Any, ...]]:
    """The scripts of the main queue as the Sandbox object reads them: (broken, next_run, next_run_minutes)."""
    return {number: (script.broken, script.next_run, script.next_run_minutes)
            for number, script in sandbox.pull_request_scripts(sandbox.repos[0]).items()}


@pytest.mark.parametrize("flags, script", [
    (["--broken"], (True, None, None)),
    (["--never-broken"], (False, None, None)),
    (["--next-run", "fail"], (None, "fail", None)),
    (["--next-run", "pass", "--next-run-minutes", "90"], (None, "pass", 90)),
    (["--broken", "--next-run-minutes", "5"], (True, None, 5)),
])
def test_script_stages_a_pull_request(cli, sandbox, repo, flags, script):
    run = cli("sandbox-controls", "script", "7", "--repo", repo, *flags)
    assert run.code == 0, run.err
    assert scripts(sandbox) == {7: script}
    assert [s["number"] for s in json.loads(run.out)["scripts"]] == [7]


def test_script_replaces_the_previous_script_of_that_pull_request_as_the_route_does(cli, sandbox, repo):
    assert cli("sandbox-controls", "script", "7", "--repo", repo, "--broken").code == 0
    assert cli("sandbox-controls", "script", "7", "--repo", repo, "--next-run", "pass").code == 0
    assert scripts(sandbox) == {7: (None, "pass", None)}


def test_a_scripted_pull_request_fails_its_run_in_the_queue(cli, sandbox, repo):
    """The staged script takes effect: what the command sent is what the queue runs."""
    assert cli("sandbox-controls", "set", "--repo", repo, "--run-minutes", "10", "--flaky-rate", "0").code == 0
    assert cli("sandbox-controls", "script", "7", "--repo", repo, "--next-run", "fail").code == 0
    client = sandbox.client()
    client.submit_pull_request(sandbox.repos[0], 7, "main")
    sandbox.advance(minutes=30)
    assert str(client.get_submitted_pull_request(sandbox.repos[0], 7, "main").state) == "failed"  # else merged


def test_broken_and_never_broken_exclude_each_other(cli, repo):
    run = cli("sandbox-controls", "script", "7", "--repo", repo, "--broken", "--never-broken")
    assert run.code == 2


def test_a_next_run_the_sandbox_refuses_exits_2_naming_the_field(cli, repo):
    run = cli("sandbox-controls", "script", "7", "--repo", repo, "--next-run-minutes", "0")
    assert run.code == 2
    line = one_line_error(run)
    assert "next_run_minutes: 0" in line and "--next-run-minutes" in line


# ---- where the sandbox is, and when it is not -----------------------------------------------------------------------

def test_a_sandbox_that_is_not_running_is_one_line_and_exit_5(cli, repo, monkeypatch):
    address = f"http://127.0.0.1:{free_port_nobody_listens_on()}"
    monkeypatch.setenv("TRUNK_BASE_URL", address)
    run = cli("sandbox-controls", "show", "--repo", repo)
    assert run.code == 5 and run.out == ""
    line = one_line_error(run)
    assert f"no sandbox answers at {address}" in line and "is it running" in line


def test_a_sandbox_that_is_not_running_as_a_program_prints_no_traceback(sandbox, repo):
    env = program_env(sandbox, sandbox.token)
    env["TRUNK_BASE_URL"] = f"http://127.0.0.1:{free_port_nobody_listens_on()}/v1"
    result = subprocess.run([sys.executable, "-m", "trunk_api", "sandbox-controls", "set", "--repo", repo,
                             "--flaky-rate", "0.1"], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 5 and result.stdout == ""
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "no sandbox answers" in result.stderr and sandbox.token not in result.stderr


def test_no_address_is_a_usage_error_rather_than_trunks_own_service(cli, sandbox, repo, monkeypatch):
    """The client's default address is Trunk's service: a control command must not send the token there."""
    monkeypatch.delenv("TRUNK_BASE_URL")
    sandbox.clear_requests()
    run = cli("sandbox-controls", "show", "--repo", repo)
    assert run.code == 2 and "TRUNK_BASE_URL" in one_line_error(run)


def test_base_url_option_with_the_version_as_the_sandbox_prints_it(cli, sandbox, repo, monkeypatch):
    monkeypatch.setenv("TRUNK_BASE_URL", f"http://127.0.0.1:{free_port_nobody_listens_on()}")
    assert cli("sandbox-controls", "show", "--repo", repo, "--base-url", sandbox.url + "/v1/").code == 0


def test_a_base_url_the_core_refuses_is_exit_2(cli, repo):
    run = cli("sandbox-controls", "show", "--repo", repo, "--base-url", "ftp://127.0.0.1:1")
    assert run.code == 2
    one_line_error(run)


def test_no_token_is_a_usage_error_naming_the_variables(cli, repo, monkeypatch):
    monkeypatch.delenv("TRUNK_API_TOKEN")
    run = cli("sandbox-controls", "show", "--repo", repo)
    assert run.code == 2 and "TRUNK_API_TOKEN (or TRUNK_API_KEY)" in one_line_error(run)


def test_a_wrong_token_exits_3_and_is_never_printed(cli, repo, monkeypatch):
    monkeypatch.setenv("TRUNK_API_TOKEN", WRONG_TOKEN)
    run = cli("sandbox-controls", "set", "--repo", repo, "--flaky-rate", "0.1")
    assert run.code == 3 and "401" in one_line_error(run)


def test_token_option_works_and_warns_without_echoing_it(cli, sandbox, repo, monkeypatch):
    monkeypatch.delenv("TRUNK_API_TOKEN")
    run = cli("sandbox-controls", "show", "--repo", repo, "--token", sandbox.token)
    assert run.code == 0 and "prefer the TRUNK_API_TOKEN environment variable" in run.err


def test_token_from_trunk_api_key_as_the_sandbox_exports_it(cli, sandbox, repo, monkeypatch):
    monkeypatch.delenv("TRUNK_API_TOKEN")
    monkeypatch.setenv("TRUNK_API_KEY", sandbox.token)
    assert cli("sandbox-controls", "show", "--repo", repo).code == 0


def test_timeout_bounds_the_wait_for_a_slow_sandbox(cli, sandbox, repo):
    sandbox.set_faults(latency_ms=3000)
    run = cli("sandbox-controls", "show", "--repo", repo, "--timeout", "0.2")
    assert run.code == 5 and "within 0.2 s" in one_line_error(run)


def test_a_timeout_the_core_refuses_is_exit_2(cli, repo):
    assert cli("sandbox-controls", "show", "--repo", repo, "--timeout", "0").code == 2


def test_an_injected_server_error_is_exit_5(cli, sandbox, repo):
    sandbox.set_faults(error_rate=1.0)
    run = cli("sandbox-controls", "show", "--repo", repo)
    assert run.code == 5 and "503" in one_line_error(run)


def test_against_trunk_api_sandbox_started_as_another_program():
    """The use it is for: a sandbox started elsewhere (here `trunk-api sandbox` as a child process), configured
    from the export lines it prints, changed by `trunk-api sandbox-controls` run as a program."""
    with sandbox_command("--tests", "60") as process:
        printed = read_banner(process)
        env = program_env_of(printed)
        command = [sys.executable, "-m", "trunk_api", "sandbox-controls"]
        set_ = subprocess.run([*command, "set", "--repo", printed["repo"], "--run-durations", "8,40",
                               "--broken-rate", "0"], env=env, capture_output=True, text=True, timeout=60)
        assert set_.returncode == 0, set_.stderr
        shown = subprocess.run([*command, "show", "--repo", printed["repo"]], env=env, capture_output=True,
                               text=True, timeout=60)
        assert json.loads(shown.stdout)["controls"] == {
            "run_duration": {"kind": "empirical", "minutes": [8.0, 40.0]}, "flaky_run_rate": None,
            "broken_pull_request_rate": 0.0, "arrivals": None}
        assert printed["TRUNK_API_TOKEN"] not in set_.stdout + set_.stderr + shown.stdout + shown.stderr


def program_env_of(printed: dict[str, str]) -> dict[str, str]:
    """The environment after `eval` of the sandbox's export lines, nothing else of TRUNK_."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUNK_")}
    env.update({name: printed[name] for name in ("TRUNK_BASE_URL", "TRUNK_API_TOKEN", "TRUNK_API_KEY")})
    return env


def test_help_of_every_subcommand(cli):
    for verb in ("show", "set", "script"):
        run = cli("sandbox-controls", verb, "--help")
        assert run.code == 0 and "--repo" in run.out and "--base-url" in run.out
