"""Builds the DataFrame of TestIterator.to_pandas() from the columns the C++ core prepared
(``trunk_api._core.test_columns``): one numpy array or list per column, never one dict per test."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["frame_from_columns"]


def frame_from_columns(columns: dict[str, tuple[str, Any, Any]]) -> Any:  # pandas.DataFrame
    """Column kinds: str -> string, float -> float64 (NaN when absent), int -> Int64, bool -> boolean,
    time -> datetime64[us, UTC] (NaT when absent), object -> lists / dicts as Python objects."""
    try:
        # Imported by name: pandas ships no type information, and this module must type-check without stubs.
        np: Any = importlib.import_module("numpy")
        pd: Any = importlib.import_module("pandas")
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError("to_pandas() needs pandas: pip install 'trunk-api[pandas]'") from error

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
