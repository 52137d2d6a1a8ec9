"""A monitor's tests and muting it for one test from Python (docs/reference/v2.md#monitors): ``client.v2.monitors``,
sync and async, as tables and from the command line, over the sandbox, where a mute makes the test healthy in both
versions until it ends (docs/sandbox.md#monitors)."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import pytest

import trunk_api
from trunk_api import BadRequestError, ConflictError, MonitorTest, NotFoundError, PermissionDeniedError
from trunk_api import ValidationError
from trunk_api.enums import MonitorTestState

from conftest import run_v2_cli, virtual_sandbox


@pytest.fixture()
def box():
    with virtual_sandbox(seed=17) as sandbox:
        yield sandbox


@pytest.fixture()
def client(box):
    return box.client()


def flaky_test_and_monitor(client, box) -> tuple[str, str]:
    """A flaky test and the monitor active on it."""
    test = next(iter(client.v2.tests.list(status=["flaky"])))
    return test.id, client.v2.tests.get(test.id).active_monitors[0].monitor_id


def test_the_resource_has_its_verbs(client) -> None:
    assert {"tests", "tests_page", "mute_test"} <= set(dir(client.v2.monitors))


def test_a_mute_makes_the_test_healthy_in_both_versions_until_it_ends(box, client) -> None:
    test, monitor = flaky_test_and_monitor(client, box)
    held = client.v2.monitors.tests(monitor)
    frame = held.to_pandas()
    assert test in set(frame["test_id"]) and set(frame["state"]) == {"active"}
    until = box.clock_now + timedelta(days=2)
    muted = client.v2.monitors.mute_test(monitor, test, mute_until=until, reason="known flake")
    assert isinstance(muted, MonitorTest)
    assert (muted.state, muted.is_muted, muted.muted_until) == (MonitorTestState.MUTED, True, until)
    assert client.v2.tests.get(test).status == "healthy"
    assert test not in {t.id for t in client.v2.tests.list(status=["flaky"])}
    change = next(iter(client.v2.tests.status_history(test)))
    assert (change.from_status, change.to_status) == ("flaky", "healthy")
    assert [row.test_id for row in client.v2.monitors.tests(monitor, state="muted")] == [test]
    assert [row.test_id for row in client.v2.monitors.tests(monitor, is_muted=True)] == [test]
    # Muted again: unchanged, the first mute's end kept.
    assert client.v2.monitors.mute_test(monitor, test, reason="again").muted_until == until
    box.advance(hours=49)
    assert client.v2.tests.get(test).status == "flaky"
    assert [row.state for row in client.v2.monitors.tests(monitor) if row.test_id == test] == [MonitorTestState.ACTIVE]


@pytest.mark.parametrize(("keywords", "field", "rule"), [
    (dict(reason=""), "reason", "must not be empty"),
    (dict(reason="r" * 1001), "reason", "at most 1000 characters"),
])
def test_bad_input_is_refused_before_sending_naming_the_field(box, client, keywords, field, rule) -> None:
    test, monitor = flaky_test_and_monitor(client, box)
    with pytest.raises(ValidationError) as refused:
        client.v2.monitors.mute_test(monitor, test, **keywords)
    assert field in str(refused.value) and rule in str(refused.value)
    assert client.v2.tests.get(test).status == "flaky"  # nothing was sent


def test_the_service_refuses_what_only_it_can_check(box, client) -> None:
    test, monitor = flaky_test_and_monitor(client, box)
    with pytest.raises(BadRequestError) as too_far:
        client.v2.monitors.mute_test(monitor, test, mute_until=box.clock_now + timedelta(days=30, seconds=1))
    assert too_far.value.code == "VALIDATION_FAILED" and "muteUntil" in str(too_far.value)
    healthy = next(iter(client.v2.tests.list(status=["healthy"]))).id
    with pytest.raises(ConflictError) as not_active:
        client.v2.monitors.mute_test(monitor, healthy)
    assert not_active.value.code == "MONITOR_NOT_ACTIVE"
    with pytest.raises(NotFoundError) as missing:
        client.v2.monitors.tests_page("nosuchid")
    assert missing.value.code == "MONITOR_NOT_FOUND"
    reader = trunk_api.Client(api_key=box.create_api_key([]), base_url=box.url)
    with pytest.raises(PermissionDeniedError):
        reader.v2.monitors.mute_test(monitor, test)
    assert test in {row.test_id for row in reader.v2.monitors.tests(monitor)}  # reading needs no permission


def test_async_mutes_the_same(box, client) -> None:
    test, monitor = flaky_test_and_monitor(client, box)

    async def mute():
        async with box.async_client() as async_client:
            answer = await async_client.v2.monitors.mute_test(monitor, test)
            rows = [row async for row in async_client.v2.monitors.tests(monitor, state="muted")]
            return answer, rows

    answer, rows = asyncio.run(mute())
    assert answer.state == MonitorTestState.MUTED and answer.muted_until is None
    assert [row.test_id for row in rows] == [test]


def test_the_command_line_lists_and_mutes(monkeypatch, box, client) -> None:
    test, monitor = flaky_test_and_monitor(client, box)
    code, out, err = run_v2_cli(monkeypatch, box, "v2", "monitors", "mute-test", "--monitor-id", monitor,
                                "--test-id", test, "--reason", "known flake", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["state"] == "muted" and "mutedUntil" not in json.loads(out)  # no end
    code, out, err = run_v2_cli(monkeypatch, box, "v2", "monitors", "tests", "--monitor-id", monitor,
                                "--is-muted", "--format", "json")
    assert code == 0, err
    assert [row["testId"] for row in json.loads(out)] == [test]
    code, out, err = run_v2_cli(monkeypatch, box, "v2", "monitors", "mute-test", "--monitor-id", monitor,
                                "--test-id", test, "--reason", "")
    assert code != 0 and "reason" in err


def test_the_requests_have_the_shapes_trunk_s_docs_show(box, client) -> None:
    from datetime import datetime
    from urllib.parse import parse_qs

    test, monitor = flaky_test_and_monitor(client, box)
    until = box.clock_now + timedelta(days=1)
    client.v2.monitors.mute_test(monitor, test, mute_until=until, reason="known flake")
    client.v2.monitors.tests_page(monitor, state="muted", is_muted=True, limit=5)
    mute, listing = box.requests[-2:]
    assert (mute.method, mute.path) == ("POST", f"/v2/monitors/{monitor}/tests/{test}/mute")
    assert set(mute.body) == {"muteUntil", "reason"} and mute.body["reason"] == "known flake"
    assert datetime.fromisoformat(mute.body["muteUntil"].replace("Z", "+00:00")) == until
    assert (listing.method, listing.path) == ("GET", f"/v2/monitors/{monitor}/tests")
    assert parse_qs(listing.query) == {"state": ["muted"], "isMuted": ["true"], "limit": ["5"]}
    client.v2.monitors.mute_test(monitor, test)  # nothing the caller did not set
    assert box.requests[-1].body == {}
