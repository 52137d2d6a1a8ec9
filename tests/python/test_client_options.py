"""Client options: defaults, conversion of every keyword, and a ValidationError naming a bad one."""

from __future__ import annotations

import pytest

import trunk_api
from trunk_api import ValidationError


def test_defaults_and_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TRUNK_BASE_URL", raising=False)
    assert trunk_api.Client("some-token-value").base_url == "https://api.trunk.io"
    assert trunk_api.Client("some-token-value", "http://127.0.0.1:9/").base_url == "http://127.0.0.1:9"


@pytest.mark.parametrize(("given", "resolved"), [
    ("http://127.0.0.1:9/v1", "http://127.0.0.1:9"),
    ("http://127.0.0.1:9/v1/", "http://127.0.0.1:9"),
    ("http://127.0.0.1:9/v10", "http://127.0.0.1:9/v10"),
    ("http://127.0.0.1:9/api/v1", "http://127.0.0.1:9/api"),
    ("http://127.0.0.1:9", "http://127.0.0.1:9"),
])
def test_base_url_with_the_version_is_the_same_service(monkeypatch: pytest.MonkeyPatch, given: str,
                                                       resolved: str) -> None:
    """The core's one rule (tested at its boundaries in C++): Python shows what it resolved."""
    assert trunk_api.Client("some-token-value", given).base_url == resolved
    monkeypatch.setenv("TRUNK_BASE_URL", given)
    assert trunk_api.Client("some-token-value").base_url == resolved


def test_publishers_spelling_reaches_the_operations(box: trunk_api.Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    """TRUNK_BASE_URL=.../v1 and TRUNK_API_KEY, as the publisher's tools read them, serve the SDK too; when both
    token variables are set, TRUNK_API_TOKEN wins."""
    monkeypatch.setenv("TRUNK_BASE_URL", box.url + "/v1")
    monkeypatch.delenv("TRUNK_API_TOKEN", raising=False)
    monkeypatch.setenv("TRUNK_API_KEY", box.token)
    assert trunk_api.Client().get_queue(box.repos[0], "main").branch == "main"
    assert [r.path for r in box.requests] == ["/v1/getQueue"]
    monkeypatch.setenv("TRUNK_API_TOKEN", "not-the-sandbox-token")
    with pytest.raises(trunk_api.AuthenticationError) as caught:
        trunk_api.Client(max_retries=0).get_queue(box.repos[0], "main")
    assert "not-the-sandbox-token" not in str(caught.value) and box.token not in str(caught.value)


def test_every_keyword_accepted() -> None:
    client = trunk_api.Client(
        "some-token-value",
        "https://api.trunk-staging.io",
        timeout=5,
        max_retries=0,
        user_agent="my-bot/1.0",
        connect_timeout=2.5,
        overall_deadline=0,
        verify_tls=False,
        ca_bundle="/etc/ssl/certs/ca-certificates.crt",
        allow_insecure_http=False,
        max_requests_per_second=50,
    )
    assert client.base_url == "https://api.trunk-staging.io"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"timeout": 0}, "timeout"),
        ({"timeout": -1.0}, "timeout"),
        ({"timeout": float("nan")}, "timeout"),
        ({"timeout": "30"}, "timeout"),
        ({"connect_timeout": 0}, "connect_timeout"),
        ({"overall_deadline": -1}, "overall_deadline"),
        ({"max_retries": -1}, "max_retries"),
        ({"max_retries": 101}, "max_retries"),
        ({"max_retries": 2.5}, "max_retries"),
        ({"verify_tls": "yes"}, "verify_tls"),
        ({"allow_insecure_http": 1}, "allow_insecure_http"),
        ({"max_requests_per_second": -5}, "max_requests_per_second"),
        ({"user_agent": 7}, "user_agent"),
    ],
)
def test_bad_option_names_the_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        trunk_api.Client("some-token-value", "http://127.0.0.1:9", **kwargs)  # type: ignore[arg-type]
    assert caught.value.errors[0].field == field


def test_bad_base_url_is_a_trunk_error() -> None:
    with pytest.raises(trunk_api.TrunkError):
        trunk_api.Client("some-token-value", "ftp://example.com")


def test_unknown_update_queue_keyword_is_a_type_error(client: trunk_api.Client, box: trunk_api.Sandbox) -> None:
    with pytest.raises(TypeError):
        client.update_queue(box.repos[0], "main", concurency=3)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        client._core.update_queue(box.repos[0], "main", concurency=3)
    assert box.requests == []


def test_defaults_come_from_the_core_declaration() -> None:
    """ClientOptions (C++) is the one place the defaults are written: the facade's signature, the core's and the
    command line's options all show the same values."""
    import inspect

    from trunk_api._core import client as engines
    from trunk_api.cli import build_parser

    defaults = engines.client_defaults()
    assert defaults["timeout"] == 30.0 and defaults["max_retries"] == 3 and defaults["overall_deadline"] == 120.0
    signature = inspect.signature(trunk_api.Client)
    for name, value in defaults.items():
        assert signature.parameters[name].default == value, name
    args = build_parser().parse_args(["test", "00000000-0000-0000-0000-000000000000", "--repo", "h/o/n", "--org", "o"])
    assert args.timeout == defaults["timeout"] and args.max_retries == defaults["max_retries"]
