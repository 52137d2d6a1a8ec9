// _core.Client.get_test_details_many: the C++ bulk call (trunk/bulk.hpp) with the GIL released for all of it.
// Returns (results, errors): results[i] is the TestCase of test_ids[i] or None, errors maps the index of every
// failed id to its trunk_api exception. The facade (trunk_api/client.py) turns a non-empty `errors` into
// BulkError, so the policy lives in one visible place.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "bulk_conversion.hpp"
#include "option_keywords.hpp"
#include "convert_args.hpp"
#include "interrupt.hpp"
#include "py_client.hpp"
#include "trunk/bulk.hpp"
#include "trunk/client.hpp"

namespace py = pybind11;

namespace trunk::python {

/// The Python exception the registered translators (bind_errors.cpp) make of `error`: a C++ function that
/// rethrows it is called through Python, so exactly the same mapping applies as for a single call.
py::object python_exception(const std::exception_ptr& error) {
  const py::cpp_function rethrow([error] { std::rethrow_exception(error); });
  try {
    rethrow();
  } catch (py::error_already_set& raised) {
    return raised.value();
  }
  return py::none();  // unreachable: rethrow() always raises
}

namespace {

/// test_ids as a list of strings: any iterable of str except a lone str or bytes (which would be split into
/// characters). Problems are collected in `args`.
std::vector<std::string> convert_test_ids(ArgCollector& args, py::handle test_ids) {
  if (PyUnicode_Check(test_ids.ptr()) || PyBytes_Check(test_ids.ptr()) || !py::isinstance<py::iterable>(test_ids)) {
    return args.text_list(test_ids, "test_ids");  // reports the type problem
  }
  if (PyList_Check(test_ids.ptr()) || PyTuple_Check(test_ids.ptr())) return args.text_list(test_ids, "test_ids");
  return args.text_list(py::list(py::reinterpret_borrow<py::object>(test_ids)), "test_ids");
}

}  // namespace

BulkArguments convert_bulk_arguments(py::handle repo_arg, py::handle org_arg, py::handle ids_arg,
                                     const py::kwargs& options) {
  ArgCollector args;
  BulkArguments converted;
  converted.repo = args.repo(repo_arg);
  converted.org_url_slug = args.text(org_arg, "org_url_slug");
  converted.test_ids = convert_test_ids(args, ids_arg);
  py::dict remaining(options);  // a copy: the rows' keywords are taken off it, what is left is unknown
  read_options(args, remaining, converted.options);  // BulkOptions' rows (bulk.hpp), each checked by its rule
  refuse_unknown_keywords(remaining, "get_test_details_many");
  args.throw_if_failed();
  return converted;
}

std::function<void(std::size_t, std::size_t)> bulk_progress(const py::object& on_progress, const py::object& loop) {
  if (on_progress.is_none()) return {};
  if (!loop.is_none()) {
    auto held = hold_with_gil(py::make_tuple(loop.attr("call_soon_threadsafe"), on_progress));
    return [held](std::size_t ended, std::size_t total) {
      if (interpreter_finalizing()) return;
      py::gil_scoped_acquire gil;
      const auto parts = py::reinterpret_borrow<py::tuple>(*held);
      try {
        parts[0](parts[1], ended, total);
      } catch (py::error_already_set& error) {
        error.discard_as_unraisable("trunk_api progress callback");  // the loop is closed: nobody is watching
      }
    };
  }
  auto held = hold_with_gil(on_progress);
  return [held](std::size_t ended, std::size_t total) {
    if (interpreter_finalizing()) return;
    py::gil_scoped_acquire gil;
    try {
      (*held)(ended, total);
    } catch (py::error_already_set& error) {
      keep_callback_error(error, "trunk_api progress callback");
    }
  };
}

py::tuple bulk_outcome(std::vector<BulkResult<TestDetails>>&& outcomes) {
  py::list results(outcomes.size());
  py::dict errors;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].value) {
      results[i] = py::cast(std::move(outcomes[i].value->test));
    } else {
      results[i] = py::none();
      errors[py::int_(i)] = python_exception(outcomes[i].error);
    }
  }
  return py::make_tuple(std::move(results), std::move(errors));
}

void bind_bulk(py::module_& m) {
  auto client = py::reinterpret_borrow<py::object>(m.attr("Client"));
  py::cpp_function method(
      [](PyClient& self, py::handle repo_arg, py::handle org_arg, py::handle ids_arg, const py::object& on_progress,
         const py::kwargs& options) {
        BulkArguments call = convert_bulk_arguments(repo_arg, org_arg, ids_arg, options);
        call.options.on_progress = bulk_progress(on_progress, py::none());
        std::vector<BulkResult<TestDetails>> outcomes = call_without_gil([&] {
          return self.client->get_test_details_many(call.repo, call.org_url_slug, call.test_ids, call.options);
        });
        return bulk_outcome(std::move(outcomes));
      },
      py::name("get_test_details_many"), py::is_method(client), py::sibling(py::getattr(client, "get_test_details_many", py::none())),
      py::arg("repo"), py::arg("org_url_slug"), py::arg("test_ids"), py::kw_only(), py::arg("on_progress") = py::none(),
      "(results, errors) for many test ids fetched concurrently, on_progress(ended, total) called as each ends; the "
      "options of BulkOptions (option_rows('bulk')) as keywords; see trunk_api.Client.get_test_details_many.");
  client.attr("get_test_details_many") = method;
}

}  // namespace trunk::python
