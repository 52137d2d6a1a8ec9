"""mypy --strict accepts the package itself and a typed script written against its public API (stubs, py.typed,
annotations)."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

import trunk_api

HERE = Path(__file__).parent


def test_package_ships_type_information() -> None:
    package = Path(trunk_api.__file__).parent
    assert (package / "py.typed").exists()
    # The extension's stubs: a package with one stub per submodule of _core (scripts/generate-stubs).
    from trunk_api import _core

    submodules = [name for name, value in vars(_core).items() if isinstance(value, types.ModuleType)]
    assert submodules and (package / "_core" / "__init__.pyi").exists()
    for name in submodules:
        assert (package / "_core" / f"{name}.pyi").exists(), name


@pytest.mark.parametrize("target", [[str(HERE / "typed_example.py")], ["-p", "trunk_api"]], ids=["example", "package"])
def test_mypy_strict(tmp_path: Path, target: list[str]) -> None:
    # An installed package is found through site-packages (py.typed); a development tree through MYPYPATH
    # (mypy refuses site-packages in MYPYPATH).
    package_parent = str(Path(trunk_api.__file__).resolve().parent.parent)
    env = dict(os.environ)
    if "site-packages" not in package_parent and "dist-packages" not in package_parent:
        env["MYPYPATH"] = package_parent
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path),
         "--python-version", f"{sys.version_info.major}.{sys.version_info.minor}",
         *target],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_typed_example_runs() -> None:
    result = subprocess.run([sys.executable, str(HERE / "typed_example.py")], capture_output=True, text=True,
                            timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert "not-a-uuid" not in result.stderr
