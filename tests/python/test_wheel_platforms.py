"""pyproject.toml's [tool.cibuildwheel] gives, on each platform's runners, the wheels docs/install.md#platforms
says it does: every CPython version of `build`, on x86_64 and aarch64 Linux (manylinux and musllinux), Intel and
Apple silicon macOS, and 64-bit Windows. cibuildwheel answers this without building (--print-build-identifiers)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="cibuildwheel runs on Python 3.11 and newer")


def _versions() -> list[str]:
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["cibuildwheel"]["build"]
    return [re.fullmatch(r"(cp3\d+)-\*", pattern).group(1) for pattern in build]  # type: ignore[union-attr]


def _identifiers(platform: str) -> set[str]:
    cibuildwheel = shutil.which("cibuildwheel", path=str(Path(sys.executable).parent)) or shutil.which("cibuildwheel")
    assert cibuildwheel, "cibuildwheel is in the test extra"
    done = subprocess.run([cibuildwheel, "--print-build-identifiers", "--platform", platform], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=True)
    return set(done.stdout.split())


@pytest.mark.parametrize(("platform", "tags"), [
    ("linux", ["manylinux_x86_64", "manylinux_aarch64", "musllinux_x86_64", "musllinux_aarch64"]),
    ("macos", ["macosx_x86_64", "macosx_arm64"]),
    ("windows", ["win_amd64"]),
])
def test_each_runner_builds_every_declared_version_for_its_architectures(platform: str, tags: list[str]) -> None:
    assert _versions() == ["cp310", "cp311", "cp312", "cp313"]
    assert _identifiers(platform) == {f"{version}-{tag}" for version in _versions() for tag in tags}


def test_the_install_docs_table_names_every_identifier() -> None:
    page = (ROOT / "docs" / "install.md").read_text()
    for platform in ("linux", "macos", "windows"):
        for identifier in _identifiers(platform):
            tag = identifier.split("-", 1)[1]
            assert f"`{tag}`" in page, tag
