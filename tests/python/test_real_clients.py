"""The publisher's own clients of the API, sending exactly what they send, to the sandbox over HTTP, from the lines
`trunk-api sandbox` prints (`export TRUNK_BASE_URL=http://127.0.0.1:PORT/v1`, TRUNK_API_TOKEN, TRUNK_API_KEY).
docs/guides/real-clients.md lists every request and how the sandbox answers it.

- The Terraform provider (trunk-io/terraform-provider-trunk, internal/client): POST to the base URL (its default
  https://api.trunk.io/v1, trailing '/' trimmed) + "/" + operation, with Content-Type: application/json,
  x-api-token (from TRUNK_API_KEY), x-source: terraform, and Go's User-Agent and Accept-Encoding: gzip. Bodies are
  Go's encoding/json: compact, keys in struct order, unset optional fields left out. Its resource creates a queue
  with createQueue then sets the rest with updateQueue, whose body always carries requiredStatuses or
  deleteRequiredStatuses: true. Any non-2xx is an error carrying the status; it reads 409 on createQueue (exists:
  import it), 404 on getQueue (gone: drop it from the state) and 400 on deleteQueue (not empty: drain first). The
  answers of getQueue and updateQueue are decoded into Go ints, bools and strings, so each must be of that JSON
  type (an integer written 5.0 would fail Go's decoder).
- The GitHub Action (trunk-io/merge-action, upload_impacted_targets.sh): curl -s -X POST with
  `-H "Content-Type: application/json" -H "x-api-token:TOKEN" -H "x-forked-workflow-run-id:RUN_ID" -d @body`.
  The body is jq's indented output, whose newlines curl's -d strips, with pr.number a JSON string ("123"); curl
  leaves out a header given with nothing after its colon (a fork's empty token). Success is exactly 200; on 401 it
  prints its token advice.

The requests are written here, byte for byte, on a plain socket (no client library smoothing them).
"""

from __future__ import annotations

import gzip
import json
import signal
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import pytest

import trunk_api

from cli_support import read_banner, sandbox_command

SHA = "07fc773f16c0353bc3820fed65d89afddb9f81c3"


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode()


@dataclass
class Published:
    """What `trunk-api sandbox` printed: the environment the publisher's tools read."""

    base_url: str  # TRUNK_BASE_URL, with /v1
    token: str  # TRUNK_API_TOKEN
    api_key: str  # TRUNK_API_KEY (the provider's variable)
    owner: str
    name: str
    v2_api_key: str  # the "api key (v2)" line: what the Dynamic CI action sends as a bearer token


@pytest.fixture(scope="module")
def published() -> Iterator[Published]:
    """`trunk-api sandbox` as a user starts it for these tools: a virtual clock, so a submitted pull request stays
    in its queue."""
    with sandbox_command("--tests", "30", "--seed", "5", "--clock", "virtual") as process:
        printed = read_banner(process)
        host, owner, name = printed["repo"].split("/")
        assert host == "github.com"  # the Action always sends github.com
        yield Published(printed["TRUNK_BASE_URL"], printed["TRUNK_API_TOKEN"], printed["TRUNK_API_KEY"], owner, name,
                        printed["v2_api_key"])
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0


def exchange(url: str, head_lines: list[str], body: bytes) -> Answer:
    """One HTTP/1.1 POST of exactly these header lines (Host and Content-Length added as every client adds them)
    and body, read back on the same connection."""
    parts = urlsplit(url)
    assert parts.hostname and parts.port
    request = "\r\n".join([f"POST {parts.path} HTTP/1.1", f"Host: {parts.hostname}:{parts.port}", *head_lines,
                           f"Content-Length: {len(body)}", "", ""]).encode() + body
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as connection:
        connection.sendall(request)
        received = b""
        while b"\r\n\r\n" not in received:
            chunk = connection.recv(65536)
            assert chunk, "connection closed before the answer's head"
            received += chunk
        head, rest = received.split(b"\r\n\r\n", 1)
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in header_lines:
            key, value = line.split(":", 1)
            headers[key.strip().lower()] = value.strip()
        length = int(headers["content-length"])
        while len(rest) < length:
            chunk = connection.recv(65536)
            assert chunk, "connection closed inside the answer's body"
            rest += chunk
    body_read = rest[:length]
    if headers.get("content-encoding") == "gzip":  # Go's transport asks for gzip and undoes it itself
        body_read = gzip.decompress(body_read)
    return Answer(int(status_line.split()[1]), headers, body_read)


