#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (fuzz/corpus/<target>/), from tests/fixtures/ where it can.

Seeds are a handful of valid and nearly-valid inputs per target: libFuzzer mutates from them, so each one
should reach a different path (accepted, each kind of rejection). Run it again after changing a fixture;
the output is deterministic. Input formats are described at the top of each fuzz_*.cpp.
"""
import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "fuzz" / "corpus"
FIXTURES = ROOT / "tests" / "fixtures"


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def write(target, name, data):
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data.encode("utf-8") if isinstance(data, str) else data)


def fixture(name):
    return json.loads((FIXTURES / name).read_text())


def decode_responses():
    t = "fuzz_decode_responses"
    # Selector '0' TestPage, '1' TestDetails, '2' QueueSettings.
    write(t, "page_failing", "0" + compact(fixture("failing_tests_page.json")))
    write(t, "page_unhealthy", "0" + compact(fixture("unhealthy_tests_page.json")))
    write(t, "page_empty", '0{"tests":[],"page":{"total_rows":0,"total_pages":0,"next_page_token":"",'
                           '"prev_page_token":"","last_page_token":"","page_index":0}}')
    write(t, "page_wrong_types", '0{"tests":[{"id":7,"failure_rate_last_7d":"x"}],"page":{"total_rows":1.5}}')
    write(t, "page_huge_integer", '0{"tests":null,"page":{"total_rows":18446744073709551615,"page_index":-1}}')
    write(t, "page_truncated", "0" + compact(fixture("failing_tests_page.json"))[:200])
    write(t, "details_unknowns", "1" + compact(fixture("test_details_with_unknowns.json")))
    write(t, "details_full", "1" + compact({"test": fixture("test_case_full.json")}))
    write(t, "details_bad_time", '1{"test":{"status":{"timestamp":"2024-02-30T00:00:00Z"}}}')
    write(t, "details_nested_extra", '1{"test":{"x":[[[{"y":[1e308,-0.0,null]}]]]},"z":"\\u00e9"}')
    write(t, "queue", "2" + compact(fixture("queue_settings.json")))
    write(t, "queue_unknowns", "2" + compact(fixture("queue_settings_with_unknowns.json")))
    write(t, "queue_float_integers", '2{"concurrency":5.0,"batchingMinSize":1e3,"pendingFailureDepth":2.5}')
    write(t, "queue_not_object", "2[1,2,3]")


def rfc3339():
    t = "fuzz_rfc3339"
    samples = {
        "utc": "2024-05-01T12:00:00Z",
        "fraction_offset": "2024-05-01t12:00:00.123456789+05:30",
        "space_no_offset": "2024-05-01 12:00:00",
        "leap_second": "2016-12-31T23:59:60Z",
        "min": "0000-01-01T00:00:00Z",
        "below_min": "0000-01-01T00:00:00+00:01",
        "max": "9999-12-31T23:59:59.999999Z",
        "above_max": "9999-12-31T23:59:59.999999-00:01",
        "bad_day": "2023-02-29T00:00:00Z",
        "leap_day": "2024-02-29T00:00:00z",
        "empty_fraction": "2024-05-01T12:00:00.Z",
        "hour_24": "2024-05-01T24:00:00Z",
        "ten_digits": "2024-05-01T12:00:00.0123456789Z",
        "offset_no_colon": "2024-05-01T12:00:00+0530",
        "trailing": "2024-05-01T12:00:00Zjunk",
    }
    for name, text in samples.items():
        write(t, name, text)


def sandbox_requests():
    t = "fuzz_sandbox_requests"
    # The data the fuzz target serves: generate_history(seed 7, 60 tests, now 2026-01-15T00:00:00Z).
    storefront = {"host": "github.com", "owner": "acme", "name": "storefront"}
    payments = {"host": "gitlab.com", "owner": "acme-labs/platform", "name": "payments"}
    org = "trunk-sandbox"
    known_id = "061050fa-6dcb-48f6-afae-65151587bc59"
    week = {"start_time": "2026-01-08T00:00:00Z", "end_time": "2026-01-15T00:00:00Z"}

    def failing(**changes):
        body = {"repo": storefront, "org_url_slug": org, **week, "page_query": {"page_size": 10}}
        body.update(changes)
        return "0" + compact(body)

    # Selector: digit '0'..'3' = operation with the right token (see fuzz_sandbox_requests.cpp).
    write(t, "failing_week", failing())
    write(t, "failing_page_100_offset", failing(start_time="2026-01-07T18:00:00-06:00", page_query={"page_size": 100}))
    write(t, "failing_gitlab", failing(repo=payments, page_query={"page_size": 1}))
    write(t, "failing_week_plus_1us", failing(end_time="2026-01-15T00:00:00.000001Z"))
    write(t, "failing_reversed", failing(start_time="2026-01-15T00:00:00Z", end_time="2026-01-08T00:00:00Z"))
    write(t, "failing_foreign_token", failing(page_query={"page_size": 10, "page_token": "AQAAAAAAAAAAAAAAAAAAAAAAAAAA"}))
    write(t, "failing_wrong_org", failing(org_url_slug="someone-else"))
    write(t, "failing_page_size_0", failing(page_query={"page_size": 0}))
    write(t, "failing_unknown_key", failing(extra=True))
    write(t, "unhealthy_flaky", "1" + compact({"repo": storefront, "org_url_slug": org, "status": "FLAKY",
                                                "page_query": {"page_size": 2}}))
    write(t, "unhealthy_broken", "1" + compact({"repo": payments, "org_url_slug": org, "status": "BROKEN",
                                                 "page_query": {"page_size": 100, "page_token": ""}}))
    write(t, "unhealthy_lower_case", "1" + compact({"repo": storefront, "org_url_slug": org, "status": "flaky",
                                                     "page_query": {"page_size": 101}}))
    write(t, "details_known", "2" + compact({"repo": storefront, "org_url_slug": org, "test_id": known_id.upper()}))
    write(t, "details_unknown", "2" + compact({"repo": storefront, "org_url_slug": org,
                                                "test_id": "00000000-0000-4000-8000-000000000000"}))
    write(t, "details_not_uuid", "2" + compact({"repo": {"host": "", "owner": "acme", "name": "x"},
                                                 "org_url_slug": org, "test_id": "not-a-uuid"}))
    write(t, "queue_everything", "3" + compact({
        "repo": storefront, "targetBranch": "main", "state": "paused", "concurrency": 4294967295,
        "bisectionConcurrency": 1, "testingTimeoutMinutes": 60, "pendingFailureDepth": 2,
        "canOptimisticallyMerge": True, "batch": True, "batchingMaxWaitTimeMinutes": 10, "batchingMinSize": 3,
        "mode": "parallel", "commentsEnabled": False, "commandsEnabled": True, "createPrsForTestingBranches": False,
        "directMergeMode": "always", "optimizationMode": "bisection_skip_redundant_tests", "mergeMethod": "rebase",
        "statusCheckEnabled": True, "requiredStatuses": ["ci/build", "lint"]}))
    write(t, "queue_minimal", "3" + compact({"repo": payments, "targetBranch": "release/1.0"}))
    write(t, "queue_delete_statuses", "3" + compact({"repo": storefront, "targetBranch": "main",
                                                      "deleteRequiredStatuses": True, "requiredStatuses": []}))
    write(t, "queue_out_of_range", "3" + compact({"repo": storefront, "targetBranch": "main", "concurrency": 4294967296,
                                                   "state": "switching_modes", "batch": 1}))
    write(t, "queue_empty_statuses", "3" + compact({"repo": storefront, "targetBranch": "main", "requiredStatuses": [],
                                                     "deleteRequiredStatuses": False}))
    # Access variants: '4' no token, '8' a wrong token, '<' GET, 'p' a path in another letter case.
    write(t, "no_token", "4" + compact({"repo": storefront, "targetBranch": "main"}))
    write(t, "wrong_token", "8" + compact({"repo": storefront, "targetBranch": "main"}))
    write(t, "get_method", "<{}")
    write(t, "wrong_path", "p{}")
    write(t, "malformed_json", '3{"repo":')
    write(t, "not_utf8", b"3{\"repo\":{\"host\":\"\xff\xfe\",\"owner\":\"a\",\"name\":\"b\"},\"targetBranch\":\"m\"}")

    def other(index, body):
        """Operation `index` >= 4 with the right token (operation_of in fuzz_sandbox_requests.cpp)."""
        selector = (index & 3) | ((((index >> 2) & 3) ^ 3) << 4) | ((index >> 4) << 7)
        return bytes([selector]) + (body if isinstance(body, bytes) else compact(body).encode("utf-8"))

    main = {"repo": storefront, "targetBranch": "main"}
    pr = {"number": 7}
    write(t, "quarantined", other(4, {"repo": storefront, "org_url_slug": org, "page_query": {"page_size": 5}}))
    write(t, "get_queue", other(5, main))
    write(t, "create_queue", other(6, {"repo": storefront, "targetBranch": "release", "mode": "parallel",
                                       "concurrency": 2}))
    write(t, "delete_queue", other(7, main))
    write(t, "submit", other(8, {**main, "pr": pr, "priority": "high", "noBatch": True}))
    write(t, "submit_priority_null", other(8, {**main, "pr": {"number": 4294967295}, "priority": None}))
    write(t, "cancel", other(9, {**main, "pr": pr}))
    write(t, "restart", other(10, {**main, "pr": pr}))
    write(t, "get_submitted", other(11, {**main, "pr": pr}))
    write(t, "list_pull_requests", other(12, {**main, "state": "pending", "take": 3}))
    write(t, "impacted_targets", other(13, {**main, "pr": {"number": 7, "sha": "abc"}, "impactedTargets": ["//a"]}))
    write(t, "impacted_targets_all", other(13, {**main, "pr": {"number": 7, "sha": "abc"}, "impactedTargets": "ALL"}))
    write(t, "testing_details", other(14, {**main, "testRunId": "run-1"}))
    write(t, "metrics", other(15, b"repo=acme/storefront&repoHost=github.com"))  # a GET: the query string
    write(t, "link_ticket", other(16, {"repo": storefront, "test_case_id": known_id, "external_ticket_id": "KAN-1"}))
    write(t, "get_submitted_several", other(17, {**main, "prs": [pr, {"number": 8}]}))
    write(t, "testing_results", other(18, {**main, "since": "2024-01-01T00:00:00Z", "offset": 1, "take": 5}))
    write(t, "status", other(19, b""))  # a GET with no query


# ---- fuzz_sandbox_v2 ------------------------------------------------------------------------------------------

OPERATIONS = ROOT / "cpp" / "include" / "trunk" / "operations.hpp"


def v2_operations():
    """The v2 rows in row order (TRUNK_V2_OPERATIONS), as (name, method): the selector's operation index."""
    text = OPERATIONS.read_text()
    groups = re.findall(r"(TRUNK_V2_\w+_OPERATIONS)\(X\)",
                        re.search(r"#define TRUNK_V2_OPERATIONS\(X\)(.*?)\n\n", text, re.S).group(1))
    rows = []
    for group in groups:
        block = re.search(r"#define " + group + r"\(X\)(.*?)(?:\n\n|\nnamespace)", text, re.S).group(1)
        rows += re.findall(r"X\((\w+),\s*\w+,\s*\"(\w+)\"", block)
    assert 0 < len(rows) <= 64, "the selector's 5 operation bits and the input's parity reach 64 rows (fuzz_sandbox_v2.cpp)"
    return rows


