"""Schemathesis hooks for the run against the sandbox (scripts/schemathesis).

Two kinds of hook, and nothing else:

1. Steering towards real data. Generated repositories, organizations, test ids and branches almost never
   exist, so every operation would answer 404 and the answers that matter (pages, tests, queues) would never
   be checked against their schemas. `flatmap_body` / `flatmap_query` offer each generated request a second
   version in which the parts that are already valid are swapped for identifiers the sandbox serves (from
   the file named by TRUNK_SCHEMATHESIS_IDS); Hypothesis picks between the two. Only a part that is valid is
   swapped, and for a valid one, so a negative case stays negative and a positive one positive.

   Some rules of the service the document's JSON Schema does not state: two between fields
   (cpp/src/core/validation.cpp: the listing window, 0 < end_time - start_time <= 7 days; `requiredStatuses`
   with `deleteRequiredStatuses: true`), a value the service takes below the document's minimum
   (`pendingFailureDepth` 0), and values only the service knows (a priority name is one of Trunk's
   five levels; a listPullRequests cursor must be one the sandbox issued). `map_case` makes every case of
   every phase follow them, where the fields involved are valid (a wrong window becomes one day from the
   generated start; `deleteRequiredStatuses` leaves a valid list alone; an unknown priority name becomes a
   known one; a cursor the sandbox did not issue is left out), so that the check
   `schema_valid_request_is_read` (below) holds the sandbox to reading every other schema-valid request, and
   so that more requests reach an answer other than 400. Their 400s are tested by the C++ and Python suites.

2. The one accepted failure. The sandbox answers a `page_token` it did not issue for that query with 500,
   on purpose, as the real service does (docs/reference/service.md#pagination; cpp/sandbox/README.md,
   "order of checks"). `filter_failure` drops exactly that `not_a_server_error` failure: status 500, a
   paged listing, a non-empty `page_query.page_token` in the request, and the sandbox's exact one-line
   message. Any other 5xx, on any operation or with any other body, stays a failure.
"""

from __future__ import annotations

import ast
import datetime as _dt
import functools
import json
import os
import re
import threading
import zlib
from typing import Any

import schemathesis
from hypothesis import strategies as st

# ---- the accepted failure -----------------------------------------------------------------------------------

#: The listings that take a page_query, whose foreign token the sandbox answers 500.
def _serialised(parse: Any) -> Any:
    lock = threading.Lock()

    @functools.wraps(parse)
    def parse_one_at_a_time(*args: Any, **kwargs: Any) -> Any:
        with lock:
            return parse(*args, **kwargs)

    return parse_one_at_a_time


# CPython before 3.11.9 / 3.12.4 can fail two ast.parse calls running at once in different threads ("AST constructor
# recursion depth mismatch", python/cpython#106905). Hypothesis parses source to describe a strategy's lambda, and
# with several workers Schemathesis's coverage phase does so from several threads: the parses take turns.
ast.parse = _serialised(ast.parse)


PAGED_LISTINGS = frozenset({
    "POST /v1/flaky-tests/list-failing-tests",
    "POST /v1/flaky-tests/list-unhealthy-tests",
    "POST /v1/flaky-tests/list-quarantined-tests",
})
#: Its answer, byte for byte (cpp/sandbox/src/service.cpp, Service::page_window).
FOREIGN_PAGE_TOKEN_ANSWER = "internal error: page_token was not issued for this query\n"


def is_foreign_page_token_answer(operation: str, body: Any, status: int, content_type: str, text: str) -> bool:
    """Whether an answer is the documented 500 for a page token the sandbox did not issue."""
    if status != 500 or operation not in PAGED_LISTINGS:
        return False
    page_query = body.get("page_query") if isinstance(body, dict) else None
    token = page_query.get("page_token") if isinstance(page_query, dict) else None
    return (isinstance(token, str) and token != "" and content_type.split(";")[0].strip() == "text/plain"
            and text == FOREIGN_PAGE_TOKEN_ANSWER)


@schemathesis.hook
def filter_failure(context: Any, failure: Any, case: Any, response: Any) -> bool:
    """False (drop the failure) only for the foreign page token's 500; every other failure is kept."""
    if "not_a_server_error" not in getattr(failure, "checks", ()):
        return True
    content_type = response.headers.get("content-type", [""])
    if isinstance(content_type, list):
        content_type = content_type[0] if content_type else ""
    accepted = is_foreign_page_token_answer(case.operation.label, case.body, response.status_code, content_type,
                                            response.text)
    return not accepted


