#pragma once
// trunk::AsyncClient: every operation of operations.hpp without blocking the caller. Each call validates its
// request at once (ValidationError is thrown by the call itself; nothing is sent), queues it for the client's
// engine thread, and returns. The answer is delivered to a completion callback, or through a std::future.
//
// Why callbacks first: a native caller that has an event loop of its own (Asio, libuv, Qt, a game loop, the
// Python bindings' asyncio loop) wants to be told, not to block a thread in future::get(). The callback runs
// once, on the engine thread, and should hand the result over to the caller's loop (post it to its queue)
// rather than do long work there: while it runs, no other transfer of this client makes progress. The
// std::future overloads are a convenience for callers without a loop.
//
// The engine is the same one trunk::Client uses (the libcurl multi loop of transfer_engine.hpp, run on one
// thread for the client's lifetime): the same retries with backoff and Retry-After, overall deadline,
// not-safe-writes rule, client-side rate limit, token hygiene and connection reuse. Waiting between retries is
// a timer of that loop; no thread is held per request. Decoding of the answer happens on the engine thread,
// so the callback receives the typed answer.
//
// Cancellation: AsyncCall::cancel() removes the transfer from the engine at once; the callback then receives a
// CancelledError (unless it already ran). The client stays usable. Destroying the client (or close()) ends every
// pending call with CancelledError, then stops the engine thread. ClientOptions::interrupt_check and
// ClientOptions::sleep are not used by asynchronous calls (cancel them instead).
//
// Thread safety: calls may be made from any thread; callbacks run on the engine thread only, one at a time. A
// callback may make more calls and may close() the client (the engine thread then ends after it returns); it
// must not destroy the client whose callback it is (the thread it runs on belongs to that client).

#include <cstddef>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "trunk/bulk.hpp"
#include "trunk/client.hpp"
#include "trunk/client_options.hpp"
#include "trunk/operations.hpp"
#include "trunk/requests.hpp"
#include "trunk/responses.hpp"

namespace trunk {

namespace detail {
class SubmissionHandle;
}  // namespace detail

/// The outcome of an asynchronous call: the answer, or the exception (a trunk::Error) that ended it.
template <typename T>
class Result {
 public:
  explicit Result(T value) : state_(std::move(value)) {}
  explicit Result(std::exception_ptr error) : state_(std::move(error)) {}

  bool ok() const noexcept { return state_.index() == 0; }
  /// The answer; rethrows the error when there is none.
  T& value() & {
    if (!ok()) std::rethrow_exception(std::get<1>(state_));
    return std::get<0>(state_);
  }
  T&& value() && { return std::move(value()); }
  /// The error (null when ok()).
  std::exception_ptr error() const noexcept { return ok() ? nullptr : std::get<1>(state_); }

 private:
  std::variant<T, std::exception_ptr> state_;
};

/// Cancels one asynchronous call (see the header comment). Copyable; cancelling a finished call does nothing.
class AsyncCall {
 public:
  AsyncCall() = default;
  explicit AsyncCall(std::function<void()> cancel) : cancel_(std::move(cancel)) {}
  void cancel() const {
    if (cancel_) cancel_();
  }

 private:
  std::function<void()> cancel_;
};

/// A std::future of an asynchronous call and the means to cancel it.
template <typename T>
struct PendingCall {
  std::future<T> future;
  AsyncCall call;
};

class AsyncClient {
 public:
  /// Resolves and checks the options as Client does (same errors). `max_in_flight` (>= 1) bounds the
  /// transfers in flight at once; more calls wait in the engine's queue. No thread starts until the first call.
  explicit AsyncClient(ClientOptions options = {}, std::size_t max_in_flight = 64);
  /// Ends the pending calls (CancelledError to their callbacks) and joins the engine thread.
  ~AsyncClient();
  AsyncClient(const AsyncClient&) = delete;
  AsyncClient& operator=(const AsyncClient&) = delete;

  // ---- One pair of methods per operation of operations.hpp, named as the operation:
  //   AsyncCall get_test_details(const GetTestDetailsRequest&, std::function<void(Result<TestDetails>)> done);
  //   PendingCall<TestDetails> get_test_details(const GetTestDetailsRequest&);
  // Both throw ValidationError before anything is queued.
#define TRUNK_ASYNC_METHOD_(Type, name, method, path, RequestType, ResponseType, ...)             \
  AsyncCall name(const RequestType& request, std::function<void(Result<ResponseType>)> done); \
  PendingCall<ResponseType> name(const RequestType& request);
  TRUNK_OPERATIONS(TRUNK_ASYNC_METHOD_)
#undef TRUNK_ASYNC_METHOD_

  // ---- get_test_details for many ids, with the semantics of Client::get_test_details_many (bulk.hpp):
  // every input is validated by the call itself (one ValidationError listing each bad one; nothing is queued);
  // at most options.concurrency requests of this call are in flight (and at most max_in_flight of the whole
  // client); one id failing does not stop the others. `done` runs once, on the engine thread, when every id
  // has ended, with one BulkResult per id in input order; or with a CancelledError when the call was
  // cancelled (AsyncCall::cancel ends the requests in flight and starts no more) or the client closed.
  using BulkDetails = std::vector<BulkResult<TestDetails>>;
  AsyncCall get_test_details_many(const Repo& repo, const std::string& org_url_slug,
                                  const std::vector<std::string>& test_ids, BulkOptions options,
                                  std::function<void(Result<BulkDetails>)> done);
  PendingCall<BulkDetails> get_test_details_many(const Repo& repo, const std::string& org_url_slug,
                                                 const std::vector<std::string>& test_ids, BulkOptions options = {});

  /// Operation Op by its declaration (the bindings use it).
  template <typename Op>
  AsyncCall call(const typename Op::Request& request, std::function<void(Result<typename Op::Response>)> done);

  /// The pager of listing Op (Client::pager): its pages walk the same page pipeline on this client's engine;
  /// read them without blocking with Pager::next_page_async (a page arriving is decoded on the engine thread),
  /// or wait with Pager::when_ready and read on the loop's own thread (the engine thread then only moves bytes).
  /// Validates the request at once (ValidationError).
  template <typename Op>
    requires requires { PageTraits<typename Op::Response>::style; }
  Pager<typename Op::Response> pager(typename Op::Request request);

  /// Ends the pending calls (CancelledError) and stops the engine thread; a later call starts it again.
  void close();

  /// The resolved base address, without a trailing '/'.
  const std::string& base_url() const noexcept;

 private:
  std::unique_ptr<Client> client_;
};

}  // namespace trunk