# The sandbox's ids (cpp/sandbox/src/v2_service.cpp), so a seed's body or query can name a real repository, queue or
# pull request: FNV-1a of a text, and a UUID's shape from it and its mix64 (random.hpp).
MASK = (1 << 64) - 1


def text_hash(text):
    value = 0xCBF29CE484222325
    for byte in text.encode("utf-8"):
        value = ((value ^ byte) * 0x100000001B3) & MASK
    return value


def mix64(x):
    x = (x + 0x9E3779B97F4A7C15) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def uuid_of(text):
    high = text_hash(text)
    low = mix64(high ^ 0x5EED5EED5EED5EED)
    return "%08x-%04x-4%03x-8%03x-%012x" % (high >> 32, (high >> 16) & 0xFFFF, high & 0xFFF, (low >> 48) & 0xFFF,
                                             low & 0xFFFFFFFFFFFF)


def repository_id(repo_key):
    return uuid_of("repository\n" + repo_key)


def pull_request_id(repo_key, number):
    return uuid_of("pull request\n" + repo_key + "\n" + str(number))


def short_id_of(text):
    alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    bits, out = text_hash(text), ""
    for _ in range(8):
        out += alphabet[bits % 62]
        bits //= 62
    return out


def merge_queue_id(repo_key, branch):
    return short_id_of("queue\n" + repo_key + "\n" + branch)


