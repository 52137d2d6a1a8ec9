#pragma once
// What the sync and the async get_test_details_many share in Python: their arguments converted (problems
// collected into one ValidationError; the bulk rules themselves are checked by the C++ client) and their
// outcome as (results, errors), which the facade turns into a list or a BulkError.

#include <pybind11/pybind11.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "trunk/bulk.hpp"
#include "trunk/repo.hpp"
#include "trunk/responses.hpp"

namespace trunk::python {

struct BulkArguments {
  Repo repo;
  std::string org_url_slug;
  std::vector<std::string> test_ids;
  BulkOptions options;
};

/// Converts the Python arguments (GIL held), the BulkOptions from their keywords (`options`). Throws
/// ValidationError naming every argument of a wrong type and every option out of its row's rule; TypeError for an
/// unknown keyword.
BulkArguments convert_bulk_arguments(pybind11::handle repo, pybind11::handle org_url_slug, pybind11::handle test_ids,
                                     const pybind11::kwargs& options);

/// BulkOptions::on_progress calling `on_progress(ended, total)` (the facade's progress bar); nothing when it is
/// None. Sync (`loop` None): called on the calling thread, taking the GIL. Async: posted to `loop` with
/// call_soon_threadsafe from the engine thread, so it runs on the loop's thread, before the call's result.
std::function<void(std::size_t, std::size_t)> bulk_progress(const pybind11::object& on_progress,
                                                            const pybind11::object& loop);

/// (results, errors): results[i] is the TestCase of id i or None; errors maps the index of every failed id to
/// its trunk_api exception (GIL held).
pybind11::tuple bulk_outcome(std::vector<BulkResult<TestDetails>>&& outcomes);

}  // namespace trunk::python