# ---- a schema-valid request is read --------------------------------------------------------------------------


@schemathesis.check
def schema_valid_request_is_read(ctx: Any, response: Any, case: Any) -> None:
    """A request the document allows is never refused as malformed or invalid (400 "malformed request: ..." or
    "invalid request: ...", the sandbox's decoding and validation): the document and the sandbox's reading
    agree on what a request may hold. Schemathesis's own `positive_data_acceptance` asks more: that a
    schema-valid request get no 400 at all. That is not this API: the service refuses a request the state of
    the queue forbids with 400 (its description says so for deleteQueue of a busy queue; the sandbox does the
    same for a pull request already in the queue), so only the 400s of reading are held against it."""
    meta = getattr(case, "meta", None)
    if meta is None or not meta.generation.mode.is_positive or response.status_code != 400:
        return None
    text = response.text
    query = getattr(case, "query", None) or {}
    if ("repoHost" in query and "repo" not in query and "repoHost" in text
            and "is only meaningful with repo" in text):
        # The one dependency between two parameters, which OpenAPI cannot express: its description says a host
        # alone names no repository and is refused.
        return None
    if text.startswith(("malformed request:", "invalid request:")):
        raise AssertionError(f"A request valid against the document was refused: {text.strip()}")
    return None


# ---- steering towards real data -----------------------------------------------------------------------------

UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
SEVEN_DAYS = _dt.timedelta(days=7)
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$", re.IGNORECASE)
METRICS_REPO = re.compile(r"^.+/[^/]+$")


def _load_ids() -> dict[str, Any]:
    path = os.environ.get("TRUNK_SCHEMATHESIS_IDS")
    if not path:
        raise RuntimeError("TRUNK_SCHEMATHESIS_IDS must name the identifiers file (scripts/schemathesis writes it)")
    with open(path, encoding="utf-8") as file:
        ids = json.load(file)
    if not ids.get("repos") or not ids.get("test_ids") or not ids.get("org_url_slug"):
        raise RuntimeError(f"{path}: needs repos, test_ids and org_url_slug")
    return ids


IDS = _load_ids()


def _text(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def _valid_repo(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"host", "owner", "name"} and all(map(_text, value.values()))


def _timestamp(value: Any) -> _dt.datetime | None:
    """An RFC 3339 date-time (the form the document declares), else None."""
    if not isinstance(value, str) or not RFC3339.match(value):
        return None
    try:
        parsed = _dt.datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=_dt.timezone.utc)


def _steered(body: dict[str, Any], repo: dict[str, str], test_id: str, keep_branch: bool) -> dict[str, Any]:
    out = dict(body)
    if _valid_repo(out.get("repo")):
        out["repo"] = dict(repo)
    if _text(out.get("org_url_slug")):
        out["org_url_slug"] = IDS["org_url_slug"]
    for key in ("test_id", "test_case_id"):
        if isinstance(out.get(key), str) and UUID.match(out[key]):
            out[key] = test_id
    if _text(out.get("targetBranch")) and not keep_branch:
        out["targetBranch"] = "main"
    return out


#: The priority names the service defines (Trunk's levels; cpp/sandbox/src/merge_queue.hpp, kPriorityLevels).
#: The document types a name as any non-empty string, so a generated name is almost never one of them.
PRIORITY_NAMES = ("urgent", "high", "medium", "low", "lowest")
#: listPullRequests cursors the sandbox issued (nextCursor of its answers, seen by after_call).
ISSUED_CURSORS: set[str] = set()


#: Where each answer's operation and status go, one line each (the script counts them), when set.
STATUSES_FILE = os.environ.get("TRUNK_SCHEMATHESIS_STATS")
STATUSES_LOCK = threading.Lock()


@schemathesis.hook
def after_call(context: Any, case: Any, response: Any) -> None:
    if STATUSES_FILE:
        with STATUSES_LOCK, open(STATUSES_FILE, "a", encoding="utf-8") as file:
            file.write(f"{case.operation.label}\t{response.status_code}\n")
    if case.operation.label == "POST /v1/listPullRequests" and response.status_code == 200:
        try:
            cursor = response.json().get("nextCursor")
        except ValueError:
            return
        if isinstance(cursor, str):
            ISSUED_CURSORS.add(cursor)


