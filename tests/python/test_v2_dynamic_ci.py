"""Dynamic CI from Python (docs/reference/v2.md#dynamic-ci): ``client.v2.dynamic_ci``, sync and async, as tables and
from the command line, over the sandbox, whose plans follow the impacted targets uploaded for the commit built
(docs/sandbox.md#dynamic-ci)."""

from __future__ import annotations

import asyncio
import json

import pytest

import trunk_api
from trunk_api import ChangedFile, ChangedFiles, ForceOverrideRequest, NotFoundError, ValidationError
from trunk_api.enums import CiSignalRecommendation, CiSignalType, ForceOverrideScope

from conftest import main_queue_of, run_v2_cli, virtual_sandbox

SHA = "9f2c1b7c2b4c9d1e0a3f5b6c7d8e9f0a1b2c3d4e"


@pytest.fixture(scope="module")
def box():
    with virtual_sandbox(seed=13) as sandbox:
        yield sandbox


@pytest.fixture()
def client(box):
    return box.client()


def plan(client, repo, number, **keywords):
    """A pull request's run of the CI workflow at SHA; keywords change or add fields."""
    arguments = dict(base_sha="1a2b3c4d", pr_number=number, workflow_path=".github/workflows/ci.yaml")
    arguments.update(keywords)
    return client.v2.dynamic_ci.generate_plan(repo.owner, repo.name, SHA, f"pr-{number}", "18342998211", 1,
                                              **arguments)


def runs(answer) -> dict[str, bool]:
    return {job.job_key: job.run for job in answer.jobs}


def upload(client, box, number, targets) -> None:
    queue = main_queue_of(client, box.repos[0])
    client.v2.impacted_targets.upload(queue.repository_id, "main", SHA, number=number, impacted_targets=targets)


def test_the_resource_has_its_verbs(client) -> None:
    assert {"generate_plan", "generate_buildkite_plan", "pr_jobs", "pr_jobs_page", "force_overrides",
            "force_overrides_page", "set_force_overrides"} <= set(dir(client.v2.dynamic_ci))


def test_a_plan_follows_the_impacted_targets_and_the_diff(box, client) -> None:
    repo = box.repos[0]
    unknown = plan(client, repo, 41)
    assert runs(unknown) == {"lint": True, "unit-tests": True, "integration-tests": True}
    assert [s.type for s in unknown.jobs[0].signals] == list(CiSignalType)  # every signal, abstentions included
    upload(client, box, 41, ["unit-tests"])
    assert runs(plan(client, repo, 41)) == {"lint": False, "unit-tests": True, "integration-tests": False}
    # A diff given as the part's class, or as its dict with the wire names: nothing changed skips everything.
    nothing = ChangedFiles(base="1a2b3c4d", total_files=0, total_additions=0, total_deletions=0, files=[])
    assert not any(runs(plan(client, repo, 41, changed_files=nothing)).values())
    as_dict = {"base": "1a2b3c4d", "totalFiles": 1, "totalAdditions": 900, "totalDeletions": 0,
               "files": [{"path": "src/cache.cc", "status": "modified", "additions": 900, "deletions": 0}]}
    large = plan(client, repo, 41, changed_files=as_dict)
    assert runs(large)["lint"] is True  # a large change votes to run: a tie with "not impacted" runs
    ignored = plan(client, repo, 41, ignore_signals=[CiSignalType.PATHS_FILTER, "diff-driven-volatility"])
    paths = next(s for s in ignored.jobs[0].signals if s.type == CiSignalType.PATHS_FILTER)
    assert paths.ignored and paths.recommendation == CiSignalRecommendation.VOTE_NO_RUN
    assert runs(ignored)["lint"] is True
    # Off a pull request: baseSha and prNumber go as null (None), and everything runs.
    push = client.v2.dynamic_ci.generate_plan(repo.owner, repo.name, SHA, "main", "1", 1,
                                              workflow_path=".github/workflows/ci.yaml")
    assert all(runs(push).values()) and push.notice is None
    other = plan(client, repo, 41, workflow_path=".github/workflows/release.yaml")
    assert other.jobs == [] and other.notice.code == "WORKFLOW_NOT_RECOGNIZED"
    with pytest.raises(NotFoundError) as missing:
        client.v2.dynamic_ci.generate_plan(repo.owner, "nope", SHA, "main", "1", 1, workflow_path="ci.yaml")
    assert missing.value.code == "REPOSITORY_NOT_FOUND"


