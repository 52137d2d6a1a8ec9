"""Bad-input matrix through the public Python API (the C++ side is tests/cpp/reliability).

Three tables:
- client-side: every invalid argument (wrong Python types, 2**70, floats for ints, bytes for str, None for
  required, unknown enum strings, bad UUIDs, bad times, 7 days + 1 us, huge page sizes, lone surrogates...)
  raises trunk_api.ValidationError whose message and violations name the field, and nothing reaches the
  sandbox (its request record stays empty);
- server responses: a 200 whose body is malformed or mistyped raises DecodeError naming the JSON path, once;
- raw HTTP to the sandbox: malformed, mistyped, non-UTF-8 and oversized bodies get 400 / 413 naming the field.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

import trunk_api
from trunk_api import Client, DecodeError, ValidationError

from conftest import NOW, WEEK_START, ensure_queue
from scripted_server import Reply, ScriptedServer

UUID = "0f3c6a8e-5b7d-4c1e-9a2f-3b4c5d6e7f80"
Call = Callable[[Client, Any, str], object]  # (client, repo, org) -> anything


@dataclass(frozen=True)
class Bad:
    name: str
    field: str
    call: Call


def failing(**changes: Any) -> Call:
    def call(client: Client, repo: Any, org: str) -> object:
        args: dict[str, Any] = {"repo": repo, "org_url_slug": org, "start_time": NOW - timedelta(days=1),
                                "end_time": NOW}
        args.update(changes)
        return client.list_failing_tests(**args)
    return call


def unhealthy(**changes: Any) -> Call:
    def call(client: Client, repo: Any, org: str) -> object:
        args: dict[str, Any] = {"repo": repo, "org_url_slug": org, "status": "FLAKY"}
        args.update(changes)
        return client.list_unhealthy_tests(**args)
    return call


def details(**changes: Any) -> Call:
    def call(client: Client, repo: Any, org: str) -> object:
        args: dict[str, Any] = {"repo": repo, "org_url_slug": org, "test_id": UUID}
        args.update(changes)
        return client.get_test_details(**args)
    return call


def queue(**changes: Any) -> Call:
    def call(client: Client, repo: Any, org: str) -> object:
        args: dict[str, Any] = {"repo": repo, "target_branch": "main"}
        args.update(changes)
        return client.update_queue(**args)
    return call


def iterate(**changes: Any) -> Call:
    def call(client: Client, repo: Any, org: str) -> object:
        args: dict[str, Any] = {"repo": repo, "org_url_slug": org, "start_time": WEEK_START, "end_time": NOW}
        args.update(changes)
        return client.iter_failing_tests(**args).to_list()
    return call


NAIVE_NOW = NOW.replace(tzinfo=None)
PLUS_5 = timezone(timedelta(hours=5))

CLIENT_SIDE = [
    # repo
    Bad("repo_none", "repo", failing(repo=None)),
    Bad("repo_bytes", "repo", failing(repo=b"github.com/a/b")),
    Bad("repo_int", "repo", failing(repo=42)),
    Bad("repo_two_parts", "repo", failing(repo="github.com/acme")),
    Bad("repo_empty_string", "repo", failing(repo="")),
    Bad("repo_empty_owner", "repo.owner",
        lambda c, r, o: c.get_test_details(trunk_api.Repo(host="github.com", owner="", name="w"), o, UUID)),
    Bad("repo_string_empty_owner", "repo", failing(repo="github.com//widgets")),
    Bad("repo_lone_surrogate", "repo", details(repo="github.com/a/\ud800")),
    # org_url_slug
    Bad("org_none", "org_url_slug", failing(org_url_slug=None)),
    Bad("org_empty", "org_url_slug", failing(org_url_slug="")),
    Bad("org_bytes", "org_url_slug", details(org_url_slug=b"acme")),
    Bad("org_int", "org_url_slug", unhealthy(org_url_slug=7)),
    # page size / token
    Bad("page_size_zero", "page_query.page_size", failing(page_size=0)),
    Bad("page_size_101", "page_query.page_size", failing(page_size=101)),
    Bad("page_size_2_pow_32", "page_query.page_size", failing(page_size=2**32)),
    Bad("page_size_2_pow_70", "page_query.page_size", failing(page_size=2**70)),
    Bad("page_size_minus_2_pow_70", "page_query.page_size", unhealthy(page_size=-(2**70))),
    Bad("page_size_float", "page_query.page_size", failing(page_size=10.0)),
    Bad("page_size_bool", "page_query.page_size", failing(page_size=True)),
    Bad("page_size_str", "page_query.page_size", unhealthy(page_size="10")),
    Bad("page_size_none", "page_query.page_size", failing(page_size=None)),
    Bad("page_token_bytes", "page_query.page_token", failing(page_token=b"abc")),
    Bad("page_token_surrogate", "page_query.page_token", unhealthy(page_token="\udcff")),
    Bad("max_results_negative", "max_results", iterate(max_results=-1)),
    Bad("max_results_float", "max_results", iterate(max_results=1.5)),
    # times
    Bad("window_7_days_plus_1us", "end_time", failing(start_time=NOW - timedelta(days=7, microseconds=1))),
    Bad("window_empty", "end_time", failing(start_time=NOW)),
    Bad("window_reversed", "end_time", failing(start_time=NOW + timedelta(seconds=1))),
    Bad("naive_start", "start_time", failing(start_time=NAIVE_NOW - timedelta(days=1))),  # refused, not guessed
    Bad("naive_end", "end_time", failing(end_time=NAIVE_NOW)),
    Bad("offsetless_text_start", "start_time", failing(start_time="2026-11-19T12:00:00")),
    Bad("offset_window_reversed", "end_time", failing(start_time=NOW.astimezone(PLUS_5) + timedelta(hours=1))),
    Bad("start_time_none", "start_time", failing(start_time=None)),
    Bad("start_time_int", "start_time", failing(start_time=1_700_000_000)),
    Bad("start_time_float", "start_time", failing(start_time=1.7e9)),
    Bad("start_time_date", "start_time", failing(start_time=NOW.date())),
    Bad("start_time_bytes", "start_time", failing(start_time=b"2026-11-19T12:00:00Z")),
    Bad("start_time_month_13", "start_time", failing(start_time="2026-13-01T00:00:00Z")),
    Bad("start_time_words", "start_time", failing(start_time="yesterday")),
    Bad("end_time_empty_string", "end_time", failing(end_time="")),
    Bad("end_time_feb_30", "end_time", failing(end_time="2026-02-30T00:00:00Z")),
    Bad("end_time_bad_offset", "end_time", failing(end_time="2026-11-20T12:00:00+25:00")),
    # status enum
    Bad("status_unknown", "status", unhealthy(status="SICK")),
    Bad("status_empty", "status", unhealthy(status="")),
    Bad("status_int", "status", unhealthy(status=1)),
    Bad("status_none", "status", unhealthy(status=None)),
    Bad("status_queue_enum", "status", unhealthy(status=trunk_api.QueueMode("single"))),
    # test id
    Bad("test_id_empty", "test_id", details(test_id="")),
    Bad("test_id_word", "test_id", details(test_id="latest")),
    Bad("test_id_short", "test_id", details(test_id=UUID[:-1])),
    Bad("test_id_braces", "test_id", details(test_id="{" + UUID + "}")),
    Bad("test_id_no_dashes", "test_id", details(test_id=UUID.replace("-", ""))),
    Bad("test_id_non_hex", "test_id", details(test_id=UUID[:-1] + "g")),
    Bad("test_id_bytes", "test_id", details(test_id=UUID.encode())),
    Bad("test_id_none", "test_id", details(test_id=None)),
    Bad("test_id_int", "test_id", details(test_id=123)),
    Bad("test_id_surrogate", "test_id", details(test_id="\ud800" + UUID[1:])),
    # update_queue
    Bad("branch_none", "targetBranch", queue(target_branch=None)),
    Bad("branch_empty", "targetBranch", queue(target_branch="")),
    Bad("branch_bytes", "targetBranch", queue(target_branch=b"main")),
    Bad("concurrency_zero", "concurrency", queue(concurrency=0)),
    Bad("concurrency_2_pow_32", "concurrency", queue(concurrency=4294967296)),
    Bad("concurrency_2_pow_70", "concurrency", queue(concurrency=2**70)),
    Bad("concurrency_negative", "concurrency", queue(concurrency=-1)),
    Bad("concurrency_float", "concurrency", queue(concurrency=2.0)),
    Bad("concurrency_str", "concurrency", queue(concurrency="4")),
    Bad("concurrency_bool", "concurrency", queue(concurrency=True)),
    Bad("bisection_zero", "bisectionConcurrency", queue(bisection_concurrency=0)),
    Bad("timeout_minutes_huge", "testingTimeoutMinutes", queue(testing_timeout_minutes=2**63)),
    Bad("pending_depth_zero", "pendingFailureDepth", queue(pending_failure_depth=0)),
    Bad("batch_wait_zero", "batchingMaxWaitTimeMinutes", queue(batching_max_wait_time_minutes=0)),
    Bad("batch_min_size_2_pow_32", "batchingMinSize", queue(batching_min_size=4294967296)),
    Bad("batch_int", "batch", queue(batch=1)),
    Bad("batch_str", "batch", queue(batch="true")),
    Bad("comments_none_string", "commentsEnabled", queue(comments_enabled="None")),
    Bad("state_switching_modes", "state", queue(state="switching_modes")),
    Bad("state_unknown", "state", queue(state="stopped")),
    Bad("state_upper_case", "state", queue(state="RUNNING")),
    Bad("mode_unknown", "mode", queue(mode="turbo")),
    Bad("mode_int", "mode", queue(mode=1)),
    Bad("direct_merge_unknown", "directMergeMode", queue(direct_merge_mode="sometimes")),
    Bad("optimization_unknown", "optimizationMode", queue(optimization_mode="fast")),
    Bad("merge_method_unknown", "mergeMethod", queue(merge_method="octopus")),
    Bad("required_statuses_str", "requiredStatuses", queue(required_statuses="ci")),
    Bad("required_statuses_bytes_item", "requiredStatuses[0]", queue(required_statuses=[b"ci"])),
    Bad("required_statuses_int_item", "requiredStatuses[1]", queue(required_statuses=["ci", 3])),
    Bad("required_statuses_empty_item", "requiredStatuses[0]", queue(required_statuses=[""])),
    Bad("required_with_delete", "requiredStatuses", queue(required_statuses=["ci"], delete_required_statuses=True)),
]


@pytest.mark.parametrize("bad", CLIENT_SIDE, ids=[b.name for b in CLIENT_SIDE])
def test_client_side_bad_input(bad: Bad, box: trunk_api.Sandbox, client: Client, repo: trunk_api.Repo) -> None:
    with pytest.raises(ValidationError) as caught:
        bad.call(client, repo, box.org_url_slug)
    error = caught.value
    assert bad.field in [v.field for v in error.errors], str(error)
    assert bad.field in str(error)
    assert box.requests == [], "a request reached the sandbox"


def test_every_mistake_of_one_call_is_reported_at_once(box: trunk_api.Sandbox, client: Client) -> None:
    with pytest.raises(ValidationError) as caught:
        client.update_queue(b"repo", "", concurrency=0, mode="turbo", batch="yes")  # type: ignore[arg-type]
    assert {v.field for v in caught.value.errors} >= {"repo", "targetBranch", "concurrency", "mode", "batch"}
    assert box.requests == []


def test_valid_side_of_each_boundary_is_sent(box: trunk_api.Sandbox, client: Client, repo: trunk_api.Repo) -> None:
    ensure_queue(box, repo, "bounds")
    org = box.org_url_slug
    client.list_failing_tests(repo, org, NOW - timedelta(days=7), NOW, page_size=100)  # exactly 7 days
    client.list_failing_tests(repo, org, NAIVE_NOW.replace(tzinfo=timezone.utc) - timedelta(days=7), NOW,
                              page_size=1)  # made aware: accepted
    client.list_failing_tests(repo, org, (NOW - timedelta(days=1)).astimezone(PLUS_5), NOW)  # any offset
    settings = client.update_queue(repo, "bounds", concurrency=4294967295, batching_min_size=1, required_statuses=[])
    assert settings.concurrency == 4294967295 and settings.required_statuses == []
    assert len(box.requests) == 4


# ---- malformed answers from a server ------------------------------------------------------------------
PAGE = {"total_rows": 1, "total_pages": 1, "next_page_token": "", "prev_page_token": "", "last_page_token": "",
        "page_index": 0}

BAD_RESPONSES: list[tuple[str, bytes | str | dict[str, Any] | list[Any], str]] = [
    ("empty_body", b"", ""),
    ("html", "<html>oops</html>", ""),
    ("truncated_json", '{"test": {"id": "', ""),
    ("not_utf8", b'{"test": {"name": "\xff\xfe"}}', ""),
    ("array_root", [], ""),
    ("test_is_string", {"test": "x"}, "test"),
    ("id_is_number", {"test": {"id": 5}}, "test.id"),
    ("rate_is_string", {"test": {"id": UUID, "failure_rate_last_24h": "n/a"}}, "test.failure_rate_last_24h"),
    # (A timestamp whose text is no time is kept in `extra` instead: test_merge_queue, codec_responses_test.)
    ("timestamp_is_number", {"test": {"id": UUID, "status": {"reason": "", "timestamp": 1700000000}}},
     "test.status.timestamp"),
    ("huge_integer", {"test": {"id": UUID, "pull_requests_impacted_last_7d": 10**40}},
     "test.pull_requests_impacted_last_7d"),
]


@pytest.mark.parametrize("body,path", [(b, p) for _, b, p in BAD_RESPONSES], ids=[n for n, _, _ in BAD_RESPONSES])
def test_malformed_server_answer_is_a_decode_error_naming_the_path(body: Any, path: str) -> None:
    with ScriptedServer([Reply(200, body)]) as server:
        with pytest.raises(DecodeError) as caught:
            Client("decode-token", server.url, max_retries=3).get_test_details("github.com/a/b", "org", UUID)
        assert len(server.received) == 1  # decoding failures are not retried
    assert caught.value.path.startswith(path)
    assert path in str(caught.value)


def test_malformed_page_is_a_decode_error_while_iterating() -> None:
    good = {"id": UUID, "name": "ok"}
    with ScriptedServer([Reply(200, {"tests": [good, {"id": UUID, "quarantined": "maybe"}], "page": PAGE})]) as server:
        with pytest.raises(DecodeError) as caught:
            Client("decode-token", server.url).iter_failing_tests("github.com/a/b", "org", WEEK_START, NOW).to_list()
    assert caught.value.path == "tests[1].quarantined"


# ---- raw HTTP to the sandbox --------------------------------------------------------------------------
def _post_raw(box: trunk_api.Sandbox, path: str, body: bytes) -> tuple[int, str]:
    request = urllib.request.Request(box.url + path, data=body, method="POST",
                                     headers={"x-api-token": box.token, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310 - loopback sandbox
            return answer.status, answer.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")


def _repo_json(repo: trunk_api.Repo) -> dict[str, str]:
    return {"host": repo.host, "owner": repo.owner, "name": repo.name}


RAW: list[tuple[str, str, Callable[[trunk_api.Sandbox, trunk_api.Repo], bytes], int, str]] = [
    ("not_json", "/v1/flaky-tests/get-test-details", lambda b, r: b"{not json", 400, "JSON"),
    ("wrong_type_page_size", "/v1/flaky-tests/list-unhealthy-tests",
     lambda b, r: json.dumps({"repo": _repo_json(r), "org_url_slug": b.org_url_slug, "status": "FLAKY",
                              "page_query": {"page_size": "ten"}}).encode(), 400, "page_query.page_size"),
    ("lower_case_status", "/v1/flaky-tests/list-unhealthy-tests",
     lambda b, r: json.dumps({"repo": _repo_json(r), "org_url_slug": b.org_url_slug, "status": "flaky",
                              "page_query": {"page_size": 10}}).encode(), 400, "status"),
    ("bad_uuid", "/v1/flaky-tests/get-test-details",
     lambda b, r: json.dumps({"repo": _repo_json(r), "org_url_slug": b.org_url_slug, "test_id": "42"}).encode(),
     400, "test_id"),
    ("non_utf8_branch", "/v1/updateQueue",
     lambda b, r: b'{"repo": ' + json.dumps(_repo_json(r)).encode() + b', "targetBranch": "\xc3\x28"}', 400, "JSON"),
    ("negative_concurrency", "/v1/updateQueue",
     lambda b, r: json.dumps({"repo": _repo_json(r), "targetBranch": "m", "concurrency": -1}).encode(), 400,
     "concurrency"),
    # Decision (issue 17): no request field is nullable; null is refused like any other wrong type.
    ("null_page_token", "/v1/flaky-tests/list-unhealthy-tests",
     lambda b, r: json.dumps({"repo": _repo_json(r), "org_url_slug": b.org_url_slug, "status": "FLAKY",
                              "page_query": {"page_size": 10, "page_token": None}}).encode(), 400,
     "page_query.page_token: expected string, got null"),
    ("null_testing_timeout", "/v1/updateQueue",
     lambda b, r: json.dumps({"repo": _repo_json(r), "targetBranch": "main", "testingTimeoutMinutes": None}).encode(),
     400, "testingTimeoutMinutes: expected integer, got null"),
    ("null_delete_required_statuses", "/v1/updateQueue",
     lambda b, r: json.dumps({"repo": _repo_json(r), "targetBranch": "main", "deleteRequiredStatuses": None}).encode(),
     400, "deleteRequiredStatuses: expected boolean, got null"),
    ("oversized", "/v1/updateQueue",
     lambda b, r: json.dumps({"repo": _repo_json(r), "targetBranch": "m" * (5 << 20)}).encode(), 413, ""),
]


@pytest.mark.parametrize("path,make_body,status,field", [row[1:] for row in RAW], ids=[row[0] for row in RAW])
def test_sandbox_answers_raw_bad_requests_with_the_field(box: trunk_api.Sandbox, repo: trunk_api.Repo, path: str,
                                                         make_body: Callable[[trunk_api.Sandbox, trunk_api.Repo], bytes],
                                                         status: int, field: str) -> None:
    answered, text = _post_raw(box, path, make_body(box, repo))
    assert answered == status, text
    assert field in text
    assert box.token not in text
    assert _post_raw(box, "/v1/updateQueue", json.dumps({"repo": _repo_json(repo), "targetBranch": "main"}).encode())[0] == 200



def test_none_is_not_sent_and_the_raw_null_boundary(box: trunk_api.Sandbox, client: Client,
                                                    repo: trunk_api.Repo) -> None:
    """None for an optional argument means "not sent": the request carries no null (the sandbox would refuse
    it, above), and the setting is left as it was; without the null key the same raw request is answered."""
    before = client.get_queue(repo, "main")
    box.clear_requests()
    after = client.update_queue(repo, "main", testing_timeout_minutes=None, delete_required_statuses=None,
                                required_statuses=None, state=None)
    assert box.requests[-1].body == {"repo": _repo_json(repo), "targetBranch": "main"}
    assert b"null" not in box.requests[-1].raw_body
    assert after.testing_timeout_minutes == before.testing_timeout_minutes
    assert after.required_statuses == before.required_statuses
    status, text = _post_raw(box, "/v1/updateQueue", json.dumps({"repo": _repo_json(repo), "targetBranch": "main"}).encode())
    assert status == 200, text
