"""`trunk-api pr ...`, `queue create|delete|get|metrics|testing-details` and `ticket link` against the sandbox:
options derived from each request's declaration, only what was given on the wire, the output formats, and the
exit codes of the service's refusals (404 -> 4, 400 and 409 -> 2)."""

from __future__ import annotations

import json

from cli_support import Terminal, cli, last_body, sandbox  # noqa: F401  (fixtures are used by name)
from scripted_server import Reply, ScriptedServer


def repo_option(sandbox) -> list[str]:
    repo = sandbox.repos[0]
    return ["--repo", f"{repo.host}/{repo.owner}/{repo.name}"]


def test_a_queue_is_created_used_and_deleted(cli, sandbox):
    where = [*repo_option(sandbox), "--branch", "cli-mq"]
    assert cli("queue", "get", *where).code == 4  # no queue yet
    created = cli("queue", "create", *where, "--mode", "parallel", "--concurrency", "2")
    assert created.code == 0 and json.loads(created.out) == {}
    assert last_body(sandbox, "createQueue")["mode"] == "parallel"
    again = cli("queue", "create", *where)
    assert again.code == 2 and "409" in again.err
    settings = json.loads(cli("queue", "get", *where).out)
    assert (settings["mode"], settings["concurrency"], settings["enqueuedPullRequests"]) == ("parallel", 2, [])

    submitted = cli("pr", "submit", *where, "--number", "5", "--priority", "high", "--no-batch", stdout=Terminal())
    assert submitted.code == 0 and submitted.out.startswith("ok:")
    assert last_body(sandbox, "submitPullRequest") == {
        "repo": sandbox.repos[0].to_dict(), "pr": {"number": 5}, "targetBranch": "cli-mq", "priority": "high",
        "noBatch": True}
    assert cli("queue", "delete", *where).code == 2  # holds a pull request: 400
    assert cli("pr", "cancel", *where, "--number", "5").code == 0
    assert cli("queue", "delete", *where).code == 0


def test_pr_status_list_and_impacted_targets(cli, sandbox):
    where = [*repo_option(sandbox), "--branch", "main"]
    assert cli("pr", "submit", *where, "--number", "31", "--priority", "7").code == 0
    assert last_body(sandbox, "submitPullRequest")["priority"] == 7  # a number stays a number
    status = json.loads(cli("pr", "status", *where, "--number", "31").out)
    assert status["prNumber"] == 31 and status["isCurrentlySubmittedToQueue"] is True
    table = cli("pr", "status", *where, "--number", "31", stdout=Terminal())
    assert "pr_number" in table.out and "31" in table.out

    assert cli("pr", "impacted-targets", *where, "--number", "31", "--sha", status["prSha"],
               "--target", "//a", "--target", "//b").code == 0
    assert last_body(sandbox, "setImpactedTargets")["impactedTargets"] == ["//a", "//b"]
    assert cli("pr", "impacted-targets", *where, "--number", "31", "--sha", status["prSha"], "--all").code == 0
    assert last_body(sandbox, "setImpactedTargets")["impactedTargets"] == "ALL"

    rows = cli("pr", "list", *where, "--take", "1").ndjson()
    assert 31 in [row["prNumber"] for row in rows]
    assert len(cli("pr", "list", *where, "--take", "1", "--max-results", "1").ndjson()) == 1
    table = cli("pr", "list", *where, stdout=Terminal())
    assert "NUMBER" in table.out and table.lines()[-1].endswith(("pull request", "pull requests"))
    # SINCE is the time of the state, written as RFC 3339 in UTC as the other time columns are.
    assert rows[0]["stateChangedAt"].endswith("Z") and rows[0]["stateChangedAt"][:19] in table.out
    csv_out = cli("pr", "list", *where, "--format", "csv").out
    assert csv_out.splitlines()[0].startswith("state,")

    assert cli("pr", "cancel", *where, "--number", "31").code == 0
    assert cli("pr", "status", *where, "--number", "999999").code == 4


def test_restart_of_a_pull_request_that_is_not_testing_is_refused(cli, sandbox):
    where = [*repo_option(sandbox), "--branch", "main"]
    assert cli("pr", "submit", *where, "--number", "32").code == 0
    refused = cli("pr", "restart", *where, "--number", "32")
    assert refused.code == 2 and "400" in refused.err
    cli("pr", "cancel", *where, "--number", "32")


def test_metrics_print_the_prometheus_text_or_the_samples(cli, sandbox):
    text = cli("queue", "metrics", *repo_option(sandbox))
    assert text.code == 0 and "# TYPE mq_prs_submitted_total counter" in text.out
    samples = cli("queue", "metrics", *repo_option(sandbox), "--format", "ndjson").ndjson()
    assert samples and {"name", "labels", "value"} <= set(samples[0])


def test_metrics_without_repo_ask_for_every_repository_with_no_query(cli, monkeypatch):
    body = 'mq_depth_current{repo="acme/a",branch="main",queue_type="main"} 2\n'
    with ScriptedServer([Reply(200, body, {"Content-Type": "text/plain; version=0.0.4"})]) as server:
        monkeypatch.setenv("TRUNK_BASE_URL", server.url)
        run = cli("queue", "metrics")
        given = cli("queue", "metrics", "--repo", "github.com/acme/a")
    assert run.code == 0 and run.out == body and given.code == 0
    assert [r.path for r in server.received] == ["/v1/getMergeQueueMetrics",
                                                 "/v1/getMergeQueueMetrics?repo=acme/a&repoHost=github.com"]


def test_testing_details_of_an_unknown_run_is_not_found(cli, sandbox):
    run = cli("queue", "testing-details", *repo_option(sandbox), "--branch", "main", "--test-run-id", "nope")
    assert run.code == 4


def test_ticket_link(cli, sandbox):
    test_id = sandbox.test_ids(sandbox.repos[0])[0]
    run = cli("ticket", "link", *repo_option(sandbox), "--test-case-id", test_id, "--external-ticket-id", "KAN-9")
    assert run.code == 0
    assert last_body(sandbox, "link-ticket-to-test-case") == {
        "repo": sandbox.repos[0].to_dict(), "test_case_id": test_id, "external_ticket_id": "KAN-9"}


def test_bounds_are_validated_before_sending(cli, sandbox):
    where = [*repo_option(sandbox), "--branch", "main"]
    run = cli("pr", "submit", *where, "--number", "4294967296")
    assert run.code == 2 and "pr.number" in run.err and "4294967296" in run.err
    run = cli("pr", "list", *where, "--take", "101")
    assert run.code == 2 and "take" in run.err
    run = cli("pr", "impacted-targets", *where, "--number", "0", "--sha", "abc", "--all")
    assert run.code == 2 and "pr.number" in run.err


def test_every_request_field_is_an_option_with_its_declared_help(cli):
    for command, options in [(["pr", "submit"], ["--number", "--branch", "--priority", "--no-batch"]),
                             (["pr", "list"], ["--state", "--since", "--take", "--max-results"]),
                             (["pr", "impacted-targets"], ["--number", "--sha", "--target", "--all"]),
                             (["queue", "create"], ["--mode", "--concurrency"]),
                             (["ticket", "link"], ["--test-case-id", "--external-ticket-id"])]:
        run = cli(*command, "--help")
        assert run.code == 0
        for option in options:
            assert option in run.out, (command, option)
    assert "--cursor" not in cli("pr", "list", "--help").out  # the listing pages by itself