def test_forces_are_replaced_as_a_whole(box, client) -> None:
    repo = box.repos[0]
    workflows = list(client.v2.dynamic_ci.pr_jobs(repo.owner, repo.name))
    assert [w.path for w in workflows] == [".github/workflows/ci.yaml", None]
    table = client.v2.dynamic_ci.pr_jobs(repo.owner, repo.name).to_arrow()
    assert table.num_rows == 2 and {"workflow_id", "name", "path", "jobs"} <= set(table.column_names)
    ci = workflows[0]
    lint = next(job for job in ci.jobs if job.job_key == "lint")
    upload(client, box, 42, [])
    assert runs(plan(client, repo, 42))["lint"] is False
    force = ForceOverrideRequest(scope="job", workflow_id=ci.workflow_id, job_id=lint.job_id)
    client.v2.dynamic_ci.set_force_overrides(repo.owner, repo.name, 42, SHA, [force])
    saved = list(client.v2.dynamic_ci.force_overrides(repo.owner, repo.name, 42))
    assert [(f.scope, f.job_id, f.head_sha_at_save) for f in saved] == [(ForceOverrideScope.JOB, lint.job_id, SHA)]
    assert runs(plan(client, repo, 42)) == {"lint": True, "unit-tests": False, "integration-tests": False}
    client.v2.dynamic_ci.set_force_overrides(repo.owner, repo.name, 42, SHA, [force, {"scope": "pullRequest"}])
    kept = list(client.v2.dynamic_ci.force_overrides(repo.owner, repo.name, 42))
    assert kept[0] == saved[0] and len(kept) == 2  # the active one left as it was
    client.v2.dynamic_ci.set_force_overrides(repo.owner, repo.name, 42, SHA, [])
    assert list(client.v2.dynamic_ci.force_overrides(repo.owner, repo.name, 42)) == []
    with pytest.raises(NotFoundError) as missing:
        client.v2.dynamic_ci.set_force_overrides(repo.owner, repo.name, 42, SHA, [
            ForceOverrideRequest(scope="workflow", workflow_id="2b3c4d5e-0000-4000-8000-000000000002")])
    assert missing.value.code == "CI_SCOPE_NOT_FOUND"


@pytest.mark.parametrize(("make", "field", "rule"), [
    (lambda: ForceOverrideRequest(scope="job"), "workflowId", "is required for scope job"),
    (lambda: ForceOverrideRequest(scope="pullRequest", job_id="3c4d5e6f-0000-4000-8000-000000000003"), "jobId",
     "must not be set for scope pullRequest"),
    (lambda: ForceOverrideRequest(scope="workflow", workflow_id="not-a-uuid"), "workflowId", "UUID"),
    (lambda: ForceOverrideRequest(scope="everything"), "scope", "must be one of pullRequest, workflow, job"),
    (lambda: ChangedFiles(base="b", total_files=2, total_additions=0, total_deletions=0, files=[]), "files",
     "must hold exactly min(totalFiles, 200) = 2 items"),
    (lambda: ChangedFiles(base="b", total_files=0, total_additions=-1, total_deletions=0, files=[]),
     "totalAdditions", "must be at least 0"),
    (lambda: ChangedFile(path="p" * 4097, status="modified", additions=0, deletions=0), "path",
     "at most 4096 characters"),
    (lambda: ChangedFile(path="p", status="moved", additions=0, deletions=0), "status", "must be one of added"),
])
def test_a_bad_part_is_refused_when_made_naming_its_field(make, field, rule) -> None:
    with pytest.raises(ValidationError) as refused:
        make()
    assert field in str(refused.value) and rule in str(refused.value)