# ---- the Terraform provider --------------------------------------------------------------------------------

def go_json(value: Any) -> bytes:
    """encoding/json's Marshal of these values: compact, keys in the order given (the struct's)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def provider_call(published: Published, operation: str, body: dict[str, Any], *, api_key: str | None = None) -> Answer:
    """The provider's doRequestOnce: POST strings.TrimRight(baseURL, "/") + "/" + operation."""
    url = published.base_url.rstrip("/") + "/" + operation
    return exchange(url, [
        "User-Agent: Go-http-client/1.1",
        "Content-Type: application/json",
        f"X-Api-Token: {published.api_key if api_key is None else api_key}",
        "X-Source: terraform",
        "Accept-Encoding: gzip",
    ], go_json(body))


def identity(published: Published, branch: str) -> dict[str, Any]:
    return {"repo": {"host": "github.com", "owner": published.owner, "name": published.name}, "targetBranch": branch}


# The provider's client.Queue: every field it decodes, with the Go type it decodes it into (RequiredStatuses is
# *[]string: null or a list).
GO_QUEUE_FIELDS: dict[str, type] = {
    "mode": str, "concurrency": int, "state": str, "testingTimeoutMinutes": int, "pendingFailureDepth": int,
    "canOptimisticallyMerge": bool, "batch": bool, "batchingMaxWaitTimeMinutes": int, "batchingMinSize": int,
    "createPrsForTestingBranches": bool, "mergeMethod": str, "commentsEnabled": bool, "commandsEnabled": bool,
    "statusCheckEnabled": bool, "directMergeMode": str, "optimizationMode": str, "bisectionConcurrency": int,
    "extensionEnabled": bool, "enqueueingLabel": str, "labelCommandsEnabled": bool, "stateLabelsEnabled": bool,
}


def decoded_as_go_would(answer: Answer) -> dict[str, Any]:
    """The answer as the provider's client.Queue takes it: each field present with the JSON type of its Go field
    (a missing one would leave the Go zero value, which the provider would store as the queue's setting)."""
    assert answer.status == 200, answer.text
    assert answer.headers["content-type"].startswith("application/json")
    queue = answer.json()
    for field, go_type in GO_QUEUE_FIELDS.items():
        assert field in queue, f"{field} missing: the provider would store its zero value"
        assert type(queue[field]) is go_type, (field, queue[field])  # bool is not int here, nor 5.0 an int
    statuses = queue["requiredStatuses"]
    assert statuses is None or (isinstance(statuses, list) and all(isinstance(s, str) for s in statuses))
    return queue


def provider_update_body(published: Published, branch: str, **settings: Any) -> dict[str, Any]:
    """client.UpdateQueueRequest as the resource builds it: identity, the configured settings in the struct's
    order, then requiredStatuses when configured, else deleteRequiredStatuses: true."""
    order = ["mode", "concurrency", "state", "testingTimeoutMinutes", "pendingFailureDepth", "canOptimisticallyMerge",
             "batch", "batchingMaxWaitTimeMinutes", "batchingMinSize", "mergeMethod", "commentsEnabled",
             "commandsEnabled", "createPrsForTestingBranches", "statusCheckEnabled", "directMergeMode",
             "optimizationMode", "bisectionConcurrency", "extensionEnabled", "enqueueingLabel",
             "labelCommandsEnabled", "stateLabelsEnabled", "requiredStatuses"]
    body = identity(published, branch)
    body.update({key: settings[key] for key in order if key in settings})
    if "requiredStatuses" not in settings:
        body["deleteRequiredStatuses"] = True
    return body


