#pragma once
// One registration function per concept; module.cpp calls them in dependency order, each with the submodule of
// _core its names belong to (module.cpp is the one place that says which).

#include <pybind11/pybind11.h>

#include <exception>
#include <string>

namespace trunk::python {

/// The Python exception the registered translators (bind_errors.cpp) make of a C++ exception (GIL held).
pybind11::object python_exception(const std::exception_ptr& error);


void bind_facade_hooks(pybind11::module_& m);  // first: what the facade hands over at import
void bind_errors(pybind11::module_& m);
void bind_models(pybind11::module_& m);
void bind_metrics(pybind11::module_& m);  // after bind_models: methods of MergeQueueMetrics, Histogram
void bind_client(pybind11::module_& m);
/// Appends the rows of the client's options to `rows` for option_rows(of): "client" (ClientOptions) or "bulk"
/// (BulkOptions); false for another name.
bool describe_client_options(const std::string& of, pybind11::list& rows);
void bind_bulk(pybind11::module_& m);  // after bind_client: adds a method to Client
void bind_async(pybind11::module_& m);  // after bind_client: _core.client.AsyncClient
void bind_pager(pybind11::module_& m);
void bind_columns(pybind11::module_& m);
void bind_arrow(pybind11::module_& m);
void bind_sandbox(pybind11::module_& m);
void bind_twin(pybind11::module_& m);  // after bind_client: calibrate() takes a _core.client.Client
void bind_queue_controls(pybind11::module_& m);
/// Appends the rows of the sandbox's options to `rows` for option_rows(of): "sandbox" (SandboxOptions, its
/// faults' included) or "faults" (FaultOptions); false for another name.
bool describe_sandbox_options(const std::string& of, pybind11::list& rows);
void bind_schema(pybind11::module_& m);  // the declarations as data (stubs, CLI), option_rows
void bind_openapi(pybind11::module_& m);

}  // namespace trunk::python
