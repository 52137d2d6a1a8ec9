// AsyncClient::get_test_details_many: the bulk call of bulk.hpp without blocking the caller.
//
// It is a small scheduler over the client's one submission queue, not a second engine: the first
// `concurrency` ids are submitted at once, and each completion (on the engine thread) submits the next id, so at
// most `concurrency` of this call are in flight while the engine's own width bounds the client as a whole. Every
// id gets the single call's retries, deadline and rate limit because it *is* a single call. Submitting from a
// completion is safe: the engine calls completions without holding its queue's lock.
//
// Cancellation ends the whole call: no id is started any more, the ones in flight are cancelled, and `done`
// receives a CancelledError once they have all ended (so no completion of this call runs after `done`). A
// CancelledError of one id can only come from that (or from the client closing), since the per-id handles never
// leave this file.

#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "bulk_validation.hpp"
#include "pending_call.hpp"
#include "trunk/async_client.hpp"
#include "trunk/error.hpp"

namespace trunk {

namespace {

class BulkDetailsCall : public std::enable_shared_from_this<BulkDetailsCall> {
 public:
  using Done = std::function<void(Result<AsyncClient::BulkDetails>)>;

  BulkDetailsCall(AsyncClient& client, std::vector<GetTestDetailsRequest> inputs, Done done,
                  std::function<void(std::size_t, std::size_t)> on_progress)
      : client_(client), inputs_(std::move(inputs)), results_(inputs_.size()), calls_(inputs_.size()),
        done_(std::move(done)), on_progress_(std::move(on_progress)) {}

  /// Submits the first `width` ids. An empty call completes at once (on the caller's thread: nothing was queued).
  void start(std::size_t width) {
    std::unique_lock lock(mutex_);
    if (inputs_.empty()) {
      finish(lock);
      return;
    }
    while (next_ < inputs_.size() && next_ < width && !cancelled_) submit_next(lock);
    finish_if_over(lock);
  }

  void cancel() {
    std::vector<AsyncCall> in_flight;
    {
      std::lock_guard lock(mutex_);
      if (cancelled_ || delivered_) return;
      cancelled_ = true;
      for (std::size_t i = 0; i < next_; ++i) {
        if (!ended_[i]) in_flight.push_back(calls_[i]);
      }
    }
    // Outside our lock: a cancellation may complete synchronously on another thread that then takes it.
    for (const AsyncCall& call : in_flight) call.cancel();
    std::unique_lock lock(mutex_);
    finish_if_over(lock);
  }

 private:
  /// Submits id next_ (mutex_ held). A closed client refuses it: the call then ends as cancelled.
  void submit_next(std::unique_lock<std::mutex>& lock) {
    const std::size_t index = next_++;
    ended_.push_back(false);
    try {
      calls_[index] = client_.get_test_details(
          inputs_[index], [self = shared_from_this(), index](Result<TestDetails> result) {
            self->on_result(index, std::move(result));
          });
    } catch (...) {
      ended_[index] = true;
      ++ended_count_;
      results_[index].error = std::current_exception();
      cancelled_ = true;
      cancel_reason_ = std::current_exception();
    }
    (void)lock;
  }

  /// On the engine thread, once per submitted id.
  void on_result(std::size_t index, Result<TestDetails> result) {
    if (on_progress_ && !is_cancellation_result(result)) {
      // Before the result is recorded, so that the progress of the last id is told before the call delivers,
      // and outside mutex_ (the callback is the caller's). Ids end one at a time on the engine thread, so the
      // counts told only grow.
      std::size_t ended = 0;
      {
        std::lock_guard count_lock(mutex_);
        ended = ++progress_told_;
      }
      try {
        on_progress_(ended, inputs_.size());
      } catch (...) {
        // A progress callback must not throw; the call goes on.
      }
    }
    std::unique_lock lock(mutex_);
    ended_[index] = true;
    ++ended_count_;
    if (result.ok()) {
      results_[index].value = std::move(result).value();
    } else {
      results_[index].error = result.error();
      if (is_cancellation(result.error())) {
        cancelled_ = true;  // cancelled by cancel() or by the client closing: the whole call ends
        if (!cancel_reason_) cancel_reason_ = result.error();
      }
    }
    if (!cancelled_ && next_ < inputs_.size()) submit_next(lock);
    finish_if_over(lock);
  }

  /// Delivers once nothing of this call is in flight and nothing more will start.
  void finish_if_over(std::unique_lock<std::mutex>& lock) {
    if (delivered_ || ended_count_ < next_) return;
    if (!cancelled_ && next_ < inputs_.size()) return;
    finish(lock);
  }

  void finish(std::unique_lock<std::mutex>& lock) {
    delivered_ = true;
    Done done = std::move(done_);
    std::optional<Result<AsyncClient::BulkDetails>> outcome;
    if (cancelled_) {
      outcome.emplace(cancel_reason_ ? cancel_reason_
                                     : std::make_exception_ptr(
                                           CancelledError("get_test_details_many: cancelled by the caller")));
    } else {
      outcome.emplace(std::move(results_));
    }
    lock.unlock();  // the caller's callback runs without our lock (it may cancel or submit again)
    try {
      done(std::move(*outcome));
    } catch (...) {
      // A completion must not throw; there is nobody to tell.
    }
  }

  static bool is_cancellation_result(const Result<TestDetails>& result) {
    return !result.ok() && is_cancellation(result.error());
  }

  static bool is_cancellation(const std::exception_ptr& error) {
    try {
      std::rethrow_exception(error);
    } catch (const CancelledError&) {
      return true;
    } catch (...) {
      return false;
    }
  }

  AsyncClient& client_;
  std::mutex mutex_;
  const std::vector<GetTestDetailsRequest> inputs_;
  AsyncClient::BulkDetails results_;  // guarded by mutex_, like everything below
  std::vector<AsyncCall> calls_;
  std::vector<bool> ended_;
  std::size_t next_ = 0;
  std::size_t ended_count_ = 0;
  bool cancelled_ = false;
  bool delivered_ = false;
  std::exception_ptr cancel_reason_;
  Done done_;
  const std::function<void(std::size_t, std::size_t)> on_progress_;
  std::size_t progress_told_ = 0;  // guarded by mutex_
};

}  // namespace

AsyncCall AsyncClient::get_test_details_many(const Repo& repo, const std::string& org_url_slug,
                                             const std::vector<std::string>& test_ids, BulkOptions options,
                                             std::function<void(Result<BulkDetails>)> done) {
  std::vector<GetTestDetailsRequest> inputs = detail::validate_bulk_details(repo, org_url_slug, test_ids, options);
  auto call = std::make_shared<BulkDetailsCall>(*this, std::move(inputs), std::move(done),
                                                std::move(options.on_progress));
  call->start(options.concurrency);
  return AsyncCall([weak = std::weak_ptr<BulkDetailsCall>(call)] {
    if (const auto alive = weak.lock()) alive->cancel();
  });
}

PendingCall<AsyncClient::BulkDetails> AsyncClient::get_test_details_many(const Repo& repo,
                                                                         const std::string& org_url_slug,
                                                                         const std::vector<std::string>& test_ids,
                                                                         BulkOptions options) {
  auto [future, fulfil] = detail::future_and_callback<BulkDetails>();
  AsyncCall handle = get_test_details_many(repo, org_url_slug, test_ids, options, std::move(fulfil));
  return PendingCall<BulkDetails>{std::move(future), std::move(handle)};
}

}  // namespace trunk