def test_provider_create_then_configure_then_read(published):
    """terraform apply of a new trunk_merge_queue: createQueue (mode, concurrency), then updateQueue with the
    configured attributes; terraform refresh: getQueue. The four label settings round-trip."""
    branch = "tf-create"
    created = provider_call(published, "createQueue", {**identity(published, branch), "mode": "parallel",
                                                       "concurrency": 3})
    assert created.status == 200, created.text  # the provider ignores the body of any 2xx
    assert created.json() == {}

    configured = decoded_as_go_would(provider_call(published, "updateQueue", provider_update_body(
        published, branch, mode="parallel", concurrency=3, mergeMethod="rebase", extensionEnabled=True,
        enqueueingLabel="merge-queue", labelCommandsEnabled=True, stateLabelsEnabled=True,
        requiredStatuses=["ci/test", "ci/lint"])))
    assert (configured["mode"], configured["concurrency"], configured["mergeMethod"]) == ("parallel", 3, "rebase")
    assert (configured["extensionEnabled"], configured["enqueueingLabel"], configured["labelCommandsEnabled"],
            configured["stateLabelsEnabled"]) == (True, "merge-queue", True, True)
    assert configured["requiredStatuses"] == ["ci/test", "ci/lint"]

    read = decoded_as_go_would(provider_call(published, "getQueue", identity(published, branch)))
    for field in GO_QUEUE_FIELDS:
        assert read[field] == configured[field], field
    assert read["enqueuedPullRequests"] == []  # not in the provider's struct: ignored by it


def test_provider_defaults_of_a_queue_that_never_set_the_label_settings(published):
    """A queue created without them answers the four settings off, with no enqueueing label (the values the
    provider's own fixtures give), so an attribute left out of the configuration reads back stable."""
    branch = "tf-defaults"
    assert provider_call(published, "createQueue", identity(published, branch)).status == 200
    read = decoded_as_go_would(provider_call(published, "getQueue", identity(published, branch)))
    assert (read["extensionEnabled"], read["enqueueingLabel"], read["labelCommandsEnabled"],
            read["stateLabelsEnabled"]) == (False, "", False, False)
    # The resource's update when only one of them is configured: the others stay as they are.
    updated = decoded_as_go_would(provider_call(published, "updateQueue",
                                                provider_update_body(published, branch, stateLabelsEnabled=True)))
    assert (updated["extensionEnabled"], updated["enqueueingLabel"], updated["labelCommandsEnabled"],
            updated["stateLabelsEnabled"]) == (False, "", False, True)
    # And back to no label ("" is what the service answers for none).
    labelled = decoded_as_go_would(provider_call(published, "updateQueue",
                                                 provider_update_body(published, branch, enqueueingLabel="queue-me")))
    assert labelled["enqueueingLabel"] == "queue-me"
    cleared = decoded_as_go_would(provider_call(published, "updateQueue",
                                                provider_update_body(published, branch, enqueueingLabel="")))
    assert cleared["enqueueingLabel"] == ""


def test_provider_create_of_an_existing_queue_is_409(published):
    """The provider turns 409 into "Merge queue already exists ... terraform import"."""
    branch = "tf-conflict"
    assert provider_call(published, "createQueue", identity(published, branch)).status == 200
    again = provider_call(published, "createQueue", {**identity(published, branch), "mode": "single"})
    assert again.status == 409, again.text
    assert "exists already" in again.text and "tf-conflict" in again.text


def test_provider_read_of_a_missing_queue_is_404(published):
    """The provider drops the resource from its state on 404 (the queue was deleted outside Terraform); an update
    of it is an error too."""
    missing = provider_call(published, "getQueue", identity(published, "tf-never-created"))
    assert missing.status == 404, missing.text
    assert "tf-never-created" in missing.text
    assert provider_call(published, "updateQueue",
                         provider_update_body(published, "tf-never-created", concurrency=2)).status == 404


def test_provider_delete_of_a_busy_queue_is_400_then_200_once_empty(published):
    """terraform destroy of a queue holding a pull request: 400, which the provider explains as "drain it first";
    once empty, 200; a second delete finds nothing (404)."""
    branch = "tf-busy"
    assert provider_call(published, "createQueue", identity(published, branch)).status == 200
    # trunk-api itself, from the same printed lines (TRUNK_BASE_URL with /v1), puts a pull request in the queue.
    sdk = trunk_api.Client(published.token, published.base_url)
    repo = trunk_api.Repo("github.com", published.owner, published.name)
    sdk.submit_pull_request(repo, 7, branch)
    busy = provider_call(published, "deleteQueue", identity(published, branch))
    assert busy.status == 400, busy.text
    sdk.cancel_pull_request(repo, 7, branch)
    deleted = provider_call(published, "deleteQueue", identity(published, branch))
    assert deleted.status == 200, deleted.text
    assert provider_call(published, "deleteQueue", identity(published, branch)).status == 404
    assert provider_call(published, "getQueue", identity(published, branch)).status == 404


