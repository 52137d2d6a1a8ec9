"""The README's code runs as written.

- Every ```python block runs, in order, in one namespace (like a reader pasting them into one session). The
  blocks start their own Sandbox; the process environment also points TRUNK_API_TOKEN and TRUNK_BASE_URL at a
  sandbox serving the organization "acme", so a block that writes `Client()` works as written too.
- The command-line block marked "runs as written" runs in bash against that sandbox.
- The ```cmake and ```cpp blocks are built and run by tests/examples/run-cpp-consumer.sh (test_cpp_consumer.py).
- The top of the README (title, one paragraph, the two commands) stays first, and the reference tables cover
  every Client option.
"""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

from trunk_api import Client, Sandbox

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
FENCE = re.compile(r"^```(?P<lang>[a-z]*)\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL)
CLI_MARKER = "<!-- The next block runs as written in tests/python/test_readme.py"


def blocks(lang: str) -> list[str]:
    return [m.group("body") for m in FENCE.finditer(README) if m.group("lang") == lang]


@pytest.fixture()
def acme(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Sandbox]:
    with Sandbox(org_url_slug="acme", tests=800) as sandbox:
        monkeypatch.setenv("TRUNK_API_TOKEN", sandbox.token)
        monkeypatch.setenv("TRUNK_BASE_URL", sandbox.url)
        monkeypatch.delenv("TRUNK_API_KEY", raising=False)
        monkeypatch.chdir(tmp_path)  # blocks that write files write them here
        yield sandbox


def test_the_top_is_the_title_a_paragraph_and_the_two_commands():
    top = README.split("\n## ", 1)[0]
    assert top.startswith("# trunk-api\n")
    commands = [line.split("#")[0].strip() for line in blocks("bash")[0].splitlines()]
    assert commands == ["scripts/demo", "scripts/test"]
    assert README.index("scripts/demo") < README.index("\n## ")


def test_python_blocks_run_in_order_in_one_namespace(acme, capsys):
    python_blocks = blocks("python")
    assert len(python_blocks) >= 6
    namespace: dict[str, object] = {"__name__": "__readme__"}
    try:
        for number, source in enumerate(python_blocks, 1):
            exec(compile(source, f"README.md, python block {number}", "exec"), namespace)
    finally:
        for value in list(namespace.values()):
            if isinstance(value, Sandbox):
                value.stop()
    out = capsys.readouterr().out
    # What the quick start promises to show.
    assert "PRs" in out and "paused" in out
    assert "404" in out  # the NotFoundError example
    assert "concurrency" in out  # the ValidationError example names the field
    assert acme.token not in out
    started = namespace["sandbox"]
    assert isinstance(started, Sandbox) and not started.running  # the README stops what it starts


def test_command_line_block_runs_as_written(acme):
    start = README.index(CLI_MARKER)
    block = next(m.group("body") for m in FENCE.finditer(README, start) if m.group("lang") == "bash")
    assert block.count("trunk-api ") >= 6
    env = dict(os.environ)
    scripts = [sysconfig.get_path("scripts"), str(Path(sys.executable).parent)]  # where pip put trunk-api
    env["PATH"] = os.pathsep.join(scripts + [env.get("PATH", "")])
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", block], env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert acme.token not in result.stdout + result.stderr
    assert Path("failing.csv").read_text().startswith("id,name,")
    assert "most common failures" not in result.stdout  # `test` off a terminal prints JSON...
    assert '"most_common_failures"' in result.stdout  # ...with the test's failures
    assert "state:" in result.stdout and "required_statuses:" in result.stdout  # the last command's table
    queue_bodies = [r.body for r in acme.requests if r.path == "/v1/updateQueue"]
    assert [body.get("state") for body in queue_bodies] == ["paused", None, "running"]
    assert queue_bodies[1]["requiredStatuses"] == ["ci/build", "ci/test"] and queue_bodies[1]["batch"] is True


def test_configuration_table_lists_every_client_option():
    section = README.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    for name in inspect.signature(Client.__init__).parameters:
        if name != "self":
            assert f"| `{name}` |" in section, name
    for variable in ("TRUNK_API_TOKEN", "TRUNK_API_KEY", "TRUNK_BASE_URL"):
        assert variable in section


def test_sandbox_table_lists_every_fault_option():
    section = README.split("## The sandbox", 1)[1].split("\n## ", 1)[0]
    for name in ("latency_ms", "jitter_ms", "error_rate", "rate_limit", "drop_rate", "truncate_rate", "fault_seed"):
        assert f"`{name}`" in section, name


def test_the_sections_the_issue_asks_for_are_there():
    headings = re.findall(r"^## (.+)$", README, re.MULTILINE)
    for wanted in ("What it is, and for whom", "Install", "Python quick start", "Command line", "Configuration",
                   "Errors and retries", "Pagination", "The sandbox", "C++", "Performance", "Development"):
        assert wanted in headings


def test_the_demo_runs_and_tells_its_story():
    """`scripts/demo` installs the package, then runs examples/demo.py: that last step, as a program."""
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "demo.py")], capture_output=True, text=True,
                            timeout=120, env={k: v for k, v in os.environ.items() if not k.startswith("TRUNK_")})
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    out = result.stdout
    for part in ("tests failed in the last 24 hours", "flaky tests; the 5 that impacted the most pull requests",
                 "details of ", "state=paused", "state=switching_modes", "state=running",
                 "AuthenticationError (401)", "ValidationError: end_time", "done in"):
        assert part in out, part
    assert "not-the-token" not in out

