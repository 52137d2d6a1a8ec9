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
from trunk_api import ValidationError
from trunk_api._core import client as engines, declarations, sandbox as sandbox_engine
from trunk_api.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
ROWS = declarations.option_rows("client")
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
    assert list(by_name) == ["base_url", "token", "api_key", "trunk_token", "timeout", "connect_timeout", "max_retries",
                             "overall_deadline",
                             "user_agent", "verify_tls", "ca_bundle", "allow_insecure_http",
                             "max_requests_per_second", "prefetch_pages"]
    assert {name: row["default"] for name, row in by_name.items()} == {
        "base_url": None, "token": None, "api_key": None, "trunk_token": None, "timeout": 30.0, "connect_timeout": 10.0, "max_retries": 3,
        "overall_deadline": 120.0, "user_agent": None, "verify_tls": True, "ca_bundle": None,
        "allow_insecure_http": False, "max_requests_per_second": 0.0, "prefetch_pages": True}
    assert by_name["token"]["variables"] == ["TRUNK_API_TOKEN", "TRUNK_API_KEY"] and by_name["token"]["secret"]
    assert by_name["api_key"]["variables"] == ["TRUNK_API_KEY"] and by_name["api_key"]["secret"]
    assert by_name["trunk_token"]["variables"] == [] and by_name["trunk_token"]["secret"]  # Trunk's tools keep it
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
        assert engines.client_defaults()[name] == default
        assert f"``{name} = {default!r}``" in pydoc.render_doc(trunk_api.Client)

    core_stub = (ROOT / "python" / "trunk_api" / "_core" / "client.pyi").read_text()
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


@pytest.mark.parametrize(("page_name", "table"), [("configuration.md", "client"), ("sandbox.md", "sandbox")])
def test_the_docs_page_holds_the_generated_table(page_name: str, table: str) -> None:
    page = (ROOT / "docs" / page_name).read_text()
    hook = _load_docs_hook()
    assert f"<!-- option-table: {table} -->" in page
    rendered = hook.on_page_markdown(page, None, None, None)
    assert hook.render(ROWS if table == "client" else SANDBOX_ROWS) in rendered and "option-table" not in rendered


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


@pytest.mark.parametrize("make", [lambda **kw: trunk_api.Client("t", **kw), lambda **kw: engines.Client(**kw),
                                  lambda **kw: trunk_api.AsyncClient("t", **kw), lambda **kw: engines.AsyncClient(**kw)],
                         ids=["Client", "_core.client.Client", "AsyncClient", "_core.client.AsyncClient"])
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
BULK_ROWS = declarations.option_rows("bulk")


@pytest.mark.parametrize("row", BULK_ROWS, ids=[row["name"] for row in BULK_ROWS])
def test_every_derived_place_shows_the_bulk_row(row: dict[str, Any]) -> None:
    name, default = row["name"], row["default"]
    assert (name, default, row["rule"]) == ("concurrency", 8, "between 1 and 256")  # as before the rows
    for method in (trunk_api.Client.get_test_details_many, trunk_api.AsyncClient.get_test_details_many):
        parameter = inspect.signature(method).parameters[name]
        assert parameter.default == default and parameter.annotation == row["type"] and parameter.kind is parameter.KEYWORD_ONLY
    assert f"``{name} = {default!r}``" in pydoc.render_doc(trunk_api.Client.get_test_details_many)
    core_stub = (ROOT / "python" / "trunk_api" / "_core" / "client.pyi").read_text()
    assert core_stub.count(f"        {name}: {row['type']} = {default!r},\n") == 2  # _core.client.Client, .AsyncClient
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


# ---- the sandbox's options (SandboxOptions, its faults' rows taken in its place, and FaultOptions) --------------
SANDBOX_ROWS = declarations.option_rows("sandbox")
FAULT_ROWS = declarations.option_rows("faults")