def test_provider_revert_to_branch_protection_statuses(published):
    """required_statuses left out of the configuration: the provider sends deleteRequiredStatuses: true alone."""
    branch = "tf-statuses"
    assert provider_call(published, "createQueue", identity(published, branch)).status == 200
    manual = decoded_as_go_would(provider_call(published, "updateQueue",
                                               provider_update_body(published, branch, requiredStatuses=[])))
    assert manual["requiredStatuses"] == []
    reverted = provider_call(published, "updateQueue", provider_update_body(published, branch))
    decoded_as_go_would(reverted)


def test_provider_with_a_wrong_api_key_is_401(published):
    answer = provider_call(published, "getQueue", identity(published, "main"), api_key="not-the-key")
    assert answer.status == 401
    assert "not-the-key" not in answer.text


# ---- the GitHub Action -------------------------------------------------------------------------------------

def jq_body_as_curl_sends_it(owner: str, name: str, number: str, sha: str, branch: str, targets: Any) -> bytes:
    """upload_impacted_targets.sh's body: jq's default output (two-space indentation, keys as written), whose
    newlines `curl -d @file` strips; pr.number comes from `jq --arg`, a string."""
    document = {"repo": {"host": "github.com", "owner": owner, "name": name}, "pr": {"number": number, "sha": sha},
                "targetBranch": branch, "impactedTargets": targets}
    return json.dumps(document, indent=2, ensure_ascii=False).replace("\n", "").encode()


def action_upload(published: Published, number: str, branch: str, targets: Any, *, token: str | None = None,
                  run_id: str = "123456", sha: str = SHA) -> Answer:
    """curl -s -o response.txt -w '%{http_code}' -X POST -H "Content-Type: application/json"
    -H "x-api-token:${API_TOKEN}" -H "x-forked-workflow-run-id:${RUN_ID}" -d @post_body "${API_URL}", with
    API_URL the printed base URL + /setImpactedTargets. A header with nothing after its colon is not sent."""
    token = published.token if token is None else token
    lines = ["User-Agent: curl/7.88.1", "Accept: */*", "Content-Type: application/json"]
    if token:
        lines.append(f"x-api-token:{token}")
    if run_id:
        lines.append(f"x-forked-workflow-run-id:{run_id}")
    return exchange(published.base_url + "/setImpactedTargets", lines,
                    jq_body_as_curl_sends_it(published.owner, published.name, number, sha, branch, targets))


@pytest.fixture(scope="module")
def submitted(published: Published) -> int:
    """Pull request 123, submitted to main's queue with trunk-api from the printed lines."""
    sdk = trunk_api.Client(published.token, published.base_url)
    sdk.submit_pull_request(trunk_api.Repo("github.com", published.owner, published.name), 123, "main")
    return 123


@pytest.mark.parametrize("targets", [["target-1", "target-2", "target-3"], [], "ALL",
                                     [f"//pkg{i}:target" for i in range(2000)]],
                         ids=["three", "empty", "ALL", "2000"])
def test_action_upload_with_the_number_as_a_string_is_200(published, submitted, targets):
    answer = action_upload(published, str(submitted), "main", targets)
    assert answer.status == 200, answer.text  # the script's only success
    assert answer.json() == {}


def test_action_upload_reaches_the_pull_request(published, submitted):
    """Targets count for the pull request's head commit: the Action sends the head sha it computed them for."""
    sdk = trunk_api.Client(published.token, published.base_url)
    repo = trunk_api.Repo("github.com", published.owner, published.name)
    head = sdk.get_submitted_pull_request(repo, submitted, "main").pr_sha
    assert action_upload(published, str(submitted), "main", ["//app:server"], sha=head).status == 200
    assert sdk.get_submitted_pull_request(repo, submitted, "main").readiness.has_impacted_targets is True


@pytest.mark.parametrize(("number", "message"), [
    ("12a", "pr.number: expected integer, got string"),
    ("1.5", "pr.number: expected integer, got string"),
    ("", "pr.number: expected integer, got string"),
    ("0", "pr.number: 0: must be between 1 and 4294967295"),
    ("4294967296", "pr.number: 4294967296: must be between 1 and 4294967295"),
    ("9223372036854775808", "pr.number: integer 9223372036854775808 is out of range"),
])
def test_action_upload_with_a_number_that_is_not_one_is_400_naming_it(published, submitted, number, message):
    answer = action_upload(published, number, "main", ["a"])
    assert answer.status == 400
    assert message in answer.text


