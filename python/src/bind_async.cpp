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

#include <algorithm>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <utility>

#include "bind_arrow.hpp"
#include "bindings.hpp"
#include "build_request.hpp"
#include "bulk_conversion.hpp"
#include "interrupt.hpp"
#include "listing_items.hpp"
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

/// One async listing's walk: the C++ pager of the listing (its page pipeline on the client's engine), read a page
/// at a time without blocking. Held by a shared_ptr that every pending next() keeps too, so the pager outlives
/// a page still on its way.
template <class Page>
struct AsyncPages {
  using Item = typename PageTraits<Page>::Item;
  AsyncPages(std::shared_ptr<Pager<Page>> pager, std::shared_ptr<AsyncClient> client)
      : pager(std::move(pager)), client(std::move(client)) {}
  AsyncPages(AsyncPages&&) noexcept = default;
  AsyncPages& operator=(AsyncPages&&) noexcept = default;
  /// Drops the pager with the GIL released, as ListingIterator does: dropping its page pipeline takes the lock
  /// the engine thread's completions take, and one of those (a ready() future's) waits for the GIL.
  ~AsyncPages() {
    if (pager && PyGILState_Check() != 0) {
      py::gil_scoped_release release;
      pager.reset();
    }
  }

  std::shared_ptr<Pager<Page>> pager;
  /// Keeps the AsyncClient alive as long as its listing (the pager refers to its engine).
  std::shared_ptr<AsyncClient> client;
  /// The columns read_into_arrow() appends to (made at its first call).
  std::shared_ptr<ArrowBatchBuilder<Item>> arrow;
  /// The page read_into_arrow() reads each page into, reusing the previous one's memory (Pager::next_page_into).
  std::shared_ptr<Page> page = std::make_shared<Page>();
};

/// Binds operation Op's walk as _core.AsyncClient._pages_<name>(loop?, *args, **kwargs) -> _core.AsyncPages_<name>,
/// whose ready(loop) returns a future resolved once the next page is in; read() then returns it (None after the
/// last), read_items() its items alone and read_into_arrow() appends it to Arrow columns instead; cancel() ends a
/// pending ready().
template <typename Op>
void bind_async_pages(py::module_& m, py::class_<PyAsyncClient>& cls, const py::object& complete_function) {
  using Page = typename Op::Response;
  using Walk = AsyncPages<Page>;
  const std::string name(Op::name);
  // One class per page type (both test listings answer TestPage), named after the first listing bound with it.
  if (py::detail::get_type_info(typeid(Walk)) == nullptr) {
  py::class_<Walk>(m, ("AsyncPages_" + name).c_str(), "Private: one async listing's walk over its pages.")
      .def(
          "read",
          [](Walk& self) -> py::object {
            // Call it once ready() has resolved: the page is in, and is decoded here, on the loop's thread with
            // the GIL released, while the engine thread moves the next one.
            std::optional<Page> page;
            {
              py::gil_scoped_release release;
              page = self.pager->next_page();
            }
            return page ? py::cast(std::move(*page)) : py::none();
          },
          "The next page, None after the last. Call it once ready() has resolved: it does not wait then.")
      .def(
          "read_items",
          [](Walk& self) -> py::object {
            // As read(), but only the items cross, moved out of the page into Python objects (no copy); the page
            // is read into the previous one, reusing what the move left of its memory.
            Page& page = *self.page;
            bool more = false;
            {
              py::gil_scoped_release release;
              try {
                more = self.pager->next_page_into(page);
              } catch (...) {
                page = Page{};  // never half read
                throw;
              }
            }
            if (!more) return py::none();
            py::tuple facts = page_facts(page);
            py::list items;
            append_moved(items, std::span<typename Walk::Item>(PageTraits<Page>::items(page)));
            return py::make_tuple(std::move(items), std::move(facts));
          },
          "(the next page's items, its page_facts()), None after the last. "
          "Call it once ready() has resolved: it does not wait then.")
      .def(
          "ready",
          [complete_function](Walk& self, const py::object& loop) {
            // Resolved once the next page is in (or the walk is over), without decoding it: read() or
            // read_into_arrow() then reads it on the loop's thread, so the engine thread only moves bytes while
            // the pages are decoded (about 0.2 ms per page of 100 tests, the GIL released meanwhile).
            py::object future = loop.attr("create_future")();
            auto done = completion_for<bool>(future, loop, complete_function,
                                             [](bool&&) -> py::object { return py::none(); });
            std::shared_ptr<Pager<Page>> pager = self.pager;
            // A page already in (read ahead while the last one was read) is ready at once, on this thread: the
            // future is resolved here, and awaiting it does not go round the loop and the engine thread.
            struct Call {
              std::thread::id caller = std::this_thread::get_id();
              bool returned = false;  // written and read on `caller` only
              bool at_once = false;
            };
            auto call = std::make_shared<Call>();
            {
              py::gil_scoped_release release;
              pager->when_ready([pager, call, done = std::move(done)]() mutable {
                if (std::this_thread::get_id() == call->caller && !call->returned) {
                  call->at_once = true;
                } else {
                  done(Result<bool>(true));
                }
              });
              call->returned = true;
            }
            if (call->at_once) future.attr("set_result")(py::none());
            return future;
          },
          py::arg("loop"), "A future resolved once read() or read_into_arrow() will not wait for the network.")
      .def(
          "read_into_arrow",
          [](Walk& self, std::optional<std::size_t> room) -> std::optional<std::size_t> {
            // Each page is read into the previous page's model (no allocation per item) and appended to the
            // columns, with the GIL released; only its count crosses.
            if (!self.arrow) self.arrow = std::make_shared<ArrowBatchBuilder<typename Walk::Item>>();
            py::gil_scoped_release release;
            Page& page = *self.page;
            try {
              if (!self.pager->next_page_into(page)) return std::nullopt;
            } catch (...) {
              page = Page{};  // never half read
              throw;
            }
            auto& items = PageTraits<Page>::items(page);
            const std::size_t count = room ? std::min(*room, items.size()) : items.size();
            self.arrow->append(std::span<const typename Walk::Item>(items.data(), count));
            return count;
          },
          py::arg("room") = py::none(),
          "How many items of the next page were appended to the Arrow columns (at most `room`), None after the "
          "last page. Call it once ready() has resolved: it does not wait then.")
      .def(
          "arrow",
          [](Walk& self, const std::string& form) -> py::object {
            const ArrowForm wanted = arrow_form_named(form);
            if (!self.arrow) self.arrow = std::make_shared<ArrowBatchBuilder<typename Walk::Item>>();
            return arrow_result(std::move(*std::exchange(self.arrow, nullptr)), wanted);
          },
          py::arg("form"), "The columns read_into_arrow() filled, in that form (once).")
      .def(
          "cancel",
          [](Walk& self) {
            py::gil_scoped_release release;
            self.pager->cancel_async();
          },
          "Drops a next() still waiting (its future is never resolved) and the request in flight.")
      .def(
          "limit",
          [](Walk& self, std::size_t max_items) { self.pager->limit_prefetch(max_items); }, py::arg("max_items"),
          "No page is requested ahead once the pages handed out hold this many items.");
  }
  cls.def(
      ("_pages_" + name).c_str(),
      [](PyAsyncClient& self, const py::args& args, const py::kwargs& kwargs) {
        if (!self.client) throw Error(std::string(Op::name) + ": the AsyncClient is closed");
        auto request = build_request<typename Op::Request>(Op::name, args, kwargs);
        return Walk(std::make_shared<Pager<Page>>(self.client->template pager<Op>(std::move(request))), self.client);
      },
      ("The walk over the pages of " + name + " (AsyncListing reads it).").c_str());
}

