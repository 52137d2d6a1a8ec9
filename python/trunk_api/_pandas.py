"""Builds the DataFrame of TestIterator.to_pandas() from the columns the C++ core prepared
(``trunk_api._core.tables.test_columns``): one numpy array or list per column, never one dict per test."""

from __future__ import annotations

import importlib
import sys
from typing import Any

__all__ = ["frame_from_columns", "require_libraries"]

#: The optional dependencies of to_pandas(), in the order they are imported (pandas needs numpy).
_LIBRARIES = ("numpy", "pandas")


def require_libraries() -> tuple[Any, Any]:
    """numpy and pandas, imported. When one cannot be imported, a ModuleNotFoundError that names it and says how
    to install both into this interpreter (a bare "No module named 'numpy'" says neither)."""
    found: list[Any] = []
    for name in _LIBRARIES:
        try:
            # Imported by name: pandas ships no type information, and this module must type-check without stubs.
            found.append(importlib.import_module(name))
        except ImportError:
            # In dependency order: without numpy, pandas cannot be imported either, whether installed or not.
            raise ModuleNotFoundError(
                f"to_pandas() needs numpy and pandas, and this Python ({sys.executable}) cannot import {name}: "
                f"pip install 'trunk-api[pandas]', or {sys.executable} -m pip install pandas",
                name=name,
            ) from None
    return found[0], found[1]


def frame_from_columns(columns: dict[str, tuple[str, Any, Any]]) -> Any:  # pandas.DataFrame
    """Column kinds: str -> string, float -> float64 (NaN when absent), int -> Int64, bool -> boolean,
    time -> datetime64[us, UTC] (NaT when absent), object -> lists / dicts as Python objects."""
    np, pd = require_libraries()

    data: dict[str, Any] = {}
    for name, (kind, values, mask) in columns.items():
        if kind == "str":
            data[name] = pd.array(values, dtype=pd.StringDtype())
        elif kind == "float":
            data[name] = pd.Series(values, dtype="float64")
        elif kind == "int":
            data[name] = pd.arrays.IntegerArray(values, mask)
        elif kind == "bool":
            data[name] = pd.arrays.BooleanArray(values, mask)
        elif kind == "time":
            micros = values.copy()
            micros[mask] = np.iinfo(np.int64).min  # NaT
            data[name] = pd.Series(micros.view("datetime64[us]")).dt.tz_localize("UTC")
        elif kind == "object":
            series = pd.Series(values, dtype=object)
            data[name] = series
        else:  # pragma: no cover - the C++ side only produces the kinds above
            raise ValueError(f"unknown column kind {kind!r} for {name!r}")
    return pd.DataFrame(data)