def test_the_sandbox_rows_are_the_options_we_know() -> None:
    """The public keywords and their defaults, exactly as before the rows (users' code must not break); the
    durations stay whole milliseconds (the ``_ms`` names)."""
    by_name = {row["name"]: row for row in SANDBOX_ROWS}
    faults = ["latency_ms", "jitter_ms", "error_rate", "rate_limit", "drop_rate", "truncate_rate", "drop_after_rate",
              "rate_limited_rate", "rate_limited_retry_after_seconds", "fault_seed", "webhook_duplicate_rate",
              "webhook_delay_ms", "webhook_jitter_ms", "webhook_reorder"]
    assert [row["name"] for row in FAULT_ROWS] == faults
    assert list(by_name) == ["host", "port", "seed", "tests", "token", "api_key", "org_url_slug", "now", "state_file",
                             "data_file", "threads", *faults, "record_requests", "v2_rate_limits", "clock",
                             "flaky_failure_rate",
                             "broken_pull_request_rate", "run_minutes", "run_median_minutes", "run_sigma"]
    assert {name: row["default"] for name, row in by_name.items()} == {
        "host": "127.0.0.1", "port": 0, "seed": 42, "tests": 2000, "token": None, "api_key": None,
        "org_url_slug": "trunk-sandbox",
        "now": None, "state_file": None, "data_file": None, "threads": None, "latency_ms": 0, "jitter_ms": 0,
        "error_rate": 0.0, "rate_limit": 0.0, "drop_rate": 0.0, "truncate_rate": 0.0, "drop_after_rate": 0.0,
        "rate_limited_rate": 0.0, "rate_limited_retry_after_seconds": 1, "fault_seed": 1,
        "webhook_duplicate_rate": 0.0, "webhook_delay_ms": 0, "webhook_jitter_ms": 0, "webhook_reorder": False,
        "record_requests": True,
        "v2_rate_limits": False,
        "clock": "real", "flaky_failure_rate": None, "broken_pull_request_rate": None,
        "run_minutes": None, "run_median_minutes": 15.0, "run_sigma": 0.35}
    assert all(by_name[name]["unit"] == "milliseconds" and by_name[name]["type"] == "int"
               for name in faults if name.endswith("_ms"))
    assert by_name["clock"]["choices"] == ["real", "virtual"]
    # The flags users already type keep their spelling.
    assert {name: by_name[name]["flag"] for name in ("org_url_slug", "broken_pull_request_rate",
                                                      "rate_limited_retry_after_seconds", "webhook_delay_ms")} == {
        "org_url_slug": "--org", "broken_pull_request_rate": "--broken-rate",
        "rate_limited_retry_after_seconds": "--rate-limited-retry-after", "webhook_delay_ms": "--webhook-delay-ms"}


def _sandbox_help() -> str:
    return "".join(_help_of(["sandbox"]).split())


@pytest.mark.parametrize("row", SANDBOX_ROWS, ids=[row["name"] for row in SANDBOX_ROWS])
def test_every_derived_place_shows_the_sandbox_row(row: dict[str, Any]) -> None:
    """One row, every place made from it: Sandbox's signature and help(), the core's defaults, the stubs, the
    `trunk-api sandbox` flag and help, and the docs' table. Fails when any of them drifts from the row."""
    name, default = row["name"], row["default"]
    parameter = inspect.signature(trunk_api.Sandbox).parameters[name]
    assert parameter.default == default and parameter.annotation == row["type"]
    assert parameter.kind is parameter.KEYWORD_ONLY
    assert f"``{name} = {default!r}``: {row['doc']}" in pydoc.render_doc(trunk_api.Sandbox)
    assert sandbox_engine.sandbox_defaults()[name] == default

    core_stub = (ROOT / "python" / "trunk_api" / "_core" / "sandbox.pyi").read_text()
    block = core_stub.split("\nclass Sandbox:\n", 1)[1].split("    def start(", 1)[0]
    assert f"        {name}: {row['type'].removesuffix(' | None')} | None = {default!r},\n" in block  # None: default
    keywords = core_stub.split("class SandboxOptionKeywords(TypedDict, total=False):\n", 1)[1].split("\nclass ", 1)[0]
    assert f"    {name}: {row['type'].removesuffix(' | None')} | None\n" in keywords

    parsed = build_parser().parse_args(["sandbox"])
    assert getattr(parsed, name) == default
    help_text = _sandbox_help()
    assert row["flag"] in help_text and "".join(row["doc"].rstrip(".").split()).replace("%", "") in help_text
    if row["rule"] and not row["choices"]:
        assert "".join(row["rule"].split()) in help_text

    table = _load_docs_hook().render(SANDBOX_ROWS)
    line = next(line for line in table.splitlines() if line.startswith(f"| `{name}` |"))
    assert f"`{row['flag']}`" in line and row["doc"].replace("|", "\\|") in line and row["rule"] in line
    assert ("none" in line) if default is None else (str(default) in line)


