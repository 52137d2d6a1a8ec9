// trunk_api._core: the private extension module behind the trunk_api facade, one submodule per concept (each
// with its own stub in trunk_api/_core/, written by scripts/generate-stubs from what is bound here).
#include <pybind11/pybind11.h>

#include "bind_webhooks.hpp"
#include "bindings.hpp"
#include "convert_time.hpp"
#include "interrupt.hpp"
#include "trunk/version.hpp"

namespace py = pybind11;

namespace {

/// A submodule of _core, also entered in sys.modules under its full name: an extension module is not a package,
/// so without that entry neither `import trunk_api._core.models` nor pickle (which finds a class by its
/// __module__) could reach the classes bound in it.
py::module_ submodule(py::module_& core, const char* name, const char* doc) {
  py::module_ sub = core.def_submodule(name, doc);
  py::module_::import("sys").attr("modules")[sub.attr("__name__")] = sub;
  return sub;
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "Private C++ core of trunk_api; use the trunk_api package instead.";
  m.attr("__version__") = trunk::kVersion;
  trunk::python::init_datetime_api();
  trunk::python::remember_main_thread();
  trunk::python::bind_facade_hooks(m);
  trunk::python::bind_errors(m);

  // Which submodule each name belongs to is said here only; the stubs and the facade follow what is bound.
  py::module_ models = submodule(m, "models", "The declared answer models, Repo and the enumerations.");
  trunk::python::bind_models(models);
  trunk::python::bind_metrics(models);

  py::module_ client = submodule(m, "client", "The engines behind trunk_api.Client and AsyncClient.");
  trunk::python::bind_client(client);
  trunk::python::bind_bulk(client);
  trunk::python::bind_async(client);

  py::module_ pager = submodule(m, "pager", "The lazy iterators of the listings and their page views.");
  trunk::python::bind_pager(pager);

  py::module_ tables = submodule(m, "tables", "Listings as flat columns and Arrow record batches (DataFrames, CSV).");
  trunk::python::bind_columns(tables);
  trunk::python::bind_arrow(tables);

  py::module_ sandbox = submodule(m, "sandbox", "The engine behind trunk_api.Sandbox.");
  trunk::python::bind_queue_controls(sandbox);
  trunk::python::bind_sandbox(sandbox);

  py::module_ twin = submodule(m, "twin", "The statistics and the calibration of a merge queue's twin.");
  trunk::python::bind_twin(twin);

  py::module_ webhooks = submodule(m, "webhooks", "The webhook events' classes, secrets, verification and parsing.");
  trunk::python::bind_webhook_models(webhooks);
  trunk::python::bind_webhooks(webhooks);

  py::module_ declarations = submodule(m, "declarations",
                                       "The API's and the options' declarations as data, and the OpenAPI document.");
  trunk::python::bind_schema(declarations);
  trunk::python::bind_openapi(declarations);
}
