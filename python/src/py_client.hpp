#pragma once
// The Python-facing client: a trunk::Client shared (std::shared_ptr) between the Python object and the
// iterators it hands out, so an iterator keeps its Client alive. Requests are built from Python arguments by
// ArgCollector (every conversion problem is a ValidationError naming the field) before the GIL is released.

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string_view>

#include "trunk/client.hpp"
#include "trunk/client_options.hpp"
#include "trunk/requests.hpp"

namespace trunk::python {

struct PyClient {
  std::shared_ptr<Client> client;
};

/// The options of a Client from the keywords of _core.Client (option_rows.hpp; every problem a ValidationError,
/// an unknown keyword a TypeError naming `callable`); the token, if given, is copied last into options.token
/// (a trunk::Secret, which wipes itself). `kwargs` is consumed.
ClientOptions build_options(pybind11::dict kwargs, std::string_view callable);

/// The defaults of the Client options as Python keywords (seconds).
pybind11::dict client_defaults();

/// None = no limit; else an int >= 0 (ValidationError naming "max_results" otherwise).
std::optional<std::int64_t> convert_max_results(pybind11::handle max_results);

}  // namespace trunk::python
