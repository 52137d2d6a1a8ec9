#pragma once
// The Python-facing client: a trunk::Client shared (std::shared_ptr) between the Python object and the
// iterators it hands out, so an iterator keeps its Client alive. Requests are built from Python arguments by
// ArgCollector (every conversion problem is a ValidationError naming the field) before the GIL is released.

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>

#include "trunk/client.hpp"
#include "trunk/requests.hpp"

namespace trunk::python {

struct PyClient {
  std::shared_ptr<Client> client;
};

/// None = no limit; else an int >= 0 (ValidationError naming "max_results" otherwise).
std::optional<std::int64_t> convert_max_results(pybind11::handle max_results);

}  // namespace trunk::python
