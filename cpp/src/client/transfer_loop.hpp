#pragma once
// The one poll loop of the transfer engine (transfer_engine.hpp) over a leased multi handle: requests started
// on free easy handles, at most `width` in flight, each attempt classified by the retry policy, retries and
// rate-limit waits kept as due times (no sleep), and a handle whose answer echoed the token replaced. The batch
// path (TransferEngine::send_all: a fixed set of requests, run until all have ended) and the persistent engine
// thread (submissions arriving while it runs) both drive it.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "connection_pool.hpp"
#include "retry_policy.hpp"
#include "transfer_request.hpp"

namespace trunk::detail {

/// Names a request within one loop; never reused there.
using TransferKey = std::uint64_t;

class TransferSlot;  // one easy handle and the attempt it carries (transfer_loop.cpp)

class TransferLoop {
 public:
  using Key = TransferKey;
  using Done = std::function<void(Key key, std::string&& body, std::exception_ptr error)>;

  /// `done` is called once per request that ends (not for cancel()ed or dropped ones).
  TransferLoop(const EngineSettings& settings, HandleSet& handles, std::size_t width, Done done);
  ~TransferLoop();  ///< every easy handle detached and given back to the set
  TransferLoop(const TransferLoop&) = delete;
  TransferLoop& operator=(const TransferLoop&) = delete;

  CURLM* multi() const noexcept { return handles_.multi.get(); }
  std::size_t pending() const noexcept { return jobs_.size(); }
  bool in_flight() const noexcept { return slots_.size() > idle_.size(); }

  /// `request` must stay where it is until the request ends.
  void add(Key key, const HttpRequest& request);

  /// Ends request `key` without calling `done` (the caller reports it): an attempt in flight is dropped (logged
  /// as cancelled), a waiting one forgotten. False when no such request is pending.
  bool cancel(Key key);

  /// The attempts in flight end as cancelled (logged like any attempt); nothing is reported.
  void drop_all();

  std::vector<Key> keys() const;

  /// Starts what may start, lets libcurl work, and reports every request that ended. Returns whether any
  /// attempt ended (then handles are free: call again before waiting).
  bool run_once();

  /// The sleep hook (EngineSettings::sleep) when nothing is on the network: the whole wait is the one the next
  /// request asked for, and the hook replaces it; the request is then due at once. False when it does not apply.
  bool sleep_through_wait();

  /// Waits for network activity, the next due request, a wakeup, or at most `longest`. With no handle in the
  /// multi handle, curl_multi_poll simply sleeps (until woken).
  void wait(std::chrono::milliseconds longest);

 private:
  using Clock = AttemptClock;

  /// Per-request progress.
  struct RequestState {
    std::optional<CallContext> call;  // from the first attempt on
    int attempt = 0;
    bool rate_slot_reserved = false;  // the limiter already gave this request the slot it is waiting for
  };
  struct Job {
    const HttpRequest* request;
    RequestState state;
  };
  using Jobs = std::unordered_map<Key, Job>;

  /// A request waiting to start: when it may, which one, and the wait that was asked for (what the sleep hook
  /// is given). Earliest first, ties in submission order.
  using Ready = std::tuple<Clock::time_point, Key, std::chrono::milliseconds>;
  using ReadyQueue = std::priority_queue<Ready, std::vector<Ready>, std::greater<>>;

  /// A request that ended in run_once(), reported once the next requests are on their way.
  struct Ended {
    Key key;
    std::string body;
    std::exception_ptr error;
  };

  bool can_start() const { return !idle_.empty() || slots_.size() < width_; }
  /// The next waiting request that could start now if it were due (skipping cancelled ones), if any.
  const Ready* next_ready();
  void finish(Jobs::iterator job, std::string&& body, std::exception_ptr error);
  void end(Jobs::iterator job, std::string&& body, std::exception_ptr error, std::vector<Ended>& ended);
  void perform();
  void drop_attempt(TransferSlot& slot);
  CallContext new_call(const HttpRequest& request) const;
  /// Starts every request that may start now, while a handle is free.
  void start_due();

  const EngineSettings& settings_;
  HandleSet& handles_;
  std::size_t width_;
  Done done_;
  int max_attempts_;
  Jobs jobs_;
  ReadyQueue ready_;
  // Declared last: destroyed first, every easy handle detached and given back to the set.
  std::vector<std::unique_ptr<TransferSlot>> slots_;
  std::vector<TransferSlot*> idle_;
};

/// Throws TransportError for a failed libcurl multi call.
[[noreturn]] void throw_multi_error(CURLMcode code);

}  // namespace trunk::detail
