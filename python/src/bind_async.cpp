// _core.AsyncClient: every operation of operations.hpp as a call that returns an asyncio.Future at once. The
// public facade (trunk_api/async_client.py) wraps each in a coroutine.
//
// How an answer reaches the event loop: the request is converted and validated here, on the loop's thread
// (errors raised synchronously, as by the sync client), then queued for the C++ engine thread
// (trunk::AsyncClient). That thread runs the libcurl multi loop, and when a call ends it decodes the answer
// into the C++ model without the GIL, then takes the GIL once to make the Python object and hand it to the loop
// with loop.call_soon_threadsafe. The event loop itself only sets the future's result.
//
// Cancelling the future (task.cancel()) cancels the transfer in flight (trunk::AsyncCall::cancel): the engine
// removes it from the multi handle at once; the client stays usable.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "bindings.hpp"
#include "build_request.hpp"
#include "bulk_conversion.hpp"
#include "interrupt.hpp"
#include "py_client.hpp"
#include "trunk/async_client.hpp"
#include "trunk/error.hpp"
#include "trunk/validation.hpp"

namespace py = pybind11;

namespace trunk::python {

namespace {

struct PyAsyncClient {
  std::shared_ptr<AsyncClient> client;

  PyAsyncClient(std::shared_ptr<AsyncClient> made) : client(std::move(made)) {}
  PyAsyncClient(PyAsyncClient&&) = default;
  PyAsyncClient& operator=(PyAsyncClient&&) = default;
  /// The engine thread may be waiting for the GIL to deliver an answer: it is released while the engine stops.
  ~PyAsyncClient() {
    if (!client) return;
    if (interpreter_finalizing() || !PyGILState_Check()) {
      client.reset();
      return;
    }
    py::gil_scoped_release release;
    client.reset();
  }

  void close() {
    if (!client) return;
    py::gil_scoped_release release;
    client->close();
  }
};

/// Runs on the event loop (call_soon_threadsafe): the future may have been cancelled meanwhile.
void complete(const py::object& future, const py::object& value, const py::object& error, bool cancelled) {
  if (future.attr("done")().cast<bool>()) return;
  if (cancelled) {
    future.attr("cancel")();
  } else if (!error.is_none()) {
    future.attr("set_exception")(error);
  } else {
    future.attr("set_result")(value);
  }
}

bool is_cancellation(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const CancelledError&) {
    return true;
  } catch (...) {
    return false;
  }
}

/// The engine-thread callback of one call: it turns the Result into a Python value with `to_python` (or into the
/// trunk_api exception) and hands it to the asyncio future through loop.call_soon_threadsafe. Called without
/// the GIL; takes it once.
template <typename T, typename ToPython>
std::function<void(Result<T>)> completion_for(const py::object& future, const py::object& loop,
                                              const py::object& complete_function, ToPython to_python) {
  // One held tuple (future, loop, complete): the GIL is taken once to drop it, on whichever thread.
  auto held = hold_with_gil(py::make_tuple(future, loop, complete_function));
  return [held, to_python](Result<T> result) mutable {
    if (interpreter_finalizing()) return;
    const bool cancelled = !result.ok() && is_cancellation(result.error());
    py::gil_scoped_acquire gil;
    const py::tuple parts = py::reinterpret_borrow<py::tuple>(*held);
    py::object value = py::none();
    py::object error = py::none();
    try {
      if (result.ok()) {
        value = to_python(std::move(result).value());
      } else if (!cancelled) {
        error = python_exception(result.error());
      }
    } catch (py::error_already_set& raised) {
      error = raised.value();
    } catch (...) {
      error = python_exception(std::current_exception());
    }
    try {
      parts[1].attr("call_soon_threadsafe")(parts[2], parts[0], value, error, cancelled);
    } catch (py::error_already_set&) {
      // The loop is closed: nobody waits for this answer any more.
    }
    held.reset();  // dropped now, while the GIL is held, rather than in a second GIL hop later
  };
}

/// task.cancel() (the future cancelled) cancels the call in flight.
void cancel_with_future(const py::object& future, AsyncCall call) {
  future.attr("add_done_callback")(py::cpp_function([call = std::move(call)](const py::object& finished) {
    if (finished.attr("cancelled")().template cast<bool>()) call.cancel();
  }));
}

/// Binds operation Op as _core.AsyncClient.<name>(loop, *args, **kwargs) -> asyncio.Future.
template <typename Op>
void bind_async_operation(py::class_<PyAsyncClient>& cls, const py::object& complete_function) {
  using Request = typename Op::Request;
  using Response = typename Op::Response;
  const std::string name(Op::name);
  cls.def(
      name.c_str(),
      [complete_function](PyAsyncClient& self, const py::object& loop, const py::args& args, const py::kwargs& kwargs) {
        if (!self.client) throw Error(std::string(Op::name) + ": the AsyncClient is closed");
        const Request request = build_request<Request>(Op::name, args, kwargs);
        py::object future = loop.attr("create_future")();
        auto done = completion_for<Response>(future, loop, complete_function,
                                             [](Response&& answer) { return py::cast(std::move(answer)); });
        cancel_with_future(future, self.client->template call<Op>(request, std::move(done)));
        return future;
      },
      std::string(Op::doc).c_str());
}

/// _core.AsyncClient.get_test_details_many(loop, repo, org_url_slug, test_ids, *, concurrency=8) -> a future of
/// (results, errors), as the sync binding returns them (bind_bulk.cpp).
void bind_async_bulk(py::class_<PyAsyncClient>& cls, const py::object& complete_function) {
  cls.def(
      "get_test_details_many",
      [complete_function](PyAsyncClient& self, const py::object& loop, py::handle repo, py::handle org_url_slug,
                          py::handle test_ids, py::handle concurrency, const py::object& on_progress) {
        if (!self.client) throw Error("get_test_details_many: the AsyncClient is closed");
        BulkArguments call = convert_bulk_arguments(repo, org_url_slug, test_ids, concurrency);
        call.options.on_progress = bulk_progress(on_progress, loop);
        py::object future = loop.attr("create_future")();
        auto done = completion_for<AsyncClient::BulkDetails>(
            future, loop, complete_function,
            [](AsyncClient::BulkDetails&& outcomes) -> py::object { return bulk_outcome(std::move(outcomes)); });
        cancel_with_future(future, self.client->get_test_details_many(call.repo, call.org_url_slug, call.test_ids,
                                                                      call.options, std::move(done)));
        return future;
      },
      py::arg("loop"), py::arg("repo"), py::arg("org_url_slug"), py::arg("test_ids"), py::kw_only(),
      py::arg("concurrency") = 8, py::arg("on_progress") = py::none(),
      "A future of (results, errors) for many test ids, on_progress(ended, total) called on the loop as each ends; "
      "see trunk_api.AsyncClient.get_test_details_many.");
}

}  // namespace

