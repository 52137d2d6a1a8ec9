// trunk_api._core: the private extension module behind the trunk_api facade.
#include <pybind11/pybind11.h>

#include "bind_webhooks.hpp"
#include "bindings.hpp"
#include "convert_time.hpp"
#include "interrupt.hpp"
#include "trunk/version.hpp"

namespace py = pybind11;

PYBIND11_MODULE(_core, m) {
  m.doc() = "Private C++ core of trunk_api; use the trunk_api package instead.";
  m.attr("__version__") = trunk::kVersion;
  trunk::python::init_datetime_api();
  trunk::python::remember_main_thread();
  trunk::python::bind_facade_hooks(m);
  trunk::python::bind_errors(m);
  trunk::python::bind_models(m);
  trunk::python::bind_metrics(m);
  trunk::python::bind_client(m);
  trunk::python::bind_bulk(m);
  trunk::python::bind_async(m);
  trunk::python::bind_pager(m);
  trunk::python::bind_columns(m);
  trunk::python::bind_arrow(m);
  trunk::python::bind_sandbox(m);
  trunk::python::bind_schema(m);
  trunk::python::bind_openapi(m);
  trunk::python::bind_webhooks(m);
}
