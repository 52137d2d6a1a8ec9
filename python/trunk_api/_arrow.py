"""Hands the Arrow record batches the C++ core builds (``trunk_api._core.tables.ArrowBatch``, filled column by column
in C++ and exported through the Arrow PyCapsule interface) to the library the caller asked for:
``to_arrow()`` -> ``pyarrow.Table``, ``to_polars()`` -> ``polars.DataFrame``, ``to_pandas(dtype_backend=
"pyarrow")`` -> a pandas DataFrame of ``ArrowDtype`` columns. No Python object is made per cell on the way."""

from __future__ import annotations

import importlib
import sys
from typing import Any

__all__ = ["convert", "require"]

#: The libraries each form needs, in import order, and the extra of trunk-api that installs them.
_NEEDS = {
    "table": (("pyarrow",), "arrow", "to_arrow()"),
    "polars": (("polars",), "polars", "to_polars()"),
    "pandas": (("pyarrow", "pandas"), "arrow,pandas", 'to_pandas(dtype_backend="pyarrow")'),
    "batch": ((), "", "an ArrowBatch"),
}


def require(form: str) -> list[Any]:
    """The modules ``form`` needs, imported. When one cannot be imported, a ModuleNotFoundError that names the
    method, the module and how to install it into this interpreter; raised before the listing is consumed."""
    names, extra, method = _NEEDS[form]
    found: list[Any] = []
    for name in names:
        try:
            # Imported by name: these libraries are optional, and this module must type-check without them.
            found.append(importlib.import_module(name))
        except ImportError:
            raise ModuleNotFoundError(
                f"{method} needs {' and '.join(names)}, and this Python ({sys.executable}) cannot import {name}: "
                f"pip install 'trunk-api[{extra}]', or {sys.executable} -m pip install {' '.join(names)}",
                name=name,
            ) from None
    return found


def convert(form: str, batch: Any) -> Any:
    """The batch (a ``_core.tables.ArrowBatch``, exported once) in ``form``: "table", "polars", "pandas", or "batch"
    (the ArrowBatch itself, for any consumer of the Arrow PyCapsule interface)."""
    if form == "batch":
        return batch
    if form == "polars":
        (pl,) = require(form)
        # Polars reads the PyCapsule interface itself: no pyarrow needed for to_polars().
        return pl.DataFrame(batch)
    pa = require("table")[0]
    table = pa.Table.from_batches([pa.record_batch(batch)])
    if form == "table":
        return table
    pd = require(form)[1]
    return table.to_pandas(types_mapper=pd.ArrowDtype)
