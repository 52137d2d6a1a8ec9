"""The C++ consumer example (examples/cpp) builds against the *installed* library and runs against the sandbox.

tests/examples/run-cpp-consumer.sh does the work: it installs the C++ library to a temporary prefix, builds
examples/cpp from scratch with find_package(trunk_api CONFIG REQUIRED), starts the installed trunk-sandbox and
checks the example's output and exit codes. It builds the library once more (Release, in build/consumer,
reused between runs), so it is the slowest test; it is marked `slow` but runs in the default test command.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "examples" / "run-cpp-consumer.sh"


@pytest.mark.slow
def test_cpp_example_builds_against_installed_package_and_lists_failing_tests() -> None:
    result = subprocess.run(
        ["bash", str(SCRIPT)],
        cwd=ROOT,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=1800,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    assert "C++ consumer OK:" in result.stdout
    # The example printed a table whose rows end in test ids, and a count line.
    assert "failing tests" in result.stdout or "failing test\n" in result.stdout
