"""`trunk-api twin calibrate|compare` against a sandbox playing a team's service for a week (as test_twin.py's
a_teams_week), its window set from the sandbox's virtual clock."""

from __future__ import annotations

import contextlib
import io
import json
from datetime import timedelta

import pytest
from cli_support import Run, Terminal
from conftest import a_teams_week_sandbox
from trunk_api.cli import main


@pytest.fixture(scope="module")
def a_teams_week():
    with a_teams_week_sandbox() as played:
        yield played


@pytest.fixture()
def twin_cli(a_teams_week, monkeypatch: pytest.MonkeyPatch):
    """Runs `trunk-api twin ...` over the week before the sandbox's clock, with the sandbox's address and v2 API
    key in the environment; the key appears in neither output."""
    box, queue_id = a_teams_week
    monkeypatch.setenv("TRUNK_BASE_URL", box.url)
    monkeypatch.setenv("TRUNK_API_TOKEN", box.token)
    monkeypatch.setenv("TRUNK_API_KEY", box.api_key)
    until = box.clock_now

    def run(*argv: str, window: bool = True, terminal: bool = False, v1: bool = False) -> Run:
        out = Terminal() if terminal else io.StringIO()
        err = io.StringIO()
        window_args = ["--since", (until - timedelta(days=7)).isoformat(), "--until", until.isoformat()] \
            if window else []
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            queue = ["--repo", str(box.repos[0]), "--branch", "main"] if v1 else ["--queue-id", queue_id]
            code = main(["twin", *argv, *queue, "--seeds", "4", *window_args])
        result = Run(code, out.getvalue(), err.getvalue())
        for secret in (box.api_key, box.token):
            assert secret not in result.out and secret not in result.err
        assert "Traceback" not in result.err, result.err
        return result

    return run


def strict_json(text: str):
    """json.loads refusing the NaN and Infinity tokens json.dumps would write by default."""
    def refuse(token: str):
        raise AssertionError(f"{token} in JSON output")
    return json.loads(text, parse_constant=refuse)


def estimates_in(section: dict):
    for value in section.values():
        if isinstance(value, dict) and set(value) == {"value", "low", "high", "observations"}:
            yield value
        elif isinstance(value, dict):
            yield from estimates_in(value)


def test_calibrate_json_has_every_section_and_intervals_around_their_values(twin_cli) -> None:
    run = twin_cli("calibrate")
    assert run.code == 0, run.err
    report = strict_json(run.out)
    assert set(report) == {"window", "calibration", "model", "backtest", "warnings"}
    assert report["window"]["pull_requests"] > 300 and report["window"]["runs"] > 0
    assert report["model"]["arrivals"] in ("poisson", "24 hourly", "168 hourly")
    assert report["model"]["run_duration"]["kind"] == "empirical"
    estimates = list(estimates_in(report["calibration"])) + list(estimates_in(report["model"]))
    assert len(estimates) >= 7
    for estimate in estimates:
        assert all(isinstance(estimate[k], (int, float)) for k in ("value", "low", "high"))
        assert estimate["low"] <= estimate["value"] <= estimate["high"]
    assert report["calibration"]["arrivals_per_hour"]["low"] <= 2.5 <= report["calibration"]["arrivals_per_hour"]["high"]
    assert set(report["backtest"]) >= {"minutes_in_queue_p50", "minutes_in_queue_p90", "runs_per_merged",
                                       "merged_per_day"}
    assert isinstance(report["backtest"]["minutes_in_queue_p50"]["error"], float)
    assert any("impacted every target" in w for w in report["warnings"])
    # Every arrival took the queue's default (medium, 100), which the queue names on each entry.
    assert [p["value"] for p in report["calibration"]["priorities"]] == [100]
    assert report["calibration"]["priorities"][0]["share"]["value"] == 1.0
    assert report["calibration"]["targets"] == [] and report["calibration"]["targets_sampled"] > 0
    assert report["calibration"]["all_targets"]["value"] == 1.0


def test_calibrate_of_a_v1_queue_reads_it_with_the_token_alone(twin_cli, monkeypatch) -> None:
    monkeypatch.delenv("TRUNK_API_KEY")  # a team on a v1 token
    run = twin_cli("calibrate", v1=True)
    assert run.code == 0, run.err
    report = strict_json(run.out)
    assert report["window"]["source"] == "v1" and report["window"]["queue_id"].endswith(" main")
    assert report["backtest"]["minutes_in_queue_p50"]["error"] is None  # v1 does not date submissions
    assert isinstance(report["backtest"]["runs_per_merged"]["error"], float)
    assert any("read through v1" in w for w in report["warnings"])
    table = twin_cli("calibrate", v1=True, terminal=True).out
    assert "(read through v1)" in table and "p50 min" in table


