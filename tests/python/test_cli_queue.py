"""`trunk-api queue update`: every setting as an option, only what was given on the wire (checked through the
sandbox's request record), the integer boundaries, enum values validated by the library, and the outputs."""

from __future__ import annotations

import csv
import io
import json

import pytest

from cli_support import (  # noqa: F401  (fixtures are used by name)
    Terminal, cli, last_body, one_line_error, queue_args, sandbox,
)


# ---- queue update --------------------------------------------------------------------------------------------

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
    run = cli(*queue_args(sandbox, "cli-show"), stdout=Terminal())
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