def test_action_upload_with_a_wrong_token_is_401(published):
    """The script prints its token advice on 401 (for Dependabot and other bots)."""
    answer = action_upload(published, "123", "main", ["a"], token="stale-token")
    assert answer.status == 401
    assert "stale-token" not in answer.text


def test_action_upload_from_a_fork_without_a_token_is_401(published):
    """A fork's workflow sends no x-api-token, only x-forked-workflow-run-id, which the service checks against
    GitHub's running workflows; the sandbox cannot, so it answers as to any request without a token."""
    answer = action_upload(published, "123", "main", ["a"], token="")
    assert answer.status == 401


def test_action_upload_before_the_pull_request_is_submitted_is_kept_for_it(published):
    """The Action runs on every pull_request event, before anyone submits the pull request: the targets are taken
    (200) and the pull request has them once submitted."""
    sdk = trunk_api.Client(published.token, published.base_url)
    repo = trunk_api.Repo("github.com", published.owner, published.name)
    # The head commit of pull request 321: the sandbox gives a pull request one sha per repository and number,
    # whichever queue it is in, so a queue of its own tells it without submitting 321 to main.
    sdk.create_queue(repo, "sha-probe")
    sdk.submit_pull_request(repo, 321, "sha-probe")
    head = sdk.get_submitted_pull_request(repo, 321, "sha-probe").pr_sha
    answer = action_upload(published, "321", "main", ["//lib:core"], sha=head)
    assert answer.status == 200, answer.text
    sdk.submit_pull_request(repo, 321, "main")
    assert sdk.get_submitted_pull_request(repo, 321, "main").readiness.has_impacted_targets is True


def test_action_upload_to_a_branch_without_a_queue_is_404(published):
    answer = action_upload(published, "123", "no-queue-here", ["a"])
    assert answer.status == 404
    assert "no-queue-here" in answer.text


# ---- the Action's targets and the pull request's head --------------------------------------------------------
# The Action uploads with the head sha GitHub gives it, often before anyone submits the pull request. Before
# this was handled, the sandbox gave every pull request a head sha of its own making, so those targets never
# matched it: the upload answered 200 and the pull request waited in a parallel queue for ever.

GITHUB_HEAD = "3f786850e387550fdab836ed7e6dc881de23001b"
PUSHED_HEAD = "89e6c98d92887913cadf06b2adb97f26cde4849b"


@pytest.fixture
def parallel_box() -> Iterator[tuple[trunk_api.Sandbox, trunk_api.Client, trunk_api.Repo]]:
    with trunk_api.Sandbox(seed=5, tests=20, clock="virtual", flaky_failure_rate=0.0,
                           broken_pull_request_rate=0.0) as box:
        client = box.client()
        repo = box.repos[0]
        client.update_queue(repo, "main", mode="parallel")
        yield box, client, repo


def test_targets_uploaded_before_the_submission_give_the_pull_request_its_head(parallel_box):
    box, client, repo = parallel_box
    client.set_impacted_targets(repo, 601, GITHUB_HEAD, "main", ["//app:server"])
    client.submit_pull_request(repo, 601, "main")
    submitted = client.get_submitted_pull_request(repo, 601, "main")
    assert submitted.pr_sha == GITHUB_HEAD
    assert submitted.readiness.has_impacted_targets is True
    box.advance(hours=3)
    assert str(client.get_submitted_pull_request(repo, 601, "main").state) == "merged"


def test_targets_uploaded_after_the_submission_with_a_new_head_move_it_like_a_push(parallel_box):
    box, client, repo = parallel_box
    client.submit_pull_request(repo, 602, "main")
    assert client.get_submitted_pull_request(repo, 602, "main").readiness.has_impacted_targets is False
    box.advance(minutes=5)  # mergeable, waiting for its targets in the parallel queue
    client.set_impacted_targets(repo, 602, GITHUB_HEAD, "main", ["//lib:core"])
    submitted = client.get_submitted_pull_request(repo, 602, "main")
    assert (submitted.pr_sha, submitted.readiness.has_impacted_targets) == (GITHUB_HEAD, True)
    box.advance(hours=3)
    assert str(client.get_submitted_pull_request(repo, 602, "main").state) == "merged"


