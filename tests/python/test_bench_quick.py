"""The benchmark harness (benchmarks/run.py --quick) runs end to end and reports every scenario and target.
It asserts nothing about speed: timings belong to the benchmark, not to tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_quick_benchmark_produces_every_scenario_row(tmp_path: Path) -> None:
    output = tmp_path / "bench.json"
    completed = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--output", str(output)],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    result = json.loads(output.read_text())
    assert result["mode"] == "quick"
    contenders = {(row["scenario"].split()[0], row["contender"]) for row in result["rows"]}
    expected = {
        ("1", "ours get_test_details_many (c=8)"), ("1", "requests.Session sequential"),
        ("1", "httpx.AsyncClient (c=8)"), ("1", "ideal N*latency/concurrency"),
        ("1", "ours get_test_details_many (c=32)"),
        ("2", "ours iter_failing_tests (TestCase)"), ("2", "requests + json + dataclasses"),
        ("2", "requests + json dicts"),
        ("3", "ours to_pandas()"), ("3", "requests + pandas.DataFrame(dicts)"),
        ("4", "ours get_test_details"), ("4", "requests.Session"), ("4", "httpx.Client"),
        ("5", "ours list of TestCase"), ("5", "requests + json dicts"),
        ("8", "requests + pandas.DataFrame(dicts)"), ("8", "ours to_arrow()"), ("8", "ours to_polars()"),
        ("8", 'ours to_pandas(dtype_backend="pyarrow")'), ("8", "requests + json dicts (held)"),
        ("8", "ours to_pandas() progress=False"), ("8", "ours to_pandas() progress=True (tqdm)"),
        ("8", "bare transfer of the same pages (floor)"), ("8", "ours to_list()"),
        ("8", "ours to_arrow() CPU s per 100k tests"), ("8", "ours async to_arrow()"), ("8", "ours async to_list()"),
        ("10", "ours webhooks.verify (typed event)"), ("10", "svix Webhook.verify + json.loads"),
        ("11", "receiver, no faults"), ("11", "receiver, 10% duplicates, 30 s jitter"),
        ("12", "bare transfer of the same pages (floor)"), ("12", "ours v2 to_arrow()"), ("12", "ours v2 to_list()"),
        ("12", "ours v1 get_queue"), ("12", "ours v2 merge_queues.get"),
        ("12", "ours v1 get_queue (canned)"), ("12", "ours v2 merge_queues.get (canned)"),
        ("12", "ours v1 update_queue(state=paused)"), ("12", "ours v2 merge_queues.pause"),
        ("13", "setup: advance 5 days (untimed)"), ("13", "ours twin.calibrate()"),
        ("13", "requests + json, the same pages"),
        ("14", "ours twin.compare() (no peer)"),
        ("15", "bare transfer of the same pages (floor)"), ("15", "ours v2 to_arrow()"), ("15", "ours v2 to_list()"),
    }
    # Scenarios 9 and 10 run C++ tools of build/cpp when they are built (scripts/test builds the tree before pytest).
    queue_tool = ROOT / "build" / "cpp" / "cpp" / "sandbox" / "trunk_bench_queue"
    if queue_tool.exists():
        expected.add(("9", "trunk_bench_queue (virtual clock)"))
    webhooks_row = ("10", "C++ verify_webhook (per 1M)")
    assert contenders - {webhooks_row} == expected
    for row in result["rows"]:
        if row["scenario"].startswith("5") or row["contender"].endswith("(held)"):
            assert row["held_bytes"] is not None and row["peak_bytes"] > 0
        elif "cpu_seconds" in row:
            assert row["cpu_seconds"] > 0
        else:
            assert row["seconds"] > 0
    assert {t["scenario"].split()[0] for t in result["targets"]} == {"1", "2", "3", "4", "5", "8", "10", "11", "12", "13", "14",
                                                                     "15"} | (
        {"9"} if queue_tool.exists() else set())
    assert len(result["targets"]) == 32 + queue_tool.exists() + (webhooks_row in contenders)
    # Scenario 11's checks are about delivery, not speed: they hold at the quick size too.
    checks = [t for t in result["targets"] if t["scenario"].startswith("11 ") and t["what"].startswith("check: ")]
    assert [t["what"] for t in checks] == ["check: none lost", "check: none unsigned",
                                           "check: duplicates only as asked", "check: in order per pull request"]
    assert all(t["met"] for t in checks), checks
    deliveries = [row for row in result["rows"] if row["scenario"].startswith("11 ")]
    assert all(row["n"] >= 4 * row["pull_requests"] and row["n"] == row["logged"] for row in deliveries)
    assert "ratio" in completed.stdout and "met" in completed.stdout  # the printed table


def test_scenario_11s_order_check_finds_a_pull_request_out_of_order() -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import webhook_delivery
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    from datetime import datetime, timedelta, timezone

    start = datetime(2026, 11, 2, tzinfo=timezone.utc)

    def life(number: int, *actions: str) -> list[object]:
        return [webhook_delivery.Arrival(f"msg_{number}_{i}", f"pull_request.{action}", number, action,
                                         start + timedelta(minutes=i)) for i, action in enumerate(actions)]

    good = life(1, "submitted", "queued", "testing", "queued", "testing", "merged")
    assert webhook_delivery.out_of_order(good) == []
    assert webhook_delivery.out_of_order(good + good[:2]) == []  # duplicates arriving later are not re-read
    assert webhook_delivery.out_of_order(good[1:]) == ["#1: queued testing queued testing merged"]
    assert webhook_delivery.out_of_order(life(2, "submitted", "testing", "merged")) != []  # testing unqueued
    assert webhook_delivery.out_of_order(life(3, "submitted", "queued", "testing", "failed", "merged")) != []
    late = life(4, "submitted", "queued", "testing", "merged")
    late[1], late[2] = late[2], late[1]  # arrived swapped
    assert webhook_delivery.out_of_order(late) != []
