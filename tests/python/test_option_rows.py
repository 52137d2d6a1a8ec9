"""The Client options are declared once, as rows in C++ (ClientOptions, option_rows.hpp): every place that shows
or takes them is derived from the rows, and every rule a row declares is checked at its boundaries."""

from __future__ import annotations

import importlib.util
import inspect
import pydoc
from pathlib import Path
from typing import Any

import pytest

import trunk_api
from trunk_api import ValidationError, _core
from trunk_api.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
ROWS = _core.option_rows("client")
A_YEAR = 365 * 24 * 3600


def _load_docs_hook() -> Any:
    spec = importlib.util.spec_from_file_location("option_tables", ROOT / "docs" / "hooks" / "option_tables.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _help_of(argv: list[str]) -> str:
    parser = build_parser()
    for action in parser._actions:  # the subcommand's own parser, as `trunk-api <argv> --help` prints it
        if hasattr(action, "choices") and isinstance(action.choices, dict) and argv[0] in action.choices:
            return str(action.choices[argv[0]].format_help())
    raise AssertionError(argv)


def test_the_rows_are_the_options_we_know() -> None:
    """The public keywords, their defaults and variables, exactly as before the rows (users' code must not
    break)."""
    by_name = {row["name"]: row for row in ROWS}
    assert list(by_name) == ["base_url", "token", "timeout", "connect_timeout", "max_retries", "overall_deadline",
                             "user_agent", "verify_tls", "ca_bundle", "allow_insecure_http",
                             "max_requests_per_second", "prefetch_pages"]
    assert {name: row["default"] for name, row in by_name.items()} == {
        "base_url": None, "token": None, "timeout": 30.0, "connect_timeout": 10.0, "max_retries": 3,
        "overall_deadline": 120.0, "user_agent": None, "verify_tls": True, "ca_bundle": None,
        "allow_insecure_http": False, "max_requests_per_second": 0.0, "prefetch_pages": True}
    assert by_name["token"]["variables"] == ["TRUNK_API_TOKEN", "TRUNK_API_KEY"] and by_name["token"]["secret"]
    assert by_name["base_url"]["variables"] == ["TRUNK_BASE_URL"]


@pytest.mark.parametrize("row", ROWS, ids=[row["name"] for row in ROWS])
def test_every_derived_place_shows_the_row(row: dict[str, Any]) -> None:
    """One row, every place made from it: the facades' signatures, help(), the core's defaults, the stubs, the
    command line's flag and help, and the docs' table. Fails when any of them drifts from the row."""
    name, default = row["name"], row["default"]
    for facade in (trunk_api.Client, trunk_api.AsyncClient):
        parameter = inspect.signature(facade).parameters[name]
        assert parameter.default == default and parameter.annotation == row["type"], (facade, name)
    assert f"``{name}" in pydoc.render_doc(trunk_api.Client)
    if not row["secret"]:
        assert _core.client_defaults()[name] == default
        assert f"``{name} = {default!r}``" in pydoc.render_doc(trunk_api.Client)

    core_stub = (ROOT / "python" / "trunk_api" / "_core.pyi").read_text()
    for core_class in ("Client", "AsyncClient"):
        block = core_stub.split(f"\nclass {core_class}:\n", 1)[1].split("\nclass ", 1)[0]
        assert f"        {name}: {row['type']} = {default!r},\n" in block, core_class
    async_stub = (ROOT / "python" / "trunk_api" / "async_client.pyi").read_text()
    assert f"{name}: {row['type']} = {default!r}" in async_stub
    if name not in ("token", "base_url"):  # those two are positional too, not in the keywords' TypedDict
        assert f"    {name}: {row['type']}\n" in core_stub

    flag = "--" + name.replace("_", "-")
    parsed = build_parser().parse_args(["test", "00000000-0000-0000-0000-000000000000", "--repo", "h/o/n",
                                        "--org", "o"])
    assert getattr(parsed, name) == default
    help_text = "".join(_help_of(["test"]).split())  # argparse wraps lines, at spaces and hyphens
    assert flag in help_text and "".join(row["doc"].rstrip(".").split()) in help_text
    if row["rule"]:
        assert "".join(row["rule"].split()) in help_text

    table = _load_docs_hook().render(ROWS)
    line = next(line for line in table.splitlines() if line.startswith(f"| `{name}` |"))
    assert f"`{flag}`" in line and row["doc"] in line and (row["rule"] in line)
    assert ("none" in line) if default is None else (repr(default) in line)
    assert all(f"`{variable}`" in line for variable in row["variables"])


def test_the_docs_page_holds_the_generated_table() -> None:
    page = (ROOT / "docs" / "configuration.md").read_text()
    hook = _load_docs_hook()
    assert "<!-- option-table: client -->" in page
    rendered = hook.on_page_markdown(page, None, None, None)
    assert hook.render(ROWS) in rendered and "option-table" not in rendered


# ---- every declared rule, at its boundaries ---------------------------------------------------------------------
ACCEPTED = [
    ("timeout", 0.001), ("timeout", A_YEAR), ("connect_timeout", 0.001), ("connect_timeout", A_YEAR),
    ("overall_deadline", 0), ("overall_deadline", A_YEAR), ("max_retries", 0), ("max_retries", 100),
    ("max_requests_per_second", 0), ("max_requests_per_second", 0.5),
]
REFUSED = [
    ("timeout", 0, "must be > 0 and <= 31536000 seconds"),
    ("timeout", A_YEAR + 0.001, "must be > 0 and <= 31536000 seconds"),
    ("connect_timeout", 0, "must be > 0 and <= 31536000 seconds"),
    ("connect_timeout", A_YEAR + 1, "must be > 0 and <= 31536000 seconds"),
    ("overall_deadline", -0.001, "must be >= 0 and <= 31536000 seconds"),
    ("overall_deadline", A_YEAR + 1, "must be >= 0 and <= 31536000 seconds"),
    ("max_retries", -1, "must be between 0 and 100"),
    ("max_retries", 101, "must be between 0 and 100"),
    ("max_requests_per_second", -0.001, "must be >= 0"),
    ("timeout", float("inf"), "must be a finite number"),
    ("max_retries", True, "must be an integer"),
    ("prefetch_pages", 0, "must be True or False"),
    ("ca_bundle", b"/etc/ssl", "must be a string"),
]


@pytest.mark.parametrize(("name", "value"), ACCEPTED)
@pytest.mark.parametrize("facade", [trunk_api.Client, trunk_api.AsyncClient])
def test_values_at_the_boundary_are_accepted(facade: Any, name: str, value: object) -> None:
    client = facade("some-token-value", "http://127.0.0.1:9", **{name: value})
    assert client._settings[name] == value


@pytest.mark.parametrize(("name", "value", "rule"), REFUSED)
@pytest.mark.parametrize("facade", [trunk_api.Client, trunk_api.AsyncClient])
def test_values_past_the_boundary_name_option_value_and_rule(facade: Any, name: str, value: object,
                                                             rule: str) -> None:
    with pytest.raises(ValidationError) as caught:
        facade("some-token-value", "http://127.0.0.1:9", **{name: value})
    (violation,) = caught.value.errors
    assert (violation.field, violation.value, violation.rule) == (name, repr(value), rule)
    assert "some-token-value" not in str(caught.value)


def test_every_bad_option_is_reported_at_once() -> None:
    with pytest.raises(ValidationError) as caught:
        trunk_api.Client("some-token-value", timeout=0, max_retries=-1, verify_tls="no")
    assert [v.field for v in caught.value.errors] == ["timeout", "max_retries", "verify_tls"]


@pytest.mark.parametrize("make", [lambda **kw: trunk_api.Client("t", **kw), lambda **kw: _core.Client(**kw),
                                  lambda **kw: trunk_api.AsyncClient("t", **kw), lambda **kw: _core.AsyncClient(**kw)],
                         ids=["Client", "_core.Client", "AsyncClient", "_core.AsyncClient"])
def test_an_unknown_option_is_a_type_error_naming_it(make: Any) -> None:
    with pytest.raises(TypeError, match="max_request_per_second"):
        make(max_request_per_second=5)


def test_a_bad_token_is_never_rendered() -> None:
    with pytest.raises(ValidationError) as caught:
        trunk_api.Client(b"secret-bytes-token")  # type: ignore[arg-type]
    assert "secret-bytes-token" not in str(caught.value)
    assert caught.value.errors[0].field == "token"


def test_command_line_flags_reach_the_client(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every row's flag is taken by the command line and handed to Client under the row's name."""
    from trunk_api import cli

    seen: dict[str, Any] = {}

    class Recorder:
        def __init__(self, **options: Any) -> None:
            seen.update(options)

    monkeypatch.setattr(trunk_api, "Client", Recorder)
    args = build_parser().parse_args(["test", "00000000-0000-0000-0000-000000000000", "--repo", "h/o/n", "--org",
                                      "o", "--base-url", "http://127.0.0.1:9", "--max-requests-per-second", "5",
                                      "--no-verify-tls", "--connect-timeout", "2.5", "--user-agent", "bot/1"])
    cli._Context(args, None, None).client()  # type: ignore[arg-type]
    assert seen["max_requests_per_second"] == 5.0 and seen["verify_tls"] is False
    assert seen["connect_timeout"] == 2.5 and seen["user_agent"] == "bot/1" and seen["timeout"] == 30.0
    assert set(seen) == {row["name"] for row in ROWS}


# ---- the bulk calls' options (BulkOptions) ------------------------------------------------------------------------
BULK_ROWS = _core.option_rows("bulk")


@pytest.mark.parametrize("row", BULK_ROWS, ids=[row["name"] for row in BULK_ROWS])
def test_every_derived_place_shows_the_bulk_row(row: dict[str, Any]) -> None:
    name, default = row["name"], row["default"]
    assert (name, default, row["rule"]) == ("concurrency", 8, "between 1 and 256")  # as before the rows
    for method in (trunk_api.Client.get_test_details_many, trunk_api.AsyncClient.get_test_details_many):
        parameter = inspect.signature(method).parameters[name]
        assert parameter.default == default and parameter.annotation == row["type"] and parameter.kind is parameter.KEYWORD_ONLY
    assert f"``{name} = {default!r}``" in pydoc.render_doc(trunk_api.Client.get_test_details_many)
    core_stub = (ROOT / "python" / "trunk_api" / "_core.pyi").read_text()
    assert core_stub.count(f"        {name}: {row['type']} = {default!r},\n") == 2  # _core.Client, _core.AsyncClient
    assert f"class BulkOptionKeywords(TypedDict, total=False):\n" in core_stub
    assert f"    {name}: {row['type']}\n" in core_stub.split("class BulkOptionKeywords", 1)[1]
    async_stub = (ROOT / "python" / "trunk_api" / "async_client.pyi").read_text()
    assert f"{name}: {row['type']} = {default!r}" in async_stub.split("async def get_test_details_many", 1)[1]


@pytest.mark.parametrize("value", [0, 257])
def test_a_bulk_option_past_its_bound_names_option_value_and_rule(box: trunk_api.Sandbox, client: trunk_api.Client,
                                                                   value: int) -> None:
    repo = box.repos[0]
    with pytest.raises(ValidationError) as caught:
        client.get_test_details_many(repo, box.org_url_slug, box.test_ids(repo)[:1], concurrency=value)
    (violation,) = caught.value.errors
    assert (violation.field, violation.value, violation.rule) == ("concurrency", str(value), "must be between 1 and 256")
    assert box.requests == []


def test_an_unknown_bulk_option_is_a_type_error(box: trunk_api.Sandbox, client: trunk_api.Client) -> None:
    repo = box.repos[0]
    with pytest.raises(TypeError, match="concurency"):
        client.get_test_details_many(repo, box.org_url_slug, box.test_ids(repo)[:1], concurency=2)  # type: ignore[call-arg]
    assert box.requests == []
