"""The C++ core's declarations (``_core.declarations.schema()``), built once per process and shared.

The schema is a pure function of the compiled module, but building it as Python objects costs about 2 ms, and the
facade reads it while it derives each operation's signature, options and columns: read afresh every time, it was
well over half of ``import trunk_api`` and of every command-line call. Callers read it and never change it.
"""

from __future__ import annotations

import functools
from typing import Any

from trunk_api._core import declarations


@functools.cache
def schema() -> dict[str, Any]:
    """The core's schema (enums, models, operations), built on first use; shared, so never mutated."""
    return declarations.schema()


def model_entry(name: str) -> dict[str, Any] | None:
    """The schema's entry of one model, or None when ``name`` is not a model."""
    return _models_by_name().get(name)


@functools.cache
def _models_by_name() -> dict[str, dict[str, Any]]:
    return {entry["name"]: entry for entry in schema()["models"]}
