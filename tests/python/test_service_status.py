"""Client.status() (GET /v1/status) from Python, sync and async, and `trunk-api status`, against the sandbox: the
service's description asks for no credential there (`security: []`), so none is sent: the sandbox's record of the
request has no x-api-token or Authorization header, and the token appears nowhere in it
(docs/reference/service.md#service-status)."""

from __future__ import annotations

import json

import pytest

import trunk_api
from trunk_api import Sandbox
from cli_support import Terminal, cli, sandbox  # noqa: F401  (fixtures are used by name)


def status_requests(box: Sandbox) -> list:
    return [r for r in box.requests if r.path == "/v1/status"]


def assert_no_credential_sent(box: Sandbox) -> None:
    sent = status_requests(box)
    assert sent
    for request in sent:
        assert request.method == "GET" and request.body in ("", None, b"", {})
        names = {name.lower() for name in request.headers}
        assert not names & {"x-api-token", "authorization", "x-trunk-token"}, names
        assert all(box.token not in str(value) for value in request.headers.values())


def test_status_is_up_and_sends_no_credential(sandbox):
    status = sandbox.client().status()
    assert isinstance(status, trunk_api.ServiceStatus)
    assert status.overall_status.type == "up" and status.overall_status.color == "green"
    assert status.overall_status.impacted_statuses is None
    assert status.statuses and all(item.color == "green" for item in status.statuses)
    assert "impactedStatuses" not in status.to_dict()["overallStatus"]
    assert sandbox.token not in repr(status)
    assert_no_credential_sent(sandbox)


@pytest.mark.asyncio
async def test_the_async_client_sends_no_credential_either(sandbox):
    async with sandbox.async_client() as client:
        status = await client.status()
    assert status == sandbox.client().status()
    assert_no_credential_sent(sandbox)


def test_the_command_line_shows_the_status(cli, sandbox):
    run = cli("status")
    assert run.code == 0, run.err
    assert json.loads(run.out)["overallStatus"]["type"] == "up"
    table = cli("status", stdout=Terminal())
    assert table.code == 0 and "overall" in table.out and "All systems operational" in table.out
    assert_no_credential_sent(sandbox)