def test_a_push_to_a_pull_request_being_tested_takes_it_out_as_trunk_does(parallel_box):
    box, client, repo = parallel_box
    client.set_impacted_targets(repo, 603, GITHUB_HEAD, "main", ["//app:server"])
    client.submit_pull_request(repo, 603, "main")
    box.advance(minutes=5)
    assert str(client.get_submitted_pull_request(repo, 603, "main").state) == "testing"
    client.set_impacted_targets(repo, 603, PUSHED_HEAD, "main", ["//app:server"])
    out = client.get_submitted_pull_request(repo, 603, "main")
    assert str(out.state) == "cancelled" and out.extra.get("stateReason") == "PR_PUSHED_TO"
    # Submitted again, it takes the new head and the targets uploaded for it.
    client.submit_pull_request(repo, 603, "main")
    again = client.get_submitted_pull_request(repo, 603, "main")
    assert (again.pr_sha, again.readiness.has_impacted_targets) == (PUSHED_HEAD, True)


# ---- Trunk's Dynamic CI action ------------------------------------------------------------------------------

def node_json(value: Any) -> bytes:
    """JSON.stringify of these values: compact, keys in the order the object literal gives them."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def action_plan_request(published: Published, *, pull_request: int | None) -> dict[str, Any]:
    """buildRequest (trunk-io/dynamic-ci, src/context.ts) on a runner: the repository from GITHUB_REPOSITORY, the
    event's head and base commits and number (null off a pull request), workflowName from GITHUB_WORKFLOW, which
    the stored description lacks, jobKeys from the action's input (empty: every job); ignoreSignals only when set."""
    body: dict[str, Any] = {
        "repo": {"host": "github.com", "owner": published.owner, "name": published.name},
        "commitSha": SHA,
        "baseSha": "1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d" if pull_request else None,
        "branch": f"pr-{pull_request}" if pull_request else "main",
        "prNumber": pull_request,
        "runId": "18342998211",
        "runAttempt": 1,
        "triggeringActor": "octocat",
        "eventName": "pull_request" if pull_request else "push",
        "workflowPath": ".github/workflows/ci.yaml",
        "workflowName": "CI",
        "jobKeys": [],
    }
    if pull_request:
        body["ignoreSignals"] = ["estimated-cost"]
    return body


def action_call(published: Published, body: dict[str, Any]) -> Answer:
    """attemptOnce (src/api.ts): Node's fetch POST with content-type, a bearer API key and a fresh x-request-id,
    and undici's own headers."""
    root = published.base_url.rstrip("/").removesuffix("/v1")
    return exchange(root + "/v2/dynamic-ci/generate-plan", [
        "connection: keep-alive",
        "content-type: application/json",
        f"authorization: Bearer {published.v2_api_key}",
        "x-request-id: 0b6f4c1e-7a1d-4f3e-9c55-2f1a8d9e6b70",
        "accept: */*",
        "accept-language: *",
        "sec-fetch-mode: cors",
        "user-agent: node",
        "accept-encoding: gzip, deflate",
    ], node_json(body))


def parsed_as_the_action_would(answer: Answer) -> dict[str, bool]:
    """The action's response schema (src/compat.ts): 200, and jobs whose jobKey, run, summary and signals (type,
    recommendation, message, ignored) have these JSON types; anything else makes it fail open and run every job."""
    assert answer.status == 200, answer.text
    plan = answer.json()
    for job in plan["jobs"]:
        assert (type(job["jobKey"]), type(job["run"]), type(job["summary"])) == (str, bool, str), job
        for signal_result in job["signals"]:
            assert [type(signal_result[k]) for k in ("type", "recommendation", "message", "ignored")] == \
                [str, str, str, bool], signal_result
    return {job["jobKey"]: job["run"] for job in plan["jobs"]}


def test_the_dynamic_ci_action_s_plan_request_is_answered_with_verdicts_it_reads(published):
    """A pull request's run, after merge-action's script uploaded its impacted targets for the commit: the jobs of
    targets it does not impact are skipped. A push's run (baseSha and prNumber null): every job runs."""
    upload = action_upload(published, "704", "main", ["unit-tests"])
    assert upload.status == 200, upload.text
    assert parsed_as_the_action_would(action_call(published, action_plan_request(published, pull_request=704))) == {
        "lint": False, "unit-tests": True, "integration-tests": False}
    assert parsed_as_the_action_would(action_call(published, action_plan_request(published, pull_request=None))) == {
        "lint": True, "unit-tests": True, "integration-tests": True}
