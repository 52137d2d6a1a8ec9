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
#include "trunk/listings.hpp"
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

/// One async listing: the listing's C++ pager (its one cursor, trunk/pager.hpp: max_results, the rest of a half-read
/// page, the counts, the progress hook), read without blocking - ready(loop) resolves once the next read would not
/// wait, and the read then runs on the loop's thread with the GIL released. The sync iterators wrap the same
/// pager (listing_iterator.hpp), so both read a listing alike. Held by a shared_ptr that every pending ready()
/// keeps too, so the pager outlives a page still on its way.
template <class Page>
struct AsyncPages {
  using Item = typename PageTraits<Page>::Item;
  AsyncPages(std::shared_ptr<Pager<Page>> pager, std::shared_ptr<AsyncClient> client)
      : pager(std::move(pager)), client(std::move(client)) {}
  AsyncPages(AsyncPages&&) noexcept = default;
  AsyncPages& operator=(AsyncPages&&) noexcept = default;
  ~AsyncPages() {
    if (pager) release_pager_without_gil(*pager);
  }

  std::shared_ptr<Pager<Page>> pager;
  /// Keeps the AsyncClient alive as long as its listing (the pager refers to its engine).
  std::shared_ptr<AsyncClient> client;
  /// The columns read_into_arrow() appends to (made at its first call).
  std::shared_ptr<ArrowBatchBuilder<Item>> arrow;
};

/// Binds operation Op's listing as _core.AsyncClient._pages_<name>(*args, max_results=, on_page=, **kwargs) ->
/// _core.AsyncPages_<name> (arguments converted and validated now, nothing sent). ready(loop) returns a future
/// resolved once the next read will not wait; then take_item(), next_page(), read_items() or read_into_arrow()
/// reads without waiting; cancel() ends a pending ready().
template <typename Op>
void bind_async_pages(py::module_& m, py::class_<PyAsyncClient>& cls, const py::object& complete_function) {
  using Page = typename Op::Response;
  using Walk = AsyncPages<Page>;
  using Item = typename Walk::Item;
  const std::string name(Op::name);
  // One class per page type (both test listings answer TestPage), named after the first listing bound with it.
  if (py::detail::get_type_info(typeid(Walk)) == nullptr) {
  py::class_<Walk>(m, ("AsyncPages_" + name).c_str(), "Private: one async listing's walk over its pages.")
      .def(
          "unread", [](const Walk& self) { return self.pager->unread(); },
          "Items in hand not given out yet: take_item() returns one without waiting.")
      .def(
          "take_item",
          [](Walk& self) -> py::object {
            std::optional<Item> item = call_without_gil([&] { return self.pager->take_item(); });
            return item ? py::cast(std::move(*item)) : py::none();
          },
          "The next item, None at the end. Call it once ready() has resolved, or while unread() > 0.")
      .def(
          "next_page",
          [](Walk& self) -> py::object {
            std::optional<Page> page = call_without_gil([&] { return self.pager->next_page(); });
            return page ? py::cast(std::move(*page)) : py::none();
          },
          "The next page (the rest of a half-read one first, cut at max_results), None at the end. Call it once "
          "ready() has resolved.")
      .def(
          "read_items",
          [](Walk& self) -> py::object {
            // The items of the next page, moved out of it into Python objects (no copy), the GIL taken once.
            py::list items;
            const bool more = call_without_gil([&] {
              return self.pager->drain_page([&](std::span<Item> page) {
                py::gil_scoped_acquire gil;
                append_moved(items, page);
              });
            });
            return more ? py::object(std::move(items)) : py::none();
          },
          "The items of the next page (as next_page() cuts it), None at the end. Call it once ready() has resolved.")
      .def(
          "ready",
          [complete_function](Walk& self, const py::object& loop) {
            // Resolved once the next page is in (or the walk is over), without decoding it: the read then decodes
            // it on the loop's thread, so the engine thread only moves bytes while the pages are decoded.
            py::object future = loop.attr("create_future")();
            auto done = completion_for<bool>(future, loop, complete_function,
                                             [](bool&&) -> py::object { return py::none(); });
            std::shared_ptr<Pager<Page>> pager = self.pager;
            // Ready at once (an item in hand, a page read ahead, the walk over): resolved here, on this thread, so
            // that awaiting it does not go round the loop and the engine thread.
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
          py::arg("loop"), "A future resolved once the next read will not wait for the network.")
      .def(
          "read_into_arrow",
          [](Walk& self) -> std::optional<std::size_t> {
            // The next page's items appended to the columns where they are decoded, with the GIL released; only
            // the count crosses.
            if (!self.arrow) self.arrow = std::make_shared<ArrowBatchBuilder<Item>>();
            std::size_t count = 0;
            const bool more = call_without_gil([&] {
              return self.pager->drain_page([&](std::span<Item> page) {
                self.arrow->append(std::span<const Item>(page.data(), page.size()));
                count = page.size();
              });
            });
            return more ? std::optional<std::size_t>(count) : std::nullopt;
          },
          "How many items of the next page were appended to the Arrow columns, None at the end. Call it once "
          "ready() has resolved.")
      .def(
          "arrow",
          [](Walk& self, const std::string& form) -> py::object {
            const ArrowForm wanted = arrow_form_named(form);
            if (!self.arrow) self.arrow = std::make_shared<ArrowBatchBuilder<Item>>();
            return arrow_result(std::move(*std::exchange(self.arrow, nullptr)), wanted);
          },
          py::arg("form"), "The columns read_into_arrow() filled, in that form (once).")
      .def(
          "cancel",
          [](Walk& self) {
            py::gil_scoped_release release;
            self.pager->cancel_async();
          },
          "Drops a ready() still waiting (its future is never resolved) and the request in flight; the walk stays "
          "where it was.")
      .def_property_readonly(
          "_fetched", [](const Walk& self) { return counts_tuple(self.pager->counts()); },
          "(pages fetched, items in them, items given out, the listing's total or None), for the notebook display.");
  }
  cls.def(
      ("_pages_" + name).c_str(),
      [](PyAsyncClient& self, const py::args& args, py::kwargs kwargs) {
        if (!self.client) throw Error(std::string(Op::name) + ": the AsyncClient is closed");
        ListingKeywords listing = take_listing_keywords(kwargs);
        auto request = build_request<typename Op::Request>(iterator_method_name(Op::name), args, kwargs,
                                                           /*allow_page_token=*/false);
        auto pager = std::make_shared<Pager<Page>>(self.client->template pager<Op>(std::move(request)));
        apply_listing_keywords(*pager, std::move(listing));
        return Walk(std::move(pager), self.client);
      },
      ("The walk over the pages of " + name + " (AsyncListing reads it); nothing is sent yet.").c_str());
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
}

}  // namespace trunk::python
