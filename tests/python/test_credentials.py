"""Credentials of the two API versions from Python and the command line (docs/reference/credentials.md): a v2
API key (``api_key=``) beside v1's organization token (``token=``), TRUNK_API_KEY told apart by its prefix, a call
whose version has no credential refused before anything is sent, and the key kept out of every repr, pickle,
message and log record."""

from __future__ import annotations

import asyncio
import logging
import pickle

import pytest

import trunk_api
from trunk_api import MissingTokenError, TrunkError, ValidationError

from cli_support import cli, sandbox, target  # noqa: F401  (fixtures are used by name)

API_KEY = "trunk_v2_KEY-SECRET-41c9e0"


@pytest.fixture
def no_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRUNK_API_TOKEN", raising=False)
    monkeypatch.delenv("TRUNK_API_KEY", raising=False)


@pytest.mark.usefixtures("no_credentials")
def test_a_client_with_only_an_api_key_refuses_v1_calls_before_sending(box, repo) -> None:
    client = trunk_api.Client(api_key=API_KEY, base_url=box.url)
    with pytest.raises(MissingTokenError) as caught:
        client.get_queue(repo, "main")
    error = caught.value
    assert (error.needed, error.operation) == ("token", "get_queue")
    assert "Client(token=...)" in str(error) and "TRUNK_API_TOKEN" in str(error) and "v1" in str(error)
    with pytest.raises(MissingTokenError):
        client.iter_unhealthy_tests(repo, "trunk-org", "FLAKY")
    assert box.requests == []
    copy = pickle.loads(pickle.dumps(error))
    assert (str(copy), copy.needed, copy.operation) == (str(error), "token", "get_queue")


@pytest.mark.usefixtures("no_credentials")
def test_the_async_client_refuses_them_too(box, repo) -> None:
    async def main() -> None:
        async with trunk_api.AsyncClient(api_key=API_KEY, base_url=box.url) as client:
            with pytest.raises(MissingTokenError) as caught:
                await client.get_queue(repo, "main")
            assert caught.value.needed == "token"

    asyncio.run(main())
    assert box.requests == []


@pytest.mark.usefixtures("no_credentials")
def test_trunk_api_key_holding_a_v2_key_is_the_api_key_not_the_token(box, repo, monkeypatch) -> None:
    monkeypatch.setenv("TRUNK_API_KEY", API_KEY)
    client = trunk_api.Client(base_url=box.url)
    with pytest.raises(MissingTokenError) as caught:
        client.get_queue(repo, "main")
    assert caught.value.needed == "token"
    # The same variable holding a v1 token (as the Terraform provider sets it) is the token.
    monkeypatch.setenv("TRUNK_API_KEY", box.token)
    assert trunk_api.Client(base_url=box.url).get_queue(repo, "main").branch == "main"


@pytest.mark.usefixtures("no_credentials")
def test_a_key_of_the_wrong_kind_is_refused_when_the_client_is_made() -> None:
    with pytest.raises(TrunkError, match="api_key") as caught:
        trunk_api.Client(token=API_KEY, base_url="http://127.0.0.1:1")
    assert "KEY-SECRET" not in str(caught.value)
    with pytest.raises(TrunkError, match="trunk_v2_") as caught:
        trunk_api.Client(api_key="v1-token-SECRET", base_url="http://127.0.0.1:1")
    assert "v1-token-SECRET" not in str(caught.value)
    with pytest.raises(TrunkError):
        trunk_api.Client(api_key="trunk_v2_", base_url="http://127.0.0.1:1")  # the prefix alone
    assert trunk_api.Client(api_key="trunk_v2_x", base_url="http://127.0.0.1:1").base_url == "http://127.0.0.1:1"
    with pytest.raises(ValidationError) as invalid:
        trunk_api.Client(api_key=12345, base_url="http://127.0.0.1:1")  # type: ignore[arg-type]
    violation = invalid.value.errors[0]
    assert violation.field == "api_key" and "12345" not in str(invalid.value)


@pytest.mark.usefixtures("no_credentials")
def test_neither_credential_names_both_keywords() -> None:
    with pytest.raises(MissingTokenError) as caught:
        trunk_api.Client(base_url="http://127.0.0.1:1")
    message = str(caught.value)
    assert caught.value.needed == "any"
    assert "Client(token=...)" in message and "Client(api_key=...)" in message and "TRUNK_API_KEY" in message


@pytest.mark.usefixtures("no_credentials")
def test_the_api_key_is_in_no_repr_pickle_or_log_record(box, caplog) -> None:
    caplog.set_level(logging.DEBUG, logger="trunk_api")
    for client in (trunk_api.Client(box.token, box.url, api_key=API_KEY),
                   trunk_api.AsyncClient(box.token, box.url, api_key=API_KEY)):
        assert "KEY-SECRET" not in repr(client)
        assert b"KEY-SECRET" not in pickle.dumps(client)
    trunk_api.Client(box.token, box.url, api_key=API_KEY).get_queue(box.repos[0], "main")
    assert "KEY-SECRET" not in caplog.text


def test_the_command_line_names_the_credential_a_version_needs(cli, target, monkeypatch) -> None:
    monkeypatch.delenv("TRUNK_API_TOKEN")
    monkeypatch.setenv("TRUNK_API_KEY", API_KEY)
    run = cli("unhealthy", *target)
    assert run.code == 2
    assert "v1 operation" in run.err and "TRUNK_API_TOKEN" in run.err and "--token" in run.err
    assert "KEY-SECRET" not in run.err + run.out
    run = cli("unhealthy", *target, "--api-key", "not-a-v2-key")
    assert run.code == 2 and "trunk_v2_" in run.err and "not-a-v2-key" not in run.err
