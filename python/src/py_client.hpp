#pragma once
// The Python-facing client: a trunk::Client shared (std::shared_ptr) between the Python object and the
// iterators it hands out, so an iterator keeps its Client alive. Requests are built from Python arguments by
// ArgCollector (every conversion problem is a ValidationError naming the field) before the GIL is released.

#include <pybind11/pybind11.h>

#include <memory>
#include <cstddef>
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

/// The keywords every listing takes besides its request's fields, sync and async alike.
struct ListingKeywords {
  std::optional<std::size_t> max_results;           ///< None: no limit
  pybind11::object on_page = pybind11::none();       ///< the facade's progress reporter (progress_hook)
};
/// Takes max_results (None, or an int >= 0: a ValidationError naming "max_results" otherwise) and on_page off
/// `kwargs`, leaving the request's fields.
ListingKeywords take_listing_keywords(pybind11::dict& kwargs);

}  // namespace trunk::python
