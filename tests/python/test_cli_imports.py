"""The command line's modules depend one way: ``cli`` imports the command modules (``_cli_*``), never the
reverse, so that none of them needs a lazy import to dodge a circle. What both sides need lives in
``_cli_common``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "trunk_api"
COMMAND_MODULES = sorted(PACKAGE.glob("_cli_*.py"))


def imported_modules(source: str) -> set[str]:
    """Every module an import statement anywhere in `source` names (at the top or inside a function), with
    ``from trunk_api import cli`` counted as ``trunk_api.cli`` and relative imports made absolute."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: these modules sit directly in trunk_api
                base = f"trunk_api.{base}" if base else "trunk_api"
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def test_the_command_modules_are_found() -> None:
    assert {path.stem for path in COMMAND_MODULES} >= {"_cli_common", "_cli_sandbox", "_cli_webhooks"}


@pytest.mark.parametrize("path", COMMAND_MODULES, ids=lambda path: path.stem)
def test_no_command_module_imports_cli(path: Path) -> None:
    assert "trunk_api.cli" not in imported_modules(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("statement", ["import trunk_api.cli", "from trunk_api.cli import UsageError",
                                       "from trunk_api import cli", "from . import cli", "from .cli import main",
                                       "def f():\n    from trunk_api.cli import option_flag\n"])
def test_every_spelling_of_the_import_is_seen(statement: str) -> None:
    assert "trunk_api.cli" in imported_modules(statement)
