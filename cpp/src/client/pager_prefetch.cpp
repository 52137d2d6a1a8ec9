// The background thread of a prefetching Pager<Page> (see "Prefetching" in trunk/pager.hpp). Page-type
// independent: the pager's job writes the page into the pager itself, and this thread only runs it.
//
// One thread per pager for its whole life, not one per page: a listing of a thousand pages would otherwise
// start a thousand threads, and every new thread starts with cold thread-local decoder state (simdjson's parsers
// allocate their buffers per thread), which cost more than the page's decoding itself.
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <thread>
#include <utility>

#include "trunk/error.hpp"
#include "trunk/pager.hpp"

namespace trunk::detail {

namespace {
/// How often a caller waiting for a prefetched page checks its interrupt_check.
constexpr std::chrono::milliseconds kWaitSlice{100};
}  // namespace

struct PrefetchWorker::State {
  std::function<bool()> interrupt_check;
  pid_t owner_pid = ::getpid();  // the process the thread runs in (a forked child has no such thread)
  std::thread thread;            // started by the first start(), joined by ~PrefetchWorker
  std::mutex mutex;
  std::condition_variable changed;               // a job was posted, a job ended, or closing
  std::function<void(std::stop_token)> posted;   // the job the thread has yet to pick up (guarded by mutex)
  std::stop_source stop;                         // the current job's
  bool running = false;                          // a job was posted and has not ended (guarded by mutex)
  bool started = false;                          // start() .. wait()/abandon(): the caller's view
  bool closing = false;                          // (guarded by mutex)

  void serve() {
    std::unique_lock lock(mutex);
    for (;;) {
      changed.wait(lock, [&] { return closing || posted; });
      if (closing) return;
      std::function<void(std::stop_token)> job = std::exchange(posted, nullptr);
      std::stop_token token = stop.get_token();
      lock.unlock();
      // `token` goes with the request into the client's transfer: abandon() ends the transfer within ~100 ms.
      job(std::move(token));
      job = nullptr;  // what it captured goes before the caller is told the job ended
      lock.lock();
      running = false;
      changed.notify_all();
    }
  }

  /// Waits until the posted job has ended (the caller then sees everything it wrote).
  void wait_until_ended() {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return !running; });
  }
};

PrefetchWorker::PrefetchWorker(std::function<bool()> interrupt_check) : state_(std::make_unique<State>()) {
  state_->interrupt_check = std::move(interrupt_check);
}

PrefetchWorker::State& PrefetchWorker::here() {
  if (state_->owner_pid != ::getpid()) {
    // A forked child: the thread is the parent's and does not run here (waiting for it or joining it would
    // wait forever). Start over with a state of this process; the parent's is left untouched.
    auto fresh = std::make_unique<State>();
    fresh->interrupt_check = std::move(state_->interrupt_check);
    if (state_->thread.joinable()) {
      state_->thread.detach();
      static_cast<void>(state_.release());  // deliberately leaked: its mutex may have been held at the fork
    }
    state_ = std::move(fresh);
  }
  return *state_;
}

PrefetchWorker::~PrefetchWorker() {
  abandon();
  State& state = here();
  if (!state.thread.joinable()) return;
  {
    std::lock_guard lock(state.mutex);
    state.closing = true;
  }
  state.changed.notify_all();
  state.thread.join();
}

void PrefetchWorker::start(std::function<void(std::stop_token)> job) {
  abandon();
  State& state = here();
  {
    std::lock_guard lock(state.mutex);
    state.stop = std::stop_source();
    state.posted = std::move(job);
    state.running = true;
  }
  state.started = true;
  if (!state.thread.joinable()) {
    state.thread = std::thread([&state] { state.serve(); });
  } else {
    state.changed.notify_all();
  }
}

bool PrefetchWorker::started() const noexcept {
  // In a forked child the parent's job never ends here: not started, so the pager fetches the page itself.
  return state_->started && state_->owner_pid == ::getpid();
}

void PrefetchWorker::wait() {
  State& state = here();
  if (!state.started) return;
  {
    std::unique_lock lock(state.mutex);
    while (state.running) {
      if (state.changed.wait_for(lock, kWaitSlice, [&] { return !state.running; })) break;
      if (state.interrupt_check && state.interrupt_check()) {
        lock.unlock();
        abandon();
        throw CancelledError("pagination: cancelled by the caller");
      }
    }
  }
  state.started = false;  // the job's writes happened before it set running = false under the mutex
}

void PrefetchWorker::abandon() noexcept {
  State& state = here();
  if (!state.started) return;
  state.stop.request_stop();
  state.wait_until_ended();
  state.started = false;
}

}  // namespace trunk::detail
