#pragma once
// The client's one transfer engine. Every request the client sends - a single call, a page of a listing
// (prefetched or not), every id of a bulk call - runs here, as a batch over one libcurl multi handle leased
// from the connection pool (a single call is a batch of one):
//  - one poll loop: at most `concurrency` transfers in flight, each easy handle kept for the next request so
//    the connections cached by the multi handle are reused, within the batch and by the next batch;
//  - one retry policy (retry_policy.hpp) per request: the same classification, backoff, Retry-After and
//    overall deadline for all, the request's Repeat deciding what a not-safe write may retry; a request
//    waiting for its retry holds no handle, the others keep running;
//  - one rate limit: every attempt, retries included, takes a slot of the client's RateLimiter;
//  - one cancellation: a Cancellation carried with the batch, checked between polls (at least every 100 ms),
//    and honoured by removing the handles in flight - never by aborting from a libcurl callback;
//  - token hygiene: a handle whose response echoed the token in a header is replaced at once (libcurl keeps
//    header lines as long as the handle lives), and the connections of that batch are closed when it ends.
//
// The same loop also runs in a persistent mode (submit()): one engine thread, started at the first submission,
// keeps a leased multi handle and runs the loop for as long as the engine lives, fed by a thread-safe queue
// (curl_multi_wakeup wakes it). Each submitted request carries a completion callback, called once on the
// engine thread, and can be cancelled (its transfer is removed from the multi handle at once). Waiting
// between retries or for a rate-limit slot is a timer of that loop, never a sleep. Batches and submissions
// share the loop code (TransferLoop, transfer_loop.hpp): the same classification, backoff, Retry-After,
// deadline, not-safe-writes rule, rate limiter and token hygiene.

#include <curl/curl.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "connection_pool.hpp"
#include "transfer_request.hpp"

namespace trunk::detail {

/// Ends a submitted request (TransferEngine::submit): its transfer is removed from the multi handle at once and
/// its callback gets a CancelledError. Copyable, thread-safe; does nothing once the request has ended or the
/// engine is gone.
class SubmissionHandle {
 public:
  SubmissionHandle() = default;
  void cancel() const;

 private:
  friend class TransferEngine;
  struct Target;
  SubmissionHandle(std::weak_ptr<Target> target, std::uint64_t key) : target_(std::move(target)), key_(key) {}
  std::weak_ptr<Target> target_;
  std::uint64_t key_ = 0;
};

class TransferEngine {
 public:
  explicit TransferEngine(EngineSettings settings);
  /// Stops the engine thread, if running: its pending requests end with a CancelledError first.
  ~TransferEngine();
  TransferEngine(const TransferEngine&) = delete;
  TransferEngine& operator=(const TransferEngine&) = delete;

  /// Receives the 2xx body of request `index` as soon as it arrives (on the calling thread); an exception it
  /// throws becomes that request's error.
  using OnSuccess = std::function<void(std::size_t index, std::string&& body)>;
  /// Told, after on_success, that request `index` ended (answered or failed), on the calling thread.
  using OnEnded = std::function<void(std::size_t index)>;

  /// Sends every request of `requests`, at most `concurrency` (>= 1) at once. Returns one entry per request,
  /// in order: null when on_success took its body, else the trunk::Error that ended it after retries. Throws
  /// CancelledError naming `operation` when `cancel` asks (the transfers in flight are dropped first), and
  /// TransportError when libcurl itself fails.
  std::vector<std::exception_ptr> send_all(std::span<const HttpRequest> requests, std::size_t concurrency,
                                           const Cancellation& cancel, std::string_view operation,
                                           const OnSuccess& on_success, const OnEnded& on_ended = {});

  /// One request (a batch of one): the 2xx body, or throws what ended it.
  std::string send(const HttpRequest& request, const Cancellation& cancel);

  /// Called once, on the engine thread, when a submitted request ends: with the 2xx body and a null error, or
  /// with the error that ended it (the trunk::Error the batch path would throw; CancelledError when cancelled
  /// or when the engine stops). Must not throw (what it throws is dropped).
  using Completion = std::function<void(std::string&& body, std::exception_ptr error)>;

  /// Queues `request` for the engine thread (started on first use, and again in a forked child, which never
  /// touches the parent's connections) and returns at once.
  SubmissionHandle submit(HttpRequest request, Completion done);

  /// How many submitted requests may be in flight at once (>= 1; default 64). Takes effect when the engine
  /// thread next starts.
  void set_submission_width(std::size_t width);

  /// Stops the engine thread (pending submissions end with CancelledError) and waits for it; called on that
  /// thread (from a completion), it is joined later instead, by the next submission or the destructor, before
  /// the connection pool it returns its connections to can go. Later submissions start it again.
  void stop_submissions();

  /// stop_submissions() for good: later submissions throw CancelledError instead of starting the thread
  /// again. For the owner's destructor, so that a completion submitting more work (a bulk call's next id)
  /// while it is torn down cannot bring the engine thread back.
  void end_submissions();

 private:
  struct Persistent;
  std::shared_ptr<Persistent> persistent();
  /// Joins the engine threads stopped from their own completions, except the caller's own.
  void join_retired();
  /// In a forked child, lets go of the parent's engines untouched. Caller holds persistent_mutex_.
  void abandon_if_forked();

  EngineSettings settings_;
  ConnectionPool pool_;
  std::size_t submission_width_ = 64;
  bool submissions_ended_ = false;  // guarded by persistent_mutex_
  std::mutex persistent_mutex_;
  std::shared_ptr<Persistent> persistent_;  // declared after pool_: stopped before the pool goes
  // Engines stopped from their own thread (close() in a callback), not joined yet; guarded by persistent_mutex_.
  std::vector<std::shared_ptr<Persistent>> retired_;
};

}  // namespace trunk::detail