def follow_cross_field_rules(body: dict[str, Any]) -> dict[str, Any]:
    """The body with the rules the document does not state followed, where the fields involved are valid:
    the two between fields, and the values the service knows that the document cannot list (priority names;
    cursors it issued -- a cursor the stateful phase takes from an answer is kept)."""
    out = dict(body)
    priority = out.get("priority")
    if isinstance(priority, str) and priority != "" and priority.lower() not in PRIORITY_NAMES:
        out["priority"] = PRIORITY_NAMES[len(priority) % len(PRIORITY_NAMES)]
    cursor = out.get("cursor")
    if isinstance(cursor, str) and UUID.match(cursor) and cursor not in ISSUED_CURSORS:
        del out["cursor"]
    # The window: end_time within (start_time, start_time + 7 days]; a wrong one becomes one day.
    start, end = _timestamp(out.get("start_time")), _timestamp(out.get("end_time"))
    if start is not None and end is not None and not (_dt.timedelta(0) < end - start <= SEVEN_DAYS):
        try:
            out["end_time"] = (start + _dt.timedelta(days=1)).isoformat()
        except OverflowError:
            pass  # a start in the last day of year 9999: left as generated (and answered 400)
    # pendingFailureDepth 0: the document keeps the publisher's minimum of 1, but the service takes 0 (its
    # default, which getQueue answers) and so does the sandbox (describe.hpp, Rules::service_min). A negative
    # case's 0 becomes -1, below both.
    depth = out.get("pendingFailureDepth")
    if type(depth) is int and depth == 0:
        out["pendingFailureDepth"] = -1
    # requiredStatuses (a valid list) and deleteRequiredStatuses: true are refused together.
    statuses = out.get("requiredStatuses")
    if out.get("deleteRequiredStatuses") is True and isinstance(statuses, list) and all(
            isinstance(s, str) for s in statuses):
        del out["deleteRequiredStatuses"]
    return out


@schemathesis.hook
def map_case(context: Any, case: Any) -> Any:
    """Every case of every phase (the coverage phase applies no body hooks, only case hooks): the rules the
    document does not state; and one case in two (chosen from the body's text, so the run stays
    reproducible) steered to real data like flatmap_body's, as the coverage phase's values ("0", "00") are
    never real identifiers."""
    if isinstance(case.body, dict):
        body = case.body
        digest = zlib.crc32(json.dumps(body, sort_keys=True, default=str).encode())
        if digest % 2 == 0:
            body = _steered(body, IDS["repos"][digest % len(IDS["repos"])],
                            IDS["test_ids"][digest % len(IDS["test_ids"])], _keeps_branch(context))
        case.body = follow_cross_field_rules(body)
    # v2's tests by id: one case in two reads a test the sandbox serves, so its answers (a test, its status
    # history, its runs) are checked against their schemas too, not only the 404 of an unknown id.
    parameters = getattr(case, "path_parameters", None)
    if isinstance(parameters, dict) and _text(parameters.get("testId")):
        digest = zlib.crc32(parameters["testId"].encode())
        if digest % 2 == 0:
            case.path_parameters = dict(parameters, testId=IDS["test_ids"][digest % len(IDS["test_ids"])])
    return case


def _keeps_branch(context: Any) -> bool:
    """deleteQueue keeps its generated branch: deleting main would leave every later queue operation a 404."""
    operation = getattr(context, "operation", None)
    return operation is not None and operation.label == "POST /v1/deleteQueue"


@schemathesis.hook
def flatmap_body(context: Any, body: Any) -> Any:
    if not isinstance(body, dict):
        return st.just(body)
    steered = st.builds(_steered, st.just(body), st.sampled_from(IDS["repos"]), st.sampled_from(IDS["test_ids"]),
                        st.just(_keeps_branch(context)))
    return st.one_of(st.just(body), steered)


@schemathesis.hook
def flatmap_query(context: Any, query: Any) -> Any:
    """getMergeQueueMetrics: repo=owner/name and repoHost of a repository the sandbox serves."""
    if not isinstance(query, dict) or not (isinstance(query.get("repo"), str) and METRICS_REPO.match(query["repo"])):
        return st.just(query)
    if "repoHost" in query and not _text(query["repoHost"]):
        return st.just(query)

    def steer(repo: dict[str, str]) -> dict[str, Any]:
        return dict(query, repo=f"{repo['owner']}/{repo['name']}", repoHost=repo["host"])

    return st.one_of(st.just(query), st.sampled_from(IDS["repos"]).map(steer))
