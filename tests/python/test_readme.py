"""The README is a landing page whose code runs as written.

- At most 150 lines; the top is the title, one paragraph and the two commands (scripts/demo, scripts/test).
- Every code block is accounted for: the ```python block runs (with TRUNK_API_TOKEN and TRUNK_BASE_URL pointing
  at a sandbox serving "acme", so `Client()` would work as written), the command-line block marked "runs as
  written" runs in bash against that sandbox, and the install blocks name scripts and paths that exist or that
  the scripts make (.venv). Every Python block pastes into a Python prompt.
- Its links lead to documentation pages that exist; the pages themselves are tested by test_docs.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from trunk_api import Sandbox

from doc_blocks import CLI_MARKER, FENCE, ROOT, blocks, cli_block, paste_problems, python_blocks, run_cli_block, run_python

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_it_is_a_landing_page_of_at_most_150_lines():
    assert len(README.splitlines()) <= 150


def test_the_top_is_the_title_a_paragraph_and_the_two_commands():
    top = README.split("\n## ", 1)[0]
    assert top.startswith("# trunk-api\n")
    commands = [line.split("#")[0].strip() for line in blocks(README, "bash")[0].splitlines()]
    assert commands == ["scripts/demo", "scripts/test"]
    for command in commands:
        assert os.access(ROOT / command, os.X_OK), command
    assert README.index("scripts/demo") < README.index("\n## ")


def test_every_code_block_is_run_or_checked():
    """A new block must be given a test here: the Python one and the command-line one run, the rest are the
    install commands (checked below)."""
    fenced = [match.group("lang") for match in FENCE.finditer(README)]
    assert fenced.count("python") == len(python_blocks(README)) == 1  # none skipped
    bash = blocks(README, "bash")
    cli = cli_block(README)
    install = [block for block in bash if block != cli]
    assert len(install) == 3 and sorted(set(fenced)) == ["bash", "python"]
    assert README.count(CLI_MARKER) == 1


def test_the_install_blocks_say_how_to_use_the_venv_the_notebooks_and_the_wheel():
    install = "\n".join(block for block in blocks(README, "bash") if block != cli_block(README))
    assert ". .venv/bin/activate" in install and "jupyter lab notebooks/" in install
    assert "pip install --no-index --find-links dist trunk-api" in install  # the wheel of the reader's Python
    assert (ROOT / "notebooks").is_dir() and list((ROOT / "notebooks").glob("*.ipynb"))
    # Every line is a command (or a comment): nothing a reader would paste and get "command not found" for.
    for line in filter(None, install.splitlines()):
        assert re.match(r"^(\.|python|pip|jupyter|scripts/)\S*", line), line


def test_the_python_block_runs_and_shows_what_it_says(acme, capsys):
    namespace, left_running = run_python(python_blocks(README), "README.md")
    out = capsys.readouterr().out
    assert "failure_rate_last_24h" in out and "merge queue: paused" in out
    assert acme.token not in out
    assert isinstance(namespace["sandbox"], Sandbox) and left_running == []  # the README stops what it starts


def test_python_blocks_paste_into_a_python_prompt():
    for number, source in enumerate(python_blocks(README), 1):
        assert paste_problems(source) == [], f"README python block {number}"


def test_the_command_line_block_runs_as_written(acme):
    block = cli_block(README)
    assert block.count("trunk-api ") == 3
    result = run_cli_block(block)
    assert result.returncode == 0, result.stderr
    assert acme.token not in result.stdout + result.stderr
    assert Path("broken.csv").read_text().startswith("id,name,")
    assert [r.body.get("state") for r in acme.requests if r.path == "/v1/updateQueue"] == ["paused"]
    unhealthy = [r.body for r in acme.requests if r.path.endswith("list-unhealthy-tests")]
    assert unhealthy and unhealthy[0]["repo"] == {"host": "github.com", "owner": "acme", "name": "storefront"}


def test_links_lead_to_pages_that_exist():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    local = [link for link in links if not re.match(r"^[a-z]+://", link)]
    assert len(local) >= 12
    for link in local:
        assert (ROOT / link).exists(), link


def test_the_demo_runs_and_tells_its_story():
    """`scripts/demo` installs the package, then runs examples/demo.py: that last step, as a program."""
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "demo.py")], capture_output=True, text=True,
                            timeout=120, env={k: v for k, v in os.environ.items() if not k.startswith("TRUNK_")})
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    out = result.stdout
    for part in ("tests failed in the last 24 hours", "flaky tests; the 5 that impacted the most pull requests",
                 "details of ", "state=paused", "mode=parallel", "state=running",
                 "AuthenticationError (401)", "ValidationError: end_time", "done in"):
        assert part in out, part
    assert "not-the-token" not in out