template <typename Op>
void bind_async_pages_if_listing(py::module_& m, py::class_<PyAsyncClient>& cls, const py::object& complete_function) {
  if constexpr (requires { PageTraits<typename Op::Response>::style; }) bind_async_pages<Op>(m, cls, complete_function);
}

/// _core.AsyncClient.get_test_details_many(loop, repo, org_url_slug, test_ids, *, on_progress, **BulkOptions) -> a future of
/// (results, errors), as the sync binding returns them (bind_bulk.cpp).
void bind_async_bulk(py::class_<PyAsyncClient>& cls, const py::object& complete_function) {
  cls.def(
      "get_test_details_many",
      [complete_function](PyAsyncClient& self, const py::object& loop, py::handle repo, py::handle org_url_slug,
                          py::handle test_ids, const py::object& on_progress, const py::kwargs& options) {
        if (!self.client) throw Error("get_test_details_many: the AsyncClient is closed");
        BulkArguments call = convert_bulk_arguments(repo, org_url_slug, test_ids, options);
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
      py::arg("on_progress") = py::none(),
      "A future of (results, errors) for many test ids, on_progress(ended, total) called on the loop as each ends; "
      "see trunk_api.AsyncClient.get_test_details_many.");
}

}  // namespace

void bind_async(py::module_& m) {
  py::class_<PyAsyncClient> cls(m, "AsyncClient", "Private: use trunk_api.AsyncClient.");
  cls.def(py::init([](const py::kwargs& kwargs) {
            py::dict options_kwargs(kwargs);  // a copy: the keywords are taken off it as they are read
            std::int64_t width = 64;
            if (options_kwargs.contains("max_in_flight")) {  // the engine's, not a ClientOptions row
              ArgCollector args;
              width = args.integer(options_kwargs["max_in_flight"], "max_in_flight");
              args.throw_if_failed();
              PyDict_DelItemString(options_kwargs.ptr(), "max_in_flight");
            }
            if (width < 1 || width > 4096) {
              throw ValidationError({Violation{"max_in_flight", std::to_string(width), "must be between 1 and 4096"}});
            }
            ClientOptions options = build_options(std::move(options_kwargs), "AsyncClient");
            options.interrupt_check = nullptr;  // asyncio cancels by task.cancel(), not by polling
            return PyAsyncClient(std::make_shared<AsyncClient>(std::move(options), static_cast<std::size_t>(width)));
          }),
          "Every option of ClientOptions (option_rows('client')) as a keyword, log (a logging callable) and "
          "max_in_flight (1..4096, default 64).")
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
#define TRUNK_BIND_ASYNC_PAGES_(Type, ...) bind_async_pages_if_listing<op::Type>(m, cls, complete_function);
  TRUNK_OPERATIONS(TRUNK_BIND_ASYNC_PAGES_)
#undef TRUNK_BIND_ASYNC_PAGES_
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