def test_calibrate_table_shows_the_backtest_line(twin_cli) -> None:
    run = twin_cli("calibrate", terminal=True)
    assert run.code == 0, run.err
    lines = run.out.splitlines()
    assert any(line.startswith("backtest:") and "p50 min" in line and "vs twin" in line for line in lines)
    assert any(line.startswith("arrivals per hour:") and "model: poisson" in line for line in lines)
    assert any(line.startswith("broken rate (fitted):") for line in lines)
    assert any(line.startswith("priorities:") and "100 100.0 %" in line for line in lines)
    assert any(line.startswith("impacted targets:") and "all targets 100.0 %" in line for line in lines)


def test_compare_puts_today_first_then_each_config_with_the_backtest_errors(twin_cli, tmp_path) -> None:
    configs = tmp_path / "configs.json"
    configs.write_text(json.dumps([{"concurrency": 4}]))
    run = twin_cli("compare", "--window-days", "7", "--config", '{"concurrency": 1}', "--config-file", str(configs))
    assert run.code == 0, run.err
    answer = strict_json(run.out)
    rows = answer["configurations"]
    assert [row["configuration"] for row in rows] == ["today", '{"concurrency": 1}', '{"concurrency": 4}']
    for row in rows:
        for measure in ("minutes_in_queue_p50", "minutes_in_queue_p90", "runs_per_merged", "merged_per_day"):
            assert f"{measure}_backtest_error" in row
        assert row["runs_per_merged_low"] <= row["runs_per_merged"] <= row["runs_per_merged_high"]
    assert rows[0]["minutes_in_queue_p50_backtest_error"] == answer["backtest"]["minutes_in_queue_p50"]["error"]
    one_at_a_time, four = rows[1]["minutes_in_queue_p50"], rows[2]["minutes_in_queue_p50"]
    assert one_at_a_time > four


def test_compare_table_sets_the_error_beside_each_answer(twin_cli) -> None:
    run = twin_cli("compare", "--window-days", "7", "--config", '{"concurrency": 4}', terminal=True)
    assert run.code == 0, run.err
    header, today, four = run.out.splitlines()[:3]
    assert header.split()[:4] == ["CONFIGURATION", "P50", "MIN", "±"]
    assert today.startswith("today") and four.startswith('{"concurrency": 4}')
    assert today.count(" %") >= 4


@pytest.mark.parametrize("config, complaint", [("{concurrency: 4}", "not JSON"),
                                               ('[{"concurrency": 4}]', "expected a JSON object"),
                                               ('{"concurency": 4}', "concurency is not a queue setting")])
def test_a_bad_config_is_a_usage_error_naming_the_flag_and_value(twin_cli, config, complaint) -> None:
    run = twin_cli("compare", "--config", config)
    assert run.code == 2 and run.out == ""
    assert f"--config {config!r}" in run.err and complaint in run.err


def test_a_bad_config_file_is_a_usage_error(twin_cli, tmp_path) -> None:
    path = tmp_path / "configs.json"
    path.write_text('{"concurrency": 4}')
    run = twin_cli("compare", "--config-file", str(path))
    assert run.code == 2 and "--config-file" in run.err and "JSON list" in run.err
    path.write_text('[{"batch": true}, {"nope": 1}]')
    run = twin_cli("compare", "--config-file", str(path))
    assert run.code == 2 and "[1]" in run.err and "nope is not a queue setting" in run.err


def test_days_beyond_what_the_service_keeps_are_refused(a_teams_week, twin_cli) -> None:
    box, _ = a_teams_week
    run = twin_cli("calibrate", "--days", "46", "--until", box.clock_now.isoformat(), window=False)
    assert run.code == 2 and "--days 46" in run.err
    run = twin_cli("calibrate", "--days", "7", "--since", "2024-05-01T00:00:00Z", window=False)
    assert run.code == 2 and "not allowed with argument" in run.err
    run = twin_cli("calibrate", "--until", "yesterday", window=False)
    assert run.code == 2 and "--until" in run.err


def test_days_counts_back_from_until(a_teams_week, twin_cli) -> None:
    box, _ = a_teams_week
    run = twin_cli("calibrate", "--days", "7", "--until", box.clock_now.isoformat(), window=False)
    assert run.code == 0, run.err
    window = strict_json(run.out)["window"]
    assert window["until"].startswith(box.clock_now.strftime("%Y-%m-%dT%H:%M"))
    assert window["since"].startswith((box.clock_now - timedelta(days=7)).strftime("%Y-%m-%dT%H:%M"))


def test_ctrl_c_ends_the_command_with_exit_code_130(twin_cli, monkeypatch: pytest.MonkeyPatch) -> None:
    # The library raises KeyboardInterrupt when Ctrl-C arrives while it simulates with the GIL released.
    from trunk_api import twin

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(twin.Twin, "compare", interrupted)
    run = twin_cli("compare", "--config", '{"concurrency": 4}')
    assert run.code == 130 and "interrupted" in run.err and run.out == ""
