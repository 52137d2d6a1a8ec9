#pragma once
// What the listing iterators (bind_pager.cpp) and _core.listing_arrow share to turn items into Arrow-based
// results: which result was asked for, and the conversion (C++ builds the batch, trunk_api/_arrow.py hands it to
// the library asked for).

#include <pybind11/pybind11.h>

#include <optional>
#include <string>
#include <vector>

#include "arrow_batch.hpp"

namespace trunk::python {

/// What an Arrow-based method returns: a pyarrow.Table (to_arrow), a polars.DataFrame (to_polars), a pandas
/// DataFrame of Arrow-backed columns (to_pandas(dtype_backend="pyarrow")), or the _core.ArrowBatch itself for
/// any other consumer of the Arrow PyCapsule interface.
enum class ArrowForm { table, polars, pandas, batch };

/// to_pandas(dtype_backend=...): nullopt for None (the numpy-backed frame of before), ArrowForm::pandas for
/// "pyarrow"; ValueError naming the value and the choices otherwise.
std::optional<ArrowForm> pandas_arrow_form(const pybind11::handle& dtype_backend);
/// "table", "polars", "pandas" or "batch": the form's name for trunk_api/_arrow.py.
const char* arrow_form_name(ArrowForm form);
/// The form of that name; ValueError otherwise.
ArrowForm arrow_form_named(const std::string& name);

/// The items in that form; builds the batch with the GIL released. Defined for every listing's item type.
template <typename Item>
pybind11::object arrow_result(std::vector<Item> items, ArrowForm form);

/// What a builder holds, in that form (finish() runs with the GIL released).
template <typename Item>
pybind11::object arrow_result(ArrowBatchBuilder<Item> builder, ArrowForm form);

}  // namespace trunk::python
