"""The token never shows up: repr, str, exceptions, log records, pickles. Logging goes to "trunk_api"."""

from __future__ import annotations

import logging
import pickle

import pytest

import trunk_api
from trunk_api import Repo, TrunkError

from conftest import NOW, SANDBOX_TOKEN, WEEK_START
from scripted_server import Received, Reply, ScriptedServer

UUID = "0f3c6a8e-5b7d-4c1e-9a2f-3b4c5d6e7f80"


def test_repr_and_str_hide_the_token(box: trunk_api.Sandbox) -> None:
    client = box.client()
    for text in (repr(client), str(client), repr(box), str(box), repr(vars(client))):
        assert SANDBOX_TOKEN not in text
    assert repr(client) == f"Client(base_url={box.url!r})"


def test_pickled_client_has_no_token_and_reads_it_from_the_environment(box: trunk_api.Sandbox,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    client = box.client(timeout=12.5, max_retries=1)
    data = pickle.dumps(client)
    assert SANDBOX_TOKEN.encode() not in data
    monkeypatch.delenv("TRUNK_API_TOKEN", raising=False)
    monkeypatch.delenv("TRUNK_API_KEY", raising=False)
    with pytest.raises(TrunkError, match="TRUNK_API_TOKEN"):
        pickle.loads(data)
    monkeypatch.setenv("TRUNK_API_TOKEN", SANDBOX_TOKEN)
    restored = pickle.loads(data)
    assert restored.base_url == box.url
    repo = box.repos[0]
    assert restored.get_test_details(repo, box.org_url_slug, box.test_ids(repo)[0]).id


def test_token_from_environment(box: trunk_api.Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRUNK_API_TOKEN", raising=False)
    monkeypatch.setenv("TRUNK_API_KEY", SANDBOX_TOKEN)
    monkeypatch.setenv("TRUNK_BASE_URL", box.url)
    client = trunk_api.Client()
    assert client.base_url == box.url
    repo = box.repos[0]
    assert client.get_test_details(repo, box.org_url_slug, box.test_ids(repo)[0]).id


def test_missing_token_names_both_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRUNK_API_TOKEN", raising=False)
    monkeypatch.delenv("TRUNK_API_KEY", raising=False)
    with pytest.raises(TrunkError) as caught:
        trunk_api.Client(base_url="http://127.0.0.1:1")
    assert "TRUNK_API_TOKEN" in str(caught.value) and "TRUNK_API_KEY" in str(caught.value)


def test_wrong_type_token_is_not_rendered() -> None:
    with pytest.raises(trunk_api.ValidationError) as caught:
        trunk_api.Client(b"bytes-token-secret", "http://127.0.0.1:1")  # type: ignore[arg-type]
    assert "bytes-token-secret" not in str(caught.value)
    assert caught.value.errors[0].field == "token"


def test_insecure_http_refused_for_remote_hosts() -> None:
    with pytest.raises(TrunkError):
        trunk_api.Client("secret-token-value", "http://example.com")
    client = trunk_api.Client("secret-token-value", "http://example.com", allow_insecure_http=True)
    assert client.base_url == "http://example.com"


def test_server_echoing_the_token_is_redacted_in_exceptions_and_logs(caplog: pytest.LogCaptureFixture) -> None:
    secret = "echo-me-secret-9f8e7d"

    def echo(request: Received) -> Reply:
        return Reply(403, f"token {request.headers.get('x-api-token')} may not do this")

    caplog.set_level(logging.DEBUG, logger="trunk_api")
    with ScriptedServer(responder=echo) as server:
        with pytest.raises(trunk_api.PermissionDeniedError) as caught:
            trunk_api.Client(secret, server.url, max_retries=0).get_test_details("github.com/a/b", "org", UUID)
    error = caught.value
    for text in (str(error), repr(error), error.body, repr(error.__dict__)):
        assert secret not in text
    assert secret not in pickle.dumps(error).decode("latin-1")
    assert caplog.records
    for record in caplog.records:
        assert secret not in record.getMessage()


def test_log_records_per_attempt_and_retry(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="trunk_api")
    with ScriptedServer([Reply(503, "busy"), Reply(200, {"test": {"id": UUID}})]) as server:
        trunk_api.Client("log-test-token-1234", server.url, max_retries=2).get_test_details("github.com/a/b", "org",
                                                                                              UUID)
    mine = [r for r in caplog.records if r.name == "trunk_api"]
    debug = [r for r in mine if r.levelno == logging.DEBUG]
    info = [r for r in mine if r.levelno == logging.INFO]
    assert len(debug) == 2  # one per attempt
    assert len(info) == 1  # one retry
    assert "503" in debug[0].getMessage()
    for record in mine:
        assert "log-test-token-1234" not in record.getMessage()


def test_sandbox_requests_redact_the_token(box: trunk_api.Sandbox, client: trunk_api.Client) -> None:
    client.list_failing_tests(box.repos[0], box.org_url_slug, WEEK_START, NOW, page_size=1)
    for request in box.requests:
        assert request.headers["x-api-token"] == "<redacted>"
        assert SANDBOX_TOKEN not in repr(request)


def test_repo_is_not_a_token_leak_vector() -> None:
    assert "token" not in repr(Repo(host="h", owner="o", name="n"))
