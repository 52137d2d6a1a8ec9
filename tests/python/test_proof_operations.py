"""getQueue and list-quarantined-tests, added through the declarations: the Python client, the iterator with
to_pandas(), and the command line, against the sandbox."""

from __future__ import annotations

import csv
import io
import json

import pytest

import trunk_api
from trunk_api import QuarantinedTest, QuarantinedTestStatus, QuarantineSetting, QueueSettings
from trunk_api._core import tables

from cli_support import cli, last_body, queue_args, sandbox, target  # noqa: F401  (fixtures are used by name)
from conftest import ensure_queue


def test_get_queue_reads_the_settings_and_the_pull_requests(sandbox):
    client = sandbox.client()
    repo = sandbox.repos[0]
    ensure_queue(sandbox, repo, "proof-get")
    client.update_queue(repo, "proof-get", concurrency=6, merge_method="rebase")
    settings = client.get_queue(repo, "proof-get")
    assert isinstance(settings, QueueSettings)
    assert settings.concurrency == 6 and settings.merge_method == "rebase" and settings.branch == "proof-get"
    assert settings.enqueued_pull_requests == []
    assert last_body(sandbox, "getQueue") == {"repo": repo.to_dict(), "targetBranch": "proof-get"}


def test_get_queue_validates_before_sending(sandbox):
    client = sandbox.client()
    with pytest.raises(trunk_api.ValidationError) as caught:
        client.get_queue(sandbox.repos[0], "")
    assert [v.field for v in caught.value.errors] == ["targetBranch"]
    with pytest.raises(TypeError):
        client.get_queue(sandbox.repos[0])  # type: ignore[call-arg]


def test_quarantined_tests_page_and_iterate_to_the_same_tests(sandbox):
    client = sandbox.client()
    repo, org = sandbox.repos[0], sandbox.org_url_slug
    first = client.list_quarantined_tests(repo, org, page_size=5)
    assert first.page.total_rows and len(first.quarantined_tests) <= 5
    every = client.iter_quarantined_tests(repo, org, page_size=5).to_list()
    assert len(every) == first.page.total_rows
    assert every[: len(first.quarantined_tests)] == first.quarantined_tests
    test = every[0]
    assert isinstance(test, QuarantinedTest)
    assert isinstance(test.status, QuarantinedTestStatus) and isinstance(test.quarantine_setting, QuarantineSetting)
    assert (test.status == QuarantinedTestStatus.HEALTHY) == (test.quarantine_setting == "ALWAYS_QUARANTINE")
    assert client.iter_quarantined_tests(repo, org, max_results=3).to_list() == every[:3]
    with pytest.raises(trunk_api.ValidationError):
        client.list_quarantined_tests(repo, org, page_size=0)


def test_quarantined_tests_to_pandas_has_the_declared_columns(sandbox):
    client = sandbox.client()
    frame = client.iter_quarantined_tests(sandbox.repos[0], sandbox.org_url_slug).to_pandas()
    assert list(frame.columns) == tables.column_names(QuarantinedTest)
    assert list(frame.columns)[:4] == ["name", "parent", "file", "classname"]
    assert str(frame["quarantined_at"].dtype) == "datetime64[us, UTC]"
    assert set(frame["status"]) <= {"HEALTHY", "FLAKY", "BROKEN"}


def test_cli_queue_get_prints_the_queue(cli, sandbox):
    assert cli(*queue_args(sandbox, "proof-cli"), "--concurrency", "4").code == 0
    run = cli("queue", "get", "--repo", str(sandbox.repos[0]), "--branch", "proof-cli", "--format", "json")
    assert run.code == 0, run.err
    settings = json.loads(run.out)
    assert settings["concurrency"] == 4 and settings["enqueuedPullRequests"] == []


def test_cli_quarantined_lists_as_csv_with_the_declared_columns(cli, sandbox, target):
    run = cli("quarantined", *target, "--format", "csv")
    assert run.code == 0, run.err
    rows = list(csv.DictReader(io.StringIO(run.out)))
    assert rows and tuple(rows[0]) == tuple(tables.column_names(QuarantinedTest))
    assert all(row["quarantine_setting"] in ("ALWAYS_QUARANTINE", "AUTO_QUARANTINE") for row in rows)
    table = cli("quarantined", *target, "--format", "table", "--max-results", "2")
    assert table.code == 0 and "2 quarantined tests" in table.out
