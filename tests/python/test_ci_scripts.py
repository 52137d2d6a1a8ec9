"""The shell libraries CI's time and the wheels rest on: scripts/lib/stages.sh (each stage's wall time, builds in a
background chain) and scripts/lib/pythons.sh (the CPython versions that get a wheel)."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    from pip._vendor import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]


def run_stages(tmp_path: Path, body: str) -> subprocess.CompletedProcess[str]:
    """Runs `body` after sourcing stages.sh, as .ci/run does, with the chain's logs in tmp_path."""
    script = f"set -euo pipefail\nci_dir={tmp_path}/ci\n. {ROOT}/scripts/lib/stages.sh\n" + textwrap.dedent(body)
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


def table_rows(output: str) -> dict[str, str]:
    rows = {}
    for line in output.splitlines():
        if m := re.fullmatch(r"\| (\S+)\s+\|\s+(\d+:\d\d) \| (.+)", line):
            rows[m.group(1)] = m.group(3)
    return rows


def test_every_stage_is_timed_and_the_background_chain_runs_in_order(tmp_path: Path) -> None:
    result = run_stages(tmp_path, f"""
        ci_stage first true
        ci_background one bash -c 'echo built one' -- two cat {tmp_path}/ci/one.log
        ci_stage second true
        ci_await one
        ci_await two
    """)
    assert result.returncode == 0, result.stderr
    assert table_rows(result.stdout) == {
        "first": "ok", "second": "ok", "one": "ok, in the background", "two": "ok, in the background"}
    # two started after one had finished: it read one's whole log; ci_await printed each log.
    assert result.stdout.count("built one") == 2
    assert re.search(r"^\| total \(wall\)\s+\|\s+\d+:\d\d \|$", result.stdout, re.M)
    assert result.stdout.rstrip().endswith("ci: every stage passed")


def test_a_failed_background_stage_fails_the_run_and_skips_the_rest_of_the_chain(tmp_path: Path) -> None:
    result = run_stages(tmp_path, """
        ci_background one bash -c 'echo the reason; exit 3' -- two bash -c 'echo must not run'
        ci_stage meanwhile true
        ci_await one
        ci_stage never true
    """)
    assert result.returncode == 3
    rows = table_rows(result.stdout)
    assert rows["one"] == "FAILED (exit 3), in the background"
    assert "never" not in rows
    assert "the reason" in result.stdout
    assert (tmp_path / "ci/two.status").read_text().strip() == "skipped"
    assert "must not run" not in result.stdout
    assert "ci: FAILED (exit 3)" in result.stdout


def test_a_failed_foreground_stage_stops_the_chain_with_its_children(tmp_path: Path) -> None:
    marker = tmp_path / "still-running"
    result = run_stages(tmp_path, f"""
        ci_background slow bash -c 'sleep 31.7 & wait; touch {marker}'
        sleep 0.5
        ci_stage broken false
    """)
    assert result.returncode == 1
    assert table_rows(result.stdout) == {"broken": "FAILED (exit 1)"}
    # The chain's process group got SIGTERM: neither the chain nor its grandchild `sleep 31.7` is left to finish.
    time.sleep(1)
    assert not marker.exists()
    leftover = subprocess.run(["pgrep", "-f", "sleep 31.7"], capture_output=True, text=True)
    assert leftover.stdout.strip() == ""


def declared_wheel_versions() -> list[str]:
    result = subprocess.run(["bash", "-c", f". {ROOT}/scripts/lib/pythons.sh; trunk_wheel_versions"],
                            capture_output=True, text=True, check=True)
    return result.stdout.split()


def test_the_wheel_versions_start_at_the_oldest_python_the_package_supports() -> None:
    with open(ROOT / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)
    versions = declared_wheel_versions()
    assert versions == sorted(versions, key=lambda v: tuple(map(int, v.split("."))))
    assert project["project"]["requires-python"] == ">=" + versions[0]
    assert len(versions) == len(set(versions)) >= 4


def test_find_python_names_the_running_interpreter_and_explains_a_missing_one() -> None:
    version = "%d.%d" % sys.version_info[:2]
    env_name = "TRUNK_PYTHON_" + version.replace(".", "_")
    found = subprocess.run(["bash", "-c", f". {ROOT}/scripts/lib/pythons.sh; trunk_find_python {version}"],
                           capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", env_name: sys.executable})
    assert found.returncode == 0, found.stderr
    assert subprocess.run([found.stdout.strip(), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                          capture_output=True, text=True).stdout.strip() == version
    missing = subprocess.run(["bash", "-c", f". {ROOT}/scripts/lib/pythons.sh; trunk_find_python 3.99"],
                             capture_output=True, text=True)
    assert missing.returncode == 1
    assert "no CPython 3.99 on this machine" in missing.stderr