@pytest.mark.parametrize("row", FAULT_ROWS, ids=[row["name"] for row in FAULT_ROWS])
def test_every_derived_place_shows_the_fault_row(box: trunk_api.Sandbox, row: dict[str, Any]) -> None:
    """A fault row also makes a property of Sandbox, a keyword of set_faults (None = unchanged) and a key of
    faults, in the same unit as the keyword."""
    name = row["name"]
    assert row in SANDBOX_ROWS
    prop = getattr(trunk_api.Sandbox, name)
    assert isinstance(prop, property) and prop.__doc__ is not None and row["doc"] in prop.__doc__
    parameter = inspect.signature(trunk_api.Sandbox.set_faults).parameters[name]
    assert parameter.default is None and parameter.kind is parameter.KEYWORD_ONLY
    core_stub = (ROOT / "python" / "trunk_api" / "_core" / "sandbox.pyi").read_text()
    block = core_stub.split("\nclass Sandbox:\n", 1)[1].split("    def set_faults(", 1)[1].split(") -> None", 1)[0]
    assert f"        {name}: {row['type']} | None = None,\n" in block
    keywords = core_stub.split("class FaultOptionKeywords(TypedDict, total=False):\n", 1)[1].split("\nclass ", 1)[0]
    assert f"    {name}: {row['type']} | None\n" in keywords

    before = box.faults
    try:
        value = {"int": 3, "bool": True}.get(row["type"], 0.5)
        box.set_faults(**{name: value})
        assert getattr(box, name) == value and box.faults[name] == value
        box.set_faults(**{name: None})  # None: unchanged
        assert box.faults[name] == value
        setattr(box, name, row["default"])
        assert box.faults[name] == row["default"]
    finally:
        box.set_faults(**before)


# One bound per option: the more permissive of the two command lines' before the rows (latency_ms was 600000 in
# trunk-sandbox, 3600000 in Python; threads 1..1024 there, 0..256 here, and 0 was then refused at start).
SANDBOX_ACCEPTED = [
    ("latency_ms", 0), ("latency_ms", 3_600_000), ("jitter_ms", 3_600_000), ("webhook_delay_ms", 86_400_000),
    ("webhook_jitter_ms", 86_400_000), ("error_rate", 1), ("webhook_duplicate_rate", 1.0), ("rate_limit", 0),
    ("rate_limited_retry_after_seconds", 86_400), ("fault_seed", 2**64 - 1),
]
SANDBOX_REFUSED = [
    ("latency_ms", 3_600_001, "must be between 0 and 3600000 milliseconds"),
    ("latency_ms", -1, "must be between 0 and 3600000 milliseconds"),
    ("jitter_ms", 3_600_001, "must be between 0 and 3600000 milliseconds"),
    ("webhook_delay_ms", 86_400_001, "must be between 0 and 86400000 milliseconds"),
    ("webhook_jitter_ms", 86_400_001, "must be between 0 and 86400000 milliseconds"),
    ("latency_ms", 2.5, "must be an integer"),
    ("error_rate", 1.001, "must be >= 0 and <= 1"),
    ("drop_after_rate", -0.001, "must be >= 0 and <= 1"),
    ("rate_limit", -0.001, "must be >= 0"),
    ("rate_limited_retry_after_seconds", 86_401, "must be between 0 and 86400"),
    ("fault_seed", 2**64, "must be <= 18446744073709551615"),
    ("fault_seed", -1, "must be >= 0"),
]