def test_collection_id(repo_key):
    return short_id_of("test collection\n" + repo_key)


def sandbox_v2():
    t = "fuzz_sandbox_v2"
    rows = v2_operations()
    index = {name: i for i, (name, _) in enumerate(rows)}
    method = dict(rows)
    storefront, payments = "github.com/acme/storefront", "gitlab.com/acme-labs/platform/payments"
    repo = repository_id(storefront)
    prs = [pull_request_id(storefront, n) for n in (1, 2, 3)]  # submitted before every input (fuzz_sandbox_v2.cpp)

    def seed(name, operation, rest="", value="", access=0, real=True):
        """Selector (fuzz_sandbox_v2.cpp): the operation index's low 5 bits, access << 5, 0x80 for a real id; then
        value '\n' rest, whose length is odd exactly when the index is 32 or more (its sixth bit)."""
        i = index[operation]
        selector = (i & 0x1F) | (access << 5) | (0x80 if real else 0)
        text = rest if isinstance(rest, bytes) else (rest if isinstance(rest, str) else compact(rest)).encode("utf-8")
        data = (value + "\n").encode("utf-8") + text
        if len(data) % 2 != i >> 5:
            # Flip the parity without changing what the request means: without a value the separator can go (all
            # of the input is then the rest); otherwise an empty query pair or a space after the JSON body.
            if not value and b"\n" not in text:
                data = text
            else:
                assert access != 3, name + ": pad a seed with another method by its value"
                data += b"&" if method[operation] in ("GET", "DELETE") else b" "
        write(t, name, bytes([selector]) + data)

    # One per operation: its method, the right key, the real id, a plausible query or body.
    seed("list_queues", "ListMergeQueues", "repositoryId=" + repo + "&targetBranch=main&limit=5&includeTotal=true")
    seed("create_queue", "CreateMergeQueue", {"repositoryId": repo, "targetBranch": "release", "mode": "graph",
                                              "concurrency": 2, "bisectionConcurrency": 1, "enqueueingLabel": "merge"})
    seed("get_queue", "GetMergeQueue")
    seed("delete_queue_with_entries", "DeleteMergeQueue")
    seed("pause", "PauseMergeQueue")
    seed("resume", "ResumeMergeQueue")
    seed("drain", "DrainMergeQueue")
    seed("switch_modes", "SwitchMergeQueueMode", {"mode": "graph"})
    seed("update_config", "UpdateMergeQueueConfig", {
        "concurrency": 3, "bisectionConcurrency": 2, "pendingFailureDepth": 1, "canOptimisticallyMerge": True,
        "allowBatching": True, "batchingMaxWaitTimeMinutes": 5, "batchingMinSize": 2, "testingTimeoutMinutes": 60,
        "notReadyTimeoutMinutes": 120, "createsPrsForTestingBranches": False, "areCommentsEnabled": True,
        "areCommandsEnabled": False, "isStatusCheckEnabled": True, "isExtensionEnabled": True,
        "areLabelCommandsEnabled": False, "areStateLabelsEnabled": True, "requiredStatuses": ["ci/build", "lint"],
        "allowedBotSubmitters": ["renovate[bot]"], "batchingRules": [{"targetPattern": "//app/...", "policy": "isolate"}],
        "directMergeMode": "always", "optimizationMode": "bisectionSkipRedundantTests", "mergeMethod": "rebase",
        "testBranchConstructionMode": "pushNewBranchFromTemp"})
    seed("submit", "SubmitToMergeQueue", {"number": 7, "allowBatching": False, "priorityName": "high", "direct": True})
    seed("list_queue_pull_requests", "ListMergeQueuePullRequests",
         "state=pending,testing,notReady&author=octocat&concludedAfter=2026-01-01T00:00:00Z&limit=2&includeTotal=true")
    seed("organization_metrics", "GetOrganizationMergeQueueMetrics", "repositoryId=" + repo)
    seed("queue_metrics", "GetMergeQueueMetricsV2")
    seed("queue_verification_runs", "ListMergeQueueVerificationRuns",
         "status=inProgress&createdAfter=2026-01-14T00:00:00Z&limit=3&includeTotal=true")
    seed("order", "GetMergeQueueOrder")
    seed("graph", "GetMergeQueueGraph", "includeImpactedTargets=true")
    seed("testing_results", "ListTestingResults", "since=2026-01-01T00:00:00Z&until=2026-02-01T00:00:00Z&limit=10")
    seed("resolve_pull_requests", "ResolvePullRequests", "repositoryId=" + repo + "&number=1,2,3&limit=2")
    seed("get_pull_request", "GetPullRequest")
    seed("reprioritize", "ReprioritizePullRequest", {"priorityValue": 5}, value="x")  # #2
    seed("update_queue_entry", "UpdateQueueEntry", {"priorityName": "urgent", "direct": False,
                                                    "allowBatching": False}, value="xx")  # #3
    seed("dequeue", "DequeuePullRequest")
    seed("restart_tests", "RestartPullRequestTests", value="xxx")  # #4
    seed("pull_request_verification_runs", "ListPullRequestVerificationRuns", "status=succeeded&limit=5")
    seed("queue_entry_history", "ListQueueEntryHistory", "direction=newest&limit=10&includeTotal=true")
    seed("queue_entry_histories", "ListQueueEntryHistories", "pullRequestIds=" + ",".join(prs) + "&direction=oldest")
    seed("pull_request_impacted_targets", "GetPullRequestImpactedTargets")
    seed("verification_run", "GetVerificationRun")
    seed("upload_impacted_targets", "UploadImpactedTargets", {"repositoryId": repo, "targetBranch": "main",
                                                              "sha": "abc123", "number": 1,
                                                              "impactedTargets": ["//app", "//lib"]})
    seed("resolve_repositories", "ResolveRepositories", "providerUrl=https%3A%2F%2Fgithub.com%2Facme%2Fstorefront")
    seed("get_repository", "GetRepository")
    seed("list_test_collections", "ListTestCollections", "limit=2&includeTotal=true")
    seed("create_test_collection", "CreateTestCollection", {"name": "nightly", "description": "nightly suites"})
    seed("get_test_collection", "GetTestCollection")
    seed("list_tests", "ListTestCases", "testCollectionId=" + test_collection_id(storefront) +
         "&status=flaky,broken&include=metrics&period=7d&sort=failureRate&direction=desc&q=file:checkout&limit=5")
    seed("get_test", "GetTestCase", "include=metrics&period=30d")
    seed("test_status_history", "ListTestStatusHistory", "limit=10&includeTotal=true", value="x")
    seed("test_runs", "ListTestRuns", "conclusion=failure&branches=main,pr-1&limit=3", value="xx")
    seed("link_ticket", "LinkTicketToTest", {"externalTicketId": "ENG-1234"})
    seed("set_quarantine", "SetTestQuarantine", {"mode": "alwaysQuarantine", "reason": "flaky in CI"}, value="x")
    seed("clear_quarantine", "SetTestQuarantine", {"mode": "clear"})
    plan = {"repo": {"owner": "acme", "name": "storefront"}, "commitSha": "abc123", "baseSha": "f00", "branch": "pr-1",
            "prNumber": 1, "runId": "7", "runAttempt": 1, "workflowPath": ".github/workflows/ci.yaml",
            "jobKeys": ["lint", "unit-tests"], "ignoreSignals": ["estimated-cost"], "prLabels": ["bug"],
            "changedFiles": {"base": "f00", "totalFiles": 1, "totalAdditions": 3, "totalDeletions": 1,
                             "files": [{"path": "src/a.cc", "status": "modified", "additions": 3, "deletions": 1}]}}
    seed("ci_plan", "GenerateCiPlan", plan)
    seed("ci_plan_push", "GenerateCiPlan", {**{k: v for k, v in plan.items() if k != "changedFiles"},
                                            "baseSha": None, "prNumber": None, "branch": "main"})
    seed("ci_buildkite_plan", "GenerateBuildkiteCiPlan", {
        **{k: v for k, v in plan.items() if k != "workflowPath"}, "buildkiteOrganizationSlug": "acme",
        "buildkitePipelineSlug": "storefront"})
    seed("ci_pr_jobs", "ListCiPrJobs", "owner=acme&name=storefront&limit=1&includeTotal=true")
    seed("ci_force_overrides", "ListCiForceOverrides", "owner=acme&name=storefront&prNumber=1")
    seed("ci_set_force_overrides", "SetCiForceOverrides", {
        "repo": {"owner": "acme", "name": "storefront"}, "prNumber": 1, "headSha": "abc123",
        "overrides": [{"scope": "pullRequest"}, {"scope": "workflow", "workflowId": uuid_of(
            "ci workflow\n" + storefront + "\n.github/workflows/ci.yaml")}]})

    # Variants: other ids and bodies, the refusals of each kind.
    seed("delete_empty_queue", "DeleteMergeQueue", value=merge_queue_id(payments, "main"), real=False)
    seed("get_queue_percent_encoded", "GetMergeQueue", value="%6D" + merge_queue_id(storefront, "main")[1:], real=False)
    seed("get_queue_metrics_literal", "GetMergeQueue", value="metrics", real=False)
    seed("get_queue_unknown", "GetMergeQueue", value="ZZZZZZZZ", real=False)
    seed("get_queue_slash", "GetMergeQueue", value="a/pause", real=False)
    seed("get_pull_request_by_id", "GetPullRequest", value=prs[1].upper(), real=False)
    seed("get_pull_request_not_uuid", "GetPullRequest", value="not-a-uuid", real=False)
    seed("get_repository_payments", "GetRepository", value=repository_id(payments), real=False)
    seed("submit_again", "SubmitToMergeQueue", {"number": 1})
    seed("submit_both_priorities", "SubmitToMergeQueue", {"number": 9, "priorityValue": 0, "priorityName": "low"})
    seed("create_existing_queue", "CreateMergeQueue", {"repositoryId": repo, "targetBranch": "main"})
    seed("update_config_empty", "UpdateMergeQueueConfig", {})
    seed("update_config_out_of_range", "UpdateMergeQueueConfig", {"concurrency": 0, "notReadyTimeoutMinutes": 43201})
    seed("reprioritize_nothing", "ReprioritizePullRequest", {})
    seed("upload_all_by_branch", "UploadImpactedTargets", {"repositoryId": repo, "targetBranch": "main", "sha": "f00",
                                                           "branch": "feature/x", "impactsAllTargets": True})
    seed("list_queues_bad_cursor", "ListMergeQueues", "cursor=c5.deadbeef&limit=100")
    seed("list_queues_bad_encoding", "ListMergeQueues", "repositoryId=%zz")
    seed("testing_results_too_long", "ListTestingResults", "since=2025-01-01T00:00:00Z&until=2026-01-01T00:00:00Z")
    seed("resolve_by_branch", "ResolvePullRequests", "repositoryId=" + repo + "&branch=feature/x&baseBranch=main")
    seed("malformed_json", "SwitchMergeQueueMode", '{"mode":')
    seed("body_not_object", "SubmitToMergeQueue", "[1,2]")
    seed("not_utf8", "UpdateMergeQueueConfig", b'{"requiredStatuses":["\xff\xfe"]}')
    seed("get_test_unknown", "GetTestCase", value="no-such-test", real=False)
    seed("list_tests_metric_sort_without_period", "ListTestCases", "sort=failureRate")
    seed("test_runs_branches_and_pull_requests", "ListTestRuns", "branches=main&pullRequestOnly=true")
    seed("create_test_collection_blank", "CreateTestCollection", {"name": " "})
    seed("link_ticket_empty", "LinkTicketToTest", {"externalTicketId": ""})
    seed("set_quarantine_unknown_mode", "SetTestQuarantine", {"mode": "sometimes", "reason": ""})
    seed("ci_plan_without_base", "GenerateCiPlan", {k: v for k, v in plan.items() if k != "baseSha"})
    seed("ci_plan_gitlab", "GenerateCiPlan", {**plan, "repo": {"host": "gitlab.com", "owner": "a", "name": "b"}})
    seed("ci_force_scope_without_ids", "SetCiForceOverrides", {
        "repo": {"owner": "acme", "name": "storefront"}, "prNumber": 1, "headSha": "x", "overrides": [{"scope": "job"}]})
    # A monitor's id (v2_monitors.cpp: the collection's failureRate monitor); the one value stands for both the
    # monitor and the test of the mute's path, so the mute is refused (404) and the listing answers.
    rate_monitor = short_id_of("monitor\n" + test_collection_id(storefront) + "\nfailureRate")
    seed("monitor_tests", "ListMonitorTests", "state=active&isMuted=false&limit=5", value=rate_monitor, real=False)
    seed("mute_monitor", "MuteMonitorForTest", {"muteUntil": "2026-12-01T00:00:00Z", "reason": "known flake"},
         value=rate_monitor, real=False)
    seed("key_in_body", "CreateMergeQueue", {"repositoryId": "trunk_v2_fuzzkey0123456789", "targetBranch": "x"})
    # Access: 1 no Authorization, 2 a wrong credential (by the rest's length % 4), 3 a method the path lacks.
    seed("no_key", "GetMergeQueue", access=1)
    seed("wrong_key", "SubmitToMergeQueue", "", access=2)
    seed("key_without_bearer", "SubmitToMergeQueue", "x", access=2)
    seed("v1_token", "SubmitToMergeQueue", "xy", access=2)
    seed("other_method", "DeleteMergeQueue", access=3)
    seed("other_method_literal", "GetOrganizationMergeQueueMetrics", access=3)


if __name__ == "__main__":
    decode_responses()
    rfc3339()
    sandbox_requests()
    sandbox_v2()
