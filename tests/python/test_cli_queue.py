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


def test_queue_mode_change_of_an_empty_queue_is_immediate(cli, sandbox):
    # Trunk switches a queue holding no pull request at once (switching_modes lasts while pull requests test).
    run = cli(*queue_args(sandbox, "cli-switch"), "--mode", "parallel", "--format", "ndjson")
    assert run.code == 0
    answer = json.loads(run.out)
    assert answer["state"] == "running" and answer["mode"] == "parallel"


def test_queue_csv(cli, sandbox):
    rows = list(csv.DictReader(io.StringIO(cli(*queue_args(sandbox, "cli-csv"), "--format", "csv").out)))
    assert len(rows) == 1 and rows[0]["branch"] == "cli-csv" and rows[0]["state"]


def test_every_settable_field_of_update_queue_is_an_option_with_its_declared_help(cli):
    """The options come from the C++ declaration of updateQueue: a field there is an option here."""
    from trunk_api._core import declarations

    run = cli("queue", "update", "--help")
    assert run.code == 0
    help_text = " ".join(run.out.split())
    request = next(model for model in declarations.schema()["models"] if model["name"] == "UpdateQueueRequest")
    settable = [field for field in request["fields"] if field["optional"]]
    assert len(settable) == 23
    for field in settable:
        flag = "--" + field["name"].replace("_", "-")
        if field["type"] == "list[str] | None":
            flag = "--clear-" + field["name"].replace("_", "-")
        assert flag in help_text, flag
        assert " ".join(field["doc"].split())[:40] in help_text, field["doc"]
    assert "(1..4294967295)" in help_text
    assert "{running,paused,draining}" in help_text  # switching_modes is reported, never requested


def test_label_and_extension_settings_are_options(cli, sandbox):
    run = cli(*queue_args(sandbox, "cli-labels"), "--extension-enabled", "--enqueueing-label", "ship-it",
              "--no-state-labels-enabled", "--format", "json")
    assert run.code == 0, run.err
    body = last_body(sandbox, "updateQueue")
    assert (body["extensionEnabled"], body["enqueueingLabel"], body["stateLabelsEnabled"]) == (True, "ship-it", False)
    assert "labelCommandsEnabled" not in body
    shown = json.loads(run.out)
    shown_settings = (shown["extensionEnabled"], shown["enqueueingLabel"], shown["stateLabelsEnabled"])
    assert shown_settings == (True, "ship-it", False)


def test_delete_required_statuses_can_be_sent_false_or_true(cli, sandbox):
    assert cli(*queue_args(sandbox, "cli-delete"), "--no-delete-required-statuses").code == 0
    assert last_body(sandbox, "updateQueue")["deleteRequiredStatuses"] is False
    assert cli(*queue_args(sandbox, "cli-delete"), "--delete-required-statuses").code == 0
    assert last_body(sandbox, "updateQueue")["deleteRequiredStatuses"] is True