@pytest.mark.parametrize(("name", "value"), SANDBOX_ACCEPTED)
def test_fault_values_at_the_bound_are_accepted(box: trunk_api.Sandbox, name: str, value: object) -> None:
    before = box.faults
    try:
        box.set_faults(**{name: value})
        assert box.faults[name] == value
    finally:
        box.set_faults(**before)


@pytest.mark.parametrize(("name", "value", "rule"), SANDBOX_REFUSED)
def test_fault_values_past_the_bound_name_option_value_and_rule(box: trunk_api.Sandbox, name: str, value: object,
                                                                rule: str) -> None:
    before = box.faults
    for attempt in (lambda: trunk_api.Sandbox(**{name: value}), lambda: box.set_faults(**{name: value})):
        with pytest.raises(ValidationError) as caught:
            attempt()
        (violation,) = caught.value.errors
        assert (violation.field, violation.value, violation.rule) == (name, repr(value), rule)
    assert box.faults == before  # a refused set_faults changes nothing


@pytest.mark.parametrize(("name", "value"), [("port", 65_535), ("threads", 1), ("threads", 1024),
                                             ("tests", 10_000_000), ("seed", 2**64 - 1), ("flaky_failure_rate", 1),
                                             ("broken_pull_request_rate", 0), ("clock", "virtual")])
def test_sandbox_values_at_the_bound_are_accepted(name: str, value: object) -> None:
    trunk_api.Sandbox(**{name: value})  # converted and checked here; nothing is started


@pytest.mark.parametrize(("name", "value", "rule"), [
    ("port", 65_536, "must be between 0 and 65535"), ("threads", 0, "must be between 1 and 1024"),
    ("threads", 1025, "must be between 1 and 1024"), ("tests", 10_000_001, "must be between 0 and 10000000"),
    ("tests", -1, "must be between 0 and 10000000"), ("seed", 2**64, "must be <= 18446744073709551615"),
    ("flaky_failure_rate", 1.5, "must be >= 0 and <= 1"), ("clock", "wall", 'must be "real" or "virtual"'),
    ("record_requests", 1, "must be True or False"), ("now", "yesterday", None)])
def test_sandbox_values_past_the_bound_name_option_value_and_rule(name: str, value: object, rule: str | None) -> None:
    with pytest.raises(ValidationError) as caught:
        trunk_api.Sandbox(**{name: value})
    (violation,) = caught.value.errors
    assert violation.field == name and violation.value in (repr(value), str(value), f'"{value}"')
    if rule is not None:
        assert violation.rule == rule


def test_an_unknown_sandbox_option_or_fault_is_a_type_error_naming_it(box: trunk_api.Sandbox) -> None:
    with pytest.raises(TypeError, match="latency_msec"):
        trunk_api.Sandbox(latency_msec=5)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="error_rat"):
        box.set_faults(error_rat=0.5)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="seed"):  # the data's seed is not a fault setting (fault_seed is)
        box.set_faults(seed=3)  # type: ignore[call-arg]


def test_sandbox_flags_reach_the_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every row's flag of `trunk-api sandbox` is handed to Sandbox under the row's name."""
    from trunk_api import _cli_sandbox

    seen: dict[str, Any] = {}

    class Recorder:
        def __init__(self, **options: Any) -> None:
            seen.update(options)
            raise RuntimeError("recorded")

    monkeypatch.setattr(trunk_api, "Sandbox", Recorder)
    args = build_parser().parse_args(["sandbox", "--latency-ms", "20", "--org", "acme", "--clock", "virtual",
                                      "--webhook-delay-ms", "1500", "--broken-rate", "0.5", "--no-record-requests",
                                      "--rate-limited-retry-after", "7", "--threads", "3"])
    with pytest.raises(RuntimeError, match="recorded"):
        _cli_sandbox.run(type("Ctx", (), {"args": args})())
    assert set(seen) == {row["name"] for row in SANDBOX_ROWS}
    assert (seen["latency_ms"], seen["org_url_slug"], seen["clock"], seen["webhook_delay_ms"]) == (20, "acme",
                                                                                                   "virtual", 1500)
    assert (seen["broken_pull_request_rate"], seen["record_requests"], seen["rate_limited_retry_after_seconds"],
            seen["threads"]) == (0.5, False, 7, 3)
