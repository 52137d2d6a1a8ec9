// The background thread of a prefetching Pager<Page> (see "Prefetching" in trunk/pager.hpp). Page-type
// independent: the pager's job writes the page into the pager itself, and this thread only runs it.
#include <chrono>
#include <condition_variable>
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
  std::thread thread;
  std::stop_source stop;
  std::mutex mutex;
  std::condition_variable finished_signal;
  bool finished = false;  // the job returned (guarded by mutex)
};

PrefetchWorker::PrefetchWorker(std::function<bool()> interrupt_check) : state_(std::make_unique<State>()) {
  state_->interrupt_check = std::move(interrupt_check);
}

PrefetchWorker::~PrefetchWorker() { abandon(); }

void PrefetchWorker::start(std::function<void(std::stop_token)> job) {
  abandon();
  State& state = *state_;
  state.stop = std::stop_source();
  state.finished = false;
  state.thread = std::thread([&state, job = std::move(job), stop = state.stop.get_token()] {
    // `stop` goes with the request into the client's transfer engine: abandon() ends the transfer within ~100 ms.
    job(stop);
    std::lock_guard lock(state.mutex);
    state.finished = true;
    state.finished_signal.notify_all();
  });
}

bool PrefetchWorker::started() const noexcept { return state_->thread.joinable(); }

void PrefetchWorker::wait() {
  State& state = *state_;
  if (!state.thread.joinable()) return;
  {
    std::unique_lock lock(state.mutex);
    while (!state.finished) {
      if (state.finished_signal.wait_for(lock, kWaitSlice, [&] { return state.finished; })) break;
      if (state.interrupt_check && state.interrupt_check()) {
        lock.unlock();
        abandon();
        throw CancelledError("pagination: cancelled by the caller");
      }
    }
  }
  state.thread.join();  // everything the job wrote happens-before this returns
}

void PrefetchWorker::abandon() noexcept {
  State& state = *state_;
  if (!state.thread.joinable()) return;
  state.stop.request_stop();
  state.thread.join();
}

}  // namespace trunk::detail
