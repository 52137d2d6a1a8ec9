// Arrow batches (arrow_batch.hpp) as Python objects: _core.ArrowBatch speaks the Arrow PyCapsule interface
// (__arrow_c_array__), which pyarrow, Polars and DuckDB import without a copy; the iterators' to_arrow(),
// to_polars() and to_pandas(dtype_backend="pyarrow") hand one to trunk_api/_arrow.py, which picks the library.
#include "bind_arrow.hpp"

#include <pybind11/stl.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "facade_hooks.hpp"
#include "listing_items.hpp"

namespace py = pybind11;

namespace trunk::python {

namespace {

// The capsule destructors the PyCapsule interface prescribes: release what the consumer did not take (a
// consumer that imports marks the struct released), then free the struct itself.
void delete_schema_capsule(PyObject* capsule) {
  auto* schema = static_cast<ArrowSchema*>(PyCapsule_GetPointer(capsule, "arrow_schema"));
  if (schema == nullptr) {
    PyErr_Clear();
    return;
  }
  if (schema->release != nullptr) schema->release(schema);
  delete schema;
}

void delete_array_capsule(PyObject* capsule) {
  auto* array = static_cast<ArrowArray*>(PyCapsule_GetPointer(capsule, "arrow_array"));
  if (array == nullptr) {
    PyErr_Clear();
    return;
  }
  if (array->release != nullptr) array->release(array);
  delete array;
}

py::capsule schema_capsule(ArrowSchema schema) {
  auto owned = std::make_unique<ArrowSchema>(schema);
  PyObject* capsule = PyCapsule_New(owned.get(), "arrow_schema", delete_schema_capsule);
  if (capsule == nullptr) {
    if (schema.release != nullptr) schema.release(owned.get());
    throw py::error_already_set();
  }
  owned.release();
  return py::reinterpret_steal<py::capsule>(capsule);
}

py::capsule array_capsule(ArrowArray array) {
  auto owned = std::make_unique<ArrowArray>(array);
  PyObject* capsule = PyCapsule_New(owned.get(), "arrow_array", delete_array_capsule);
  if (capsule == nullptr) {
    if (array.release != nullptr) array.release(owned.get());
    throw py::error_already_set();
  }
  owned.release();
  return py::reinterpret_steal<py::capsule>(capsule);
}

/// The batch as a _core.ArrowBatch, handed to trunk_api/_arrow.py for the form asked for.
py::object batch_in_form(ArrowRecordBatch batch, ArrowForm form) {
  auto shared = std::make_shared<ArrowRecordBatch>(std::move(batch));
  return convert_arrow(arrow_form_name(form), py::cast(std::move(shared)));
}

}  // namespace

std::optional<ArrowForm> pandas_arrow_form(const py::handle& dtype_backend) {
  if (dtype_backend.is_none()) return std::nullopt;
  if (py::isinstance<py::str>(dtype_backend) && dtype_backend.cast<std::string>() == "pyarrow") {
    return ArrowForm::pandas;
  }
  throw py::value_error("to_pandas(dtype_backend=" + py::repr(dtype_backend).cast<std::string>() +
                        "): must be None (numpy-backed columns, the default) or \"pyarrow\" (Arrow-backed columns)");
}

const char* arrow_form_name(ArrowForm form) {
  switch (form) {
    case ArrowForm::polars:
      return "polars";
    case ArrowForm::pandas:
      return "pandas";
    case ArrowForm::batch:
      return "batch";
    case ArrowForm::table:
      break;
  }
  return "table";
}

ArrowForm arrow_form_named(const std::string& name) {
  for (ArrowForm form : {ArrowForm::table, ArrowForm::polars, ArrowForm::pandas, ArrowForm::batch}) {
    if (name == arrow_form_name(form)) return form;
  }
  throw py::value_error("form=" + name + ": must be \"table\", \"polars\", \"pandas\" or \"batch\"");
}

template <typename Item>
py::object arrow_result(ArrowBatchBuilder<Item> builder, ArrowForm form) {
  ArrowRecordBatch batch;
  {
    py::gil_scoped_release release;  // plain C++ from here: another Python thread may run meanwhile
    batch = builder.finish();
  }
  return batch_in_form(std::move(batch), form);
}

template <typename Item>
py::object arrow_result(std::vector<Item> items, ArrowForm form) {
  ArrowBatchBuilder<Item> builder;
  {
    py::gil_scoped_release release;
    builder.append(items);
    std::vector<Item>().swap(items);  // the items' memory back before the library makes its objects
  }
  return arrow_result(std::move(builder), form);
}

template py::object arrow_result(std::vector<TestCase>, ArrowForm);
template py::object arrow_result(std::vector<QuarantinedTest>, ArrowForm);
template py::object arrow_result(std::vector<PullRequest>, ArrowForm);
template py::object arrow_result(ArrowBatchBuilder<TestCase>, ArrowForm);
template py::object arrow_result(ArrowBatchBuilder<QuarantinedTest>, ArrowForm);
template py::object arrow_result(ArrowBatchBuilder<PullRequest>, ArrowForm);

void bind_arrow(py::module_& m) {
  py::class_<ArrowRecordBatch, std::shared_ptr<ArrowRecordBatch>>(
      m, "ArrowBatch",
      "A listing's items as one Arrow record batch built in C++, exported once through the Arrow PyCapsule "
      "interface (pyarrow.record_batch(batch), polars.DataFrame(batch), DuckDB).")
      .def_property_readonly("num_rows", &ArrowRecordBatch::rows, "Rows of the batch; 0 once exported.")
      .def("__arrow_c_array__", [](ArrowRecordBatch& self, const py::object& requested_schema) {
        // A requested schema is a wish the interface lets a producer decline: the columns have one type each.
        static_cast<void>(requested_schema);
        if (!self.whole()) throw py::value_error("this ArrowBatch was already exported (its buffers moved out)");
        py::capsule schema = schema_capsule(self.take_schema());
        py::capsule array = array_capsule(self.take_array());
        return py::make_tuple(schema, array);
      }, py::arg("requested_schema") = py::none(),
         "(schema capsule, array capsule) of the Arrow PyCapsule interface; the buffers move to the consumer.")
      .def("__repr__", [](const ArrowRecordBatch& self) {
        return self.whole() ? "<ArrowBatch " + std::to_string(self.rows()) + " rows>"
                            : std::string("<ArrowBatch exported>");
      });

  m.def("pandas_arrow_form", [](const py::handle& dtype_backend) -> std::optional<std::string> {
    const std::optional<ArrowForm> form = pandas_arrow_form(dtype_backend);
    if (!form) return std::nullopt;
    return std::string(arrow_form_name(*form));
  }, py::arg("dtype_backend"),
     "to_pandas(dtype_backend=...) checked as the sync iterators check it: None for the numpy-backed frame, "
     "\"pandas\" (listing_arrow's form) for \"pyarrow\"; ValueError otherwise.");
  m.def("listing_arrow", [](py::handle item_type, const py::list& items, const std::string& form) -> py::object {
    const ArrowForm wanted = arrow_form_named(form);
    require_arrow_libraries(arrow_form_name(wanted));
    std::optional<py::object> result;
    for_each_listing_item([&]<typename Item>(std::type_identity<Item>) {
      if (result || !item_type.is(py::type::of<Item>())) return;
      std::vector<Item> copied;  // the Python objects' C++ values (the async listings hold Python objects)
      copied.reserve(items.size());
      for (py::handle item : items) copied.push_back(item.cast<const Item&>());
      result = arrow_result(std::move(copied), wanted);
    });
    if (!result) throw py::type_error("listing_arrow: not a listing item type");
    return *result;
  }, py::arg("item_type"), py::arg("items"), py::arg("form") = "table",
     "Listing items of `item_type` as a pyarrow.Table (form \"table\"), a polars.DataFrame (\"polars\") or an "
     "Arrow-backed pandas.DataFrame (\"pandas\"), as the sync iterators' to_arrow() and friends make them, or "
     "as the _core.ArrowBatch itself (\"batch\").");
}

}  // namespace trunk::python
