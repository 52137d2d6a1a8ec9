"""The bot of examples/flaky_restart_bot.py (issue 29, "a bot that shows it"): run at a small size on the virtual
clock, with and without it on the same seed, against a real local receiver. With the bot more pull requests
merge; it re-submits only pull requests that failed, each at most once, and leaves one that fails again alone;
every delivery was answered 2xx; the same seed gives the same day."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from types import ModuleType

import pytest

import trunk_api
from trunk_api import Sandbox
from trunk_api.webhooks import construct_event

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "flaky_restart_bot.py"
SMALL = {"seed": 7, "hours": 4}  # 40 pull requests, about a second per run


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("flaky_restart_bot", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


bot_example = _load()


@pytest.fixture(scope="module")
def day() -> tuple[object, object]:
    return bot_example.run(**SMALL)


def _actions(outcome: object) -> dict[int, list[str]]:
    per_pr: dict[int, list[str]] = defaultdict(list)
    for number, action, _ in outcome.events:
        per_pr[number].append(action)
    return per_pr


def test_with_the_bot_more_pull_requests_merge_and_fewer_fail(day):
    without, with_bot = day
    assert without.submitted == with_bot.submitted == 40
    assert without.resubmitted == [] and with_bot.resubmitted
    assert with_bot.merged > without.merged
    assert with_bot.failed < without.failed
    assert with_bot.merged_on_retry > 0
    # Every pull request submitted concluded, in both runs.
    for outcome in day:
        assert outcome.merged + outcome.failed == outcome.submitted


def test_the_bot_resubmits_only_what_failed_and_each_at_most_once(day):
    _, with_bot = day
    assert len(set(with_bot.resubmitted)) == len(with_bot.resubmitted)
    actions = _actions(with_bot)
    for number, seen in actions.items():
        submissions = [i for i, action in enumerate(seen) if action == "submitted"]
        assert submissions[0] == 0 and len(submissions) <= 2, (number, seen)
        if len(submissions) == 2:
            assert number in with_bot.resubmitted
            assert seen[submissions[1] - 1] == "failed", (number, seen)  # re-submitted right after it failed
        else:
            assert number not in with_bot.resubmitted
            assert "failed" not in seen, (number, seen)  # every failure got its retry
        if seen.count("failed") == 2:
            assert seen[-1] == "failed"  # failed again: left alone


def test_without_the_bot_every_pull_request_is_submitted_once(day):
    without, _ = day
    assert all(seen.count("submitted") == 1 for seen in _actions(without).values())
    assert without.merged_on_retry == 0


def test_every_delivery_was_answered_2xx(day):
    for outcome in day:
        assert outcome.deliveries >= 4 * outcome.submitted
        assert outcome.delivery_statuses == {204}
        assert len(outcome.events) <= outcome.deliveries


def test_the_same_seed_gives_the_same_day(day):
    _, with_bot = day
    again = bot_example.simulate(bot=True, **SMALL)
    assert again.events == with_bot.events and again.resubmitted == with_bot.resubmitted


def _failed_event(sandbox: Sandbox, number: int) -> object:
    repo = sandbox.repos[0]
    return construct_event(
        '{"type":"pull_request.failed","action":"failed","status":"failed","pr_number":%d,"target_branch":"main",'
        '"repository":{"host":"%s","owner":"%s","name":"%s"},"failure_reason":"TEST_RUN_REQUIRED_STATUS_FAILED"}'
        % (number, repo.host, repo.owner, repo.name))


def test_a_resubmission_the_service_refuses_is_tried_again_on_the_retried_delivery():
    with Sandbox(seed=3, tests=60, clock="virtual", flaky_failure_rate=0.0, broken_pull_request_rate=0.0) as sandbox:
        client = sandbox.client()
        restart = bot_example.FlakyRestartBot(client)
        client.submit_pull_request(sandbox.repos[0], 9, "main")
        # Still in the queue: the service refuses (400), the bot raises, so the Receiver answers 500 and the
        # delivery comes again; the bot has not marked the pull request as done.
        with pytest.raises(trunk_api.BadRequestError, match="already in the queue"):
            restart(_failed_event(sandbox, 9), "msg_1")
        assert restart.resubmitted == []
        client.cancel_pull_request(sandbox.repos[0], 9, "main")
        restart(_failed_event(sandbox, 9), "msg_1")
        assert restart.resubmitted == [9]
        restart(_failed_event(sandbox, 9), "msg_2")  # failed again after its retry: left alone
        assert restart.resubmitted == [9]
        submitted = [r for r in sandbox.requests if r.path == "/v1/submitPullRequest"]
        assert [r.body.get("noBatch") for r in submitted] == [None, True, True]
        del client, restart


def test_the_script_prints_the_table():
    completed = subprocess.run([sys.executable, str(EXAMPLE), "--hours", "1", "--seed", "2"], capture_output=True,
                               text=True, timeout=120, check=False)
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert "without bot" in out and "merged per simulated hour" in out and "(yes)" in out
