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
        ("10", "ours webhooks.verify (typed event)"), ("10", "svix Webhook.verify + json.loads"),
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
        else:
            assert row["seconds"] > 0
    assert {t["scenario"].split()[0] for t in result["targets"]} == {"1", "2", "3", "4", "5", "8", "10"} | (
        {"9"} if queue_tool.exists() else set())
    assert len(result["targets"]) == 15 + queue_tool.exists() + (webhooks_row in contenders)
    assert "ratio" in completed.stdout and "met" in completed.stdout  # the printed table
