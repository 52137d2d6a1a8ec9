"""Enums are real enum.Enum classes whose values are the wire strings; inputs accept members or strings."""

from __future__ import annotations

import enum

import pytest

import trunk_api
from trunk_api import (
    DirectMergeMode,
    HealthStatus,
    MergeMethod,
    OptimizationMode,
    QueueMode,
    QueueState,
    ValidationError,
)

from conftest import ensure_queue

ALL = {
    QueueState: ["running", "paused", "draining", "switching_modes"],
    QueueMode: ["single", "parallel"],
    DirectMergeMode: ["off", "always"],
    OptimizationMode: ["off", "bisection_skip_redundant_tests"],
    MergeMethod: ["merge_commit", "squash", "rebase"],
    HealthStatus: ["FLAKY", "BROKEN"],
}


@pytest.mark.parametrize("cls", list(ALL), ids=lambda c: c.__name__)
def test_members_are_wire_strings(cls: type[enum.Enum]) -> None:
    assert issubclass(cls, enum.Enum) and issubclass(cls, str)
    assert [member.value for member in cls] == ALL[cls]
    for member in cls:
        assert member == member.value
        assert str(member) == member.value
        assert f"{member}" == member.value


def test_examples_from_the_issue() -> None:
    assert QueueState.PAUSED == "paused"
    assert HealthStatus.FLAKY.value == "FLAKY"
    assert HealthStatus("flaky") is HealthStatus.FLAKY
    assert HealthStatus("Broken") is HealthStatus.BROKEN
    with pytest.raises(ValueError):
        HealthStatus("healthy")
    with pytest.raises(ValueError):
        QueueState("PAUSED")  # queue values are exact lower-case wire strings


@pytest.mark.parametrize("status", [HealthStatus.FLAKY, "FLAKY", "flaky", "Flaky"])
def test_health_status_inputs_any_case(box: trunk_api.Sandbox, client: trunk_api.Client, status: object) -> None:
    client.list_unhealthy_tests(box.repos[0], box.org_url_slug, status, page_size=1)  # type: ignore[arg-type]
    assert box.requests[-1].body["status"] == "FLAKY"


@pytest.mark.parametrize("bad", ["healthy", "", "FLAKEY"])
def test_unknown_health_status_is_validation_error(client: trunk_api.Client, box: trunk_api.Sandbox, bad: str) -> None:
    with pytest.raises(ValidationError) as caught:
        client.list_unhealthy_tests(box.repos[0], box.org_url_slug, bad)
    assert caught.value.errors[0].field == "status"
    assert "FLAKY" in caught.value.errors[0].rule and "BROKEN" in caught.value.errors[0].rule
    assert box.requests == []


def test_queue_enum_inputs_members_or_strings(client: trunk_api.Client, box: trunk_api.Sandbox) -> None:
    ensure_queue(box, box.repos[0], "enum-branch")
    settings = client.update_queue(
        box.repos[0],
        "enum-branch",
        state=QueueState.DRAINING,
        direct_merge_mode="always",
        optimization_mode=OptimizationMode.BISECTION_SKIP_REDUNDANT_TESTS,
        merge_method="rebase",
    )
    assert box.requests[-1].body == {
        "repo": box.repos[0].to_dict(),
        "targetBranch": "enum-branch",
        "state": "draining",
        "directMergeMode": "always",
        "optimizationMode": "bisection_skip_redundant_tests",
        "mergeMethod": "rebase",
    }
    assert settings.state is QueueState.DRAINING
    assert settings.direct_merge_mode is DirectMergeMode.ALWAYS
    assert settings.merge_method is MergeMethod.REBASE


@pytest.mark.parametrize(
    ("keyword", "value", "field"),
    [
        ("state", "switching_modes", "state"),  # response-only value
        ("state", "Paused", "state"),
        ("mode", "serial", "mode"),
        ("merge_method", "fast_forward", "mergeMethod"),
        ("direct_merge_mode", "never", "directMergeMode"),
        ("optimization_mode", 1, "optimizationMode"),
    ],
)
def test_bad_enum_input_names_the_field(
    client: trunk_api.Client, box: trunk_api.Sandbox, keyword: str, value: object, field: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        client.update_queue(box.repos[0], "main", **{keyword: value})  # type: ignore[arg-type]
    assert [violation.field for violation in caught.value.errors] == [field]
    assert box.requests == []