@pytest.mark.parametrize(("keywords", "field", "rule"), [
    (dict(pr_labels=["x" * 257]), "prLabels[0]", "at most 256 characters"),
    (dict(ignore_signals=["paths-filtre"]), "ignoreSignals[0]", "must be one of estimated-cost"),
    (dict(changed_files={"base": "b", "totalFiles": 1}), "changedFiles", "must be a ChangedFiles or its dict"),
    (dict(job_keys=["k"] * 1001), "jobKeys", "must hold at most 1000 items"),
])
def test_bad_input_is_refused_before_sending_naming_the_field(box, client, keywords, field, rule) -> None:
    with pytest.raises(ValidationError) as refused:
        plan(client, box.repos[0], 43, **keywords)
    assert field in str(refused.value) and rule in str(refused.value)


def test_the_boundaries_themselves_are_sent(box, client) -> None:
    repo = box.repos[0]
    assert plan(client, repo, 44, pr_labels=["x" * 256] * 1000, job_keys=["lint"] * 1000).jobs[0].job_key == "lint"
    many = ChangedFiles(base="b", total_files=250, total_additions=1, total_deletions=0,
                        files=[ChangedFile(path=f"f{i}", status="added", additions=0, deletions=0) for i in range(200)])
    assert len(many.files) == 200 and plan(client, repo, 44, changed_files=many).jobs


def test_async_plans_the_same(box, client) -> None:
    repo = box.repos[0]

    async def read():
        async with box.async_client() as async_client:
            answer = await async_client.v2.dynamic_ci.generate_plan(
                repo.owner, repo.name, SHA, "pr-45", "1", 1, base_sha=None, pr_number=45,
                workflow_path=".github/workflows/ci.yaml")
            workflows = [w async for w in async_client.v2.dynamic_ci.pr_jobs(repo.owner, repo.name)]
            return answer, workflows

    answer, workflows = asyncio.run(read())
    assert answer == plan(client, repo, 45, base_sha=None)
    assert workflows == list(client.v2.dynamic_ci.pr_jobs(repo.owner, repo.name))


def test_the_command_line_plans_and_forces(monkeypatch, box, client) -> None:
    repo = box.repos[0]
    upload(client, box, 46, ["lint"])
    code, out, err = run_v2_cli(monkeypatch, box, "v2", "dynamic-ci", "generate-plan", "--owner", repo.owner,
                             "--name", repo.name, "--commit-sha", SHA, "--branch", "pr-46", "--pr-number", "46",
                             "--run-id", "7", "--run-attempt", "1", "--workflow-path", ".github/workflows/ci.yaml",
                             "--ignore-signal", "estimated-cost", "--format", "json")
    assert code == 0, err
    verdicts = {job["jobKey"]: job["run"] for job in json.loads(out)["jobs"]}
    assert verdicts == {"lint": True, "unit-tests": False, "integration-tests": False}
    code, out, err = run_v2_cli(monkeypatch, box, "v2", "dynamic-ci", "set-force-overrides", "--owner", repo.owner,
                             "--name", repo.name, "--pr-number", "46", "--head-sha", SHA,
                             "--override", '{"scope": "pullRequest"}')
    assert code == 0, err
    code, out, err = run_v2_cli(monkeypatch, box, "v2", "dynamic-ci", "force-overrides", "--owner", repo.owner,
                             "--name", repo.name, "--pr-number", "46", "--format", "json")
    assert code == 0, err
    assert [row["scope"] for row in json.loads(out)] == ["pullRequest"]
    code, out, err = run_v2_cli(monkeypatch, box, "v2", "dynamic-ci", "set-force-overrides", "--owner", repo.owner,
                             "--name", repo.name, "--pr-number", "46", "--head-sha", SHA, "--override", "[1]")
    assert code != 0 and "must be a JSON object" in err


def test_a_part_pickles_and_reads_back(tmp_path) -> None:
    import pickle

    force = ForceOverrideRequest(scope=ForceOverrideScope.WORKFLOW, workflow_id="2b3c4d5e-0000-4000-8000-000000000002")
    assert pickle.loads(pickle.dumps(force)) == force
    assert ForceOverrideRequest.from_dict(force.to_dict()) == force
    assert force.to_dict() == {"scope": "workflow", "workflowId": "2b3c4d5e-0000-4000-8000-000000000002"}
    assert isinstance(trunk_api.CiPlan.from_dict({"jobs": []}), trunk_api.CiPlan)
