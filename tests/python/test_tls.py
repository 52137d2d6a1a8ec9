"""TLS is verified, and a refused certificate gets an error that says what to do: against a local HTTPS server
whose certificate a CA of the test's own signed (trustme). scripts/check-wheel runs this file in every wheel, whose
libcurl and OpenSSL are the project's own build (docs/install.md#ca-certificates)."""

from __future__ import annotations

import ssl
from collections.abc import Iterator

import pytest
import trustme

import trunk_api

from scripted_server import Reply, ScriptedServer

UUID = "0f3c6a8e-5b7d-4c1e-9a2f-3b4c5d6e7f80"
TOKEN = "tls-test-token-0123456789"
ANSWER = Reply(200, {"test": {"id": UUID}})


@pytest.fixture(scope="module")
def authority() -> trustme.CA:
    return trustme.CA()


def _https_server(authority: trustme.CA, *names: str) -> ScriptedServer:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert(*names).configure_cert(context)
    return ScriptedServer([ANSWER], tls=context)


@pytest.fixture
def server(authority: trustme.CA) -> Iterator[ScriptedServer]:
    with _https_server(authority, "127.0.0.1", "localhost") as running:
        yield running


@pytest.fixture
def ca_file(authority: trustme.CA, tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("ca") / "ca.pem"
    authority.cert_pem.write_to_path(str(path))
    return str(path)


@pytest.fixture
def no_cert_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)


def _call(client: trunk_api.Client) -> str:
    return client.get_test_details("github.com/a/b", "org", UUID).id


def test_the_https_server_is_reached_with_its_ca_given_as_ca_bundle(server: ScriptedServer, ca_file: str) -> None:
    assert server.url.startswith("https://127.0.0.1:")
    assert _call(trunk_api.Client(TOKEN, server.url, ca_bundle=ca_file, max_retries=0)) == UUID
    assert len(server.received) == 1
    assert server.received[0].headers["x-api-token"] == TOKEN


@pytest.mark.usefixtures("no_cert_variables")
def test_a_certificate_no_trusted_authority_signed_is_refused_before_anything_is_sent(server: ScriptedServer) -> None:
    client = trunk_api.Client(TOKEN, server.url, max_retries=3)
    with pytest.raises(trunk_api.TransportError) as raised:
        _call(client)
    message = str(raised.value)
    # libcurl's own words, then what the client checked against and how to give the right bundle.
    assert "certificate" in message
    assert "the server's certificate was checked against " in message
    assert "ca_bundle option (--ca-bundle) or SSL_CERT_FILE" in message
    assert f"GET {server.url}/" in message or f"POST {server.url}/" in message
    assert TOKEN not in message
    # The token never reached a server the client could not verify.
    assert server.received == []


@pytest.mark.usefixtures("no_cert_variables")
def test_openssls_variable_ssl_cert_file_is_honoured(server: ScriptedServer, ca_file: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", ca_file)
    assert trunk_api.http_stack()["ca_certificates"] == f"SSL_CERT_FILE {ca_file}"
    assert _call(trunk_api.Client(TOKEN, server.url, max_retries=0)) == UUID


def test_the_option_wins_over_the_variable(server: ScriptedServer, ca_file: str,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", "/nonexistent/ca.pem")
    assert _call(trunk_api.Client(TOKEN, server.url, ca_bundle=ca_file, max_retries=0)) == UUID


def test_a_certificate_for_another_name_is_refused_even_from_the_trusted_authority(authority: trustme.CA,
                                                                                   ca_file: str) -> None:
    with _https_server(authority, "api.example.org") as other:
        with pytest.raises(trunk_api.TransportError) as raised:
            _call(trunk_api.Client(TOKEN, other.url, ca_bundle=ca_file, max_retries=0))
        assert "127.0.0.1" in str(raised.value)
        assert other.received == []


def test_a_bundle_file_that_does_not_exist_is_named_in_the_error(server: ScriptedServer) -> None:
    missing = "/nonexistent/trunk-tls-test/ca.pem"
    with pytest.raises(trunk_api.TransportError) as raised:
        _call(trunk_api.Client(TOKEN, server.url, ca_bundle=missing, max_retries=0))
    assert f"checked against ca_bundle {missing}" in str(raised.value)
    assert server.received == []


def test_verify_tls_false_is_the_one_way_past_verification(server: ScriptedServer) -> None:
    assert _call(trunk_api.Client(TOKEN, server.url, verify_tls=False, max_retries=0)) == UUID


def test_the_http_stack_speaks_https_with_one_tls_library() -> None:
    stack = trunk_api.http_stack()
    assert "https" in stack["protocols"]
    assert stack["tls"].startswith("OpenSSL/3.")
    assert stack["zlib"]  # the client asks for gzip and deflate
    assert stack["ca_certificates"]
