// _core.declarations.openapi_document(): the OpenAPI 3.1 document of the API (trunk/openapi.hpp) for `trunk-api openapi`.
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "trunk/openapi.hpp"

namespace trunk::python {

void bind_openapi(pybind11::module_& m) {
  m.def("openapi_document", &trunk::openapi_document,
        "The OpenAPI 3.1 document (JSON text, 2-space indented) of every operation, request, answer and "
        "enumeration this library implements, generated from its declarations.");
}

}  // namespace trunk::python