void bind_async(py::module_& m) {
  const py::dict defaults = client_defaults();
  py::class_<PyAsyncClient> cls(m, "AsyncClient", "Private: use trunk_api.AsyncClient.");
  cls.def(py::init([](const py::object& token, const py::object& base_url, py::handle timeout,
                      py::handle max_retries, const py::object& user_agent, py::handle connect_timeout,
                      py::handle overall_deadline, py::handle verify_tls, const py::object& ca_bundle,
                      py::handle allow_insecure_http, py::handle max_requests_per_second, const py::object& log,
                      py::handle max_in_flight) {
            ArgCollector args;
            const std::int64_t width = args.integer(max_in_flight, "max_in_flight");
            args.throw_if_failed();
            if (width < 1 || width > 4096) {
              throw ValidationError({Violation{"max_in_flight", std::to_string(width), "must be between 1 and 4096"}});
            }
            ClientOptions options = build_options(token, base_url, timeout, max_retries, user_agent, connect_timeout,
                                                  overall_deadline, verify_tls, ca_bundle, allow_insecure_http,
                                                  max_requests_per_second, log, py::bool_(false));
            options.interrupt_check = nullptr;  // asyncio cancels by task.cancel(), not by polling
            return PyAsyncClient(std::make_shared<AsyncClient>(std::move(options), static_cast<std::size_t>(width)));
          }),
          py::kw_only(), py::arg("token") = py::none(), py::arg("base_url") = py::none(),
          py::arg("timeout") = defaults["timeout"], py::arg("max_retries") = defaults["max_retries"],
          py::arg("user_agent") = py::none(), py::arg("connect_timeout") = defaults["connect_timeout"],
          py::arg("overall_deadline") = defaults["overall_deadline"], py::arg("verify_tls") = defaults["verify_tls"],
          py::arg("ca_bundle") = py::none(), py::arg("allow_insecure_http") = defaults["allow_insecure_http"],
          py::arg("max_requests_per_second") = defaults["max_requests_per_second"], py::arg("log") = py::none(),
          py::arg("max_in_flight") = 64)
      .def_property_readonly("base_url", [](const PyAsyncClient& self) -> std::string {
        if (!self.client) return "";
        return self.client->base_url();
      })
      .def("close", &PyAsyncClient::close,
           "Ends the pending calls (their futures are cancelled) and stops the engine thread; later calls start "
           "it again.");
  const py::object complete_function = py::cpp_function(&complete);
#define TRUNK_BIND_ASYNC_OPERATION_(Type, ...) bind_async_operation<op::Type>(cls, complete_function);
  TRUNK_OPERATIONS(TRUNK_BIND_ASYNC_OPERATION_)
#undef TRUNK_BIND_ASYNC_OPERATION_
  bind_async_bulk(cls, complete_function);
  // An async listing checks its arguments when it is made, as the sync iterators do, though its first request
  // waits for the first `async for`.
  cls.def_static(
      "validate",
      [](const std::string& operation, const py::args& args, const py::kwargs& kwargs) {
        bool known = false;
#define TRUNK_VALIDATE_ASYNC_OPERATION_(Type, ...)                                                    \
  if (operation == op::Type::name) {                                                                  \
    known = true;                                                                                     \
    validate(build_request<op::Type::Request>(op::Type::name, args, kwargs));                         \
  }
        TRUNK_OPERATIONS(TRUNK_VALIDATE_ASYNC_OPERATION_)
#undef TRUNK_VALIDATE_ASYNC_OPERATION_
        if (!known) throw py::value_error("no operation named " + operation);
      },
      py::arg("operation"),
      "Converts and validates the arguments of `operation` as its call would (ValidationError, TypeError), sending "
      "nothing.");
}

}  // namespace trunk::python
