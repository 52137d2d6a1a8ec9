#include "bulk_engine.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <queue>
#include <tuple>

#include "curl_handles.hpp"
#include "http_transfer.hpp"
#include "trunk/error.hpp"

namespace trunk::detail {

namespace {

using Clock = AttemptClock;
using std::chrono::milliseconds;

/// Longest wait in curl_multi_poll, so the interrupt check runs at least this often.
constexpr milliseconds kPollInterval{100};

[[noreturn]] void throw_multi_error(CURLMcode code) {
  throw TransportError(std::string("libcurl: ") + curl_multi_strerror(code));
}

/// One easy handle of the run and the attempt it is carrying (if any).
class Slot {
 public:
  Slot(CURLM* multi, const std::function<void(CURL*)>& configure) : multi_(multi), easy_(make_easy()) {
    configure(easy_.get());
  }
  ~Slot() { detach(); }
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;

  bool busy() const noexcept { return transfer_ != nullptr; }
  CURL* easy() const noexcept { return easy_.get(); }

  void start(std::size_t index, const TransferRequest& request, const AttemptBudget& budget) {
    transfer_ = std::make_unique<PreparedTransfer>(easy_.get(), request);
    index_ = index;
    budget_ = budget;
    started_ = Clock::now();
    const CURLMcode code = curl_multi_add_handle(multi_, easy_.get());
    if (code != CURLM_OK) {
      transfer_.reset();
      throw_multi_error(code);
    }
  }

  /// The attempt ended with libcurl's `code`: detaches the handle and returns what was received.
  TransferResult finish(CURLcode code) {
    curl_multi_remove_handle(multi_, easy_.get());
    TransferResult result = transfer_->finish(code);
    transfer_.reset();
    return result;
  }

  std::size_t index() const noexcept { return index_; }
  const AttemptBudget& budget() const noexcept { return budget_; }
  milliseconds elapsed() const { return std::chrono::duration_cast<milliseconds>(Clock::now() - started_); }

 private:
  void detach() noexcept {
    if (!transfer_) return;
    curl_multi_remove_handle(multi_, easy_.get());  // mid-transfer: closes that connection
    transfer_.reset();
  }

  CURLM* multi_;
  EasyHandle easy_;
  std::unique_ptr<PreparedTransfer> transfer_;  // clears its pointers from easy_ before easy_ goes
  std::size_t index_ = 0;
  AttemptBudget budget_;
  Clock::time_point started_;
};

/// Per-request progress.
struct RequestState {
  std::optional<CallContext> call;  // from the first attempt on
  int attempt = 0;
  bool rate_slot_reserved = false;  // the limiter already gave this request the slot it is waiting for
};

/// Requests waiting to start, earliest first, ties in input order.
using Ready = std::tuple<Clock::time_point, std::size_t>;
using ReadyQueue = std::priority_queue<Ready, std::vector<Ready>, std::greater<>>;

}  // namespace

std::vector<std::exception_ptr> run_bulk_posts(const BulkTransport& transport, const std::string& url,
                                               const std::vector<std::string>& bodies, std::size_t concurrency,
                                               std::string_view operation) {
  const std::size_t count = bodies.size();
  std::vector<std::exception_ptr> errors(count);
  if (count == 0) return errors;
  const auto interrupted = [&] {
    return transport.interrupt_check != nullptr && *transport.interrupt_check && (*transport.interrupt_check)();
  };
  const auto cancelled = [&] { return CancelledError(std::string(operation) + ": cancelled by the caller"); };

  MultiHandle multi = make_multi();
  const long width = static_cast<long>(std::min(concurrency, count));
  curl_multi_setopt(multi.get(), CURLMOPT_MAX_HOST_CONNECTIONS, width);
  curl_multi_setopt(multi.get(), CURLMOPT_MAXCONNECTS, width);
  // Declared after `multi`, so destroyed before it: every handle is detached before the multi handle goes.
  std::vector<std::unique_ptr<Slot>> slots;
  std::vector<Slot*> idle;

  std::vector<RequestState> states(count);
  ReadyQueue ready;
  for (std::size_t i = 0; i < count; ++i) ready.emplace(Clock::time_point{}, i);
  std::size_t finished = 0;

  const auto fail = [&](std::size_t index, std::exception_ptr error) {
    errors[index] = std::move(error);
    ++finished;
  };

  while (finished < count) {
    if (interrupted()) throw cancelled();

    // Start every request that may start now, while a handle is free.
    Clock::time_point now = Clock::now();
    while (!ready.empty() && std::get<0>(ready.top()) <= now &&
           (!idle.empty() || slots.size() < static_cast<std::size_t>(width))) {
      const std::size_t index = std::get<1>(ready.top());
      ready.pop();
      RequestState& state = states[index];
      if (!state.rate_slot_reserved && transport.rate_limiter != nullptr && transport.rate_limiter->enabled()) {
        if (const milliseconds wait = transport.rate_limiter->reserve(); wait.count() > 0) {
          state.rate_slot_reserved = true;  // the slot is ours; come back when it is due
          ready.emplace(now + wait, index);
          continue;
        }
      }
      state.rate_slot_reserved = false;
      if (!state.call) state.call = transport.new_call();
      ++state.attempt;
      AttemptBudget budget;
      try {
        budget = plan_attempt(*state.call, transport.attempt_timeout, state.attempt);
      } catch (const Error&) {
        fail(index, std::current_exception());
        continue;
      }
      if (idle.empty()) {
        slots.push_back(std::make_unique<Slot>(multi.get(), transport.configure));
        idle.push_back(slots.back().get());
      }
      Slot* slot = idle.back();
      idle.pop_back();
      curl_easy_setopt(slot->easy(), CURLOPT_PRIVATE, static_cast<void*>(slot));
      slot->start(index, {&url, &bodies[index], budget.timeout, transport.interrupt_check, transport.max_response_bytes},
                  budget);
    }

    int running = 0;
    if (const CURLMcode code = curl_multi_perform(multi.get(), &running); code != CURLM_OK) throw_multi_error(code);

    bool any_done = false;
    int queued = 0;
    while (CURLMsg* message = curl_multi_info_read(multi.get(), &queued)) {
      if (message->msg != CURLMSG_DONE) continue;
      void* owner = nullptr;
      curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, &owner);
      auto* slot = static_cast<Slot*>(owner);
      const CURLcode code = message->data.result;  // read before finish(): removing the handle frees `message`
      const std::size_t index = slot->index();
      const AttemptBudget budget = slot->budget();
      const milliseconds elapsed = slot->elapsed();
      TransferResult result = slot->finish(code);
      idle.push_back(slot);
      any_done = true;
      if (result.cancelled) throw cancelled();

      RequestState& state = states[index];
      AttemptOutcome outcome =
          classify_attempt(*state.call, std::move(result), budget, state.attempt, transport.max_attempts, elapsed);
      switch (outcome.kind) {
        case AttemptOutcome::Kind::success:
          try {
            transport.on_success(index, std::move(outcome.body));
            ++finished;
          } catch (...) {
            fail(index, std::current_exception());
          }
          break;
        case AttemptOutcome::Kind::final_error:
          fail(index, outcome.error);
          break;
        case AttemptOutcome::Kind::retryable:
          if (const auto delay = plan_retry(*state.call, outcome, state.attempt, transport.max_attempts,
                                            transport.random())) {
            ready.emplace(Clock::now() + *delay, index);
          } else {
            fail(index, outcome.error);
          }
          break;
      }
    }
    if (finished == count) break;
    if (any_done) continue;  // freed handles: start the next requests before waiting

    // Wait for network activity, the next due request, or the next interrupt check.
    milliseconds wait = kPollInterval;
    now = Clock::now();
    if (!ready.empty() && (!idle.empty() || slots.size() < static_cast<std::size_t>(width))) {
      const auto due = std::chrono::duration_cast<milliseconds>(std::get<0>(ready.top()) - now);
      wait = std::clamp(due, milliseconds(0), kPollInterval);
      if (wait.count() == 0 && std::get<0>(ready.top()) > now) wait = milliseconds(1);
    }
    if (const CURLMcode code = curl_multi_poll(multi.get(), nullptr, 0, static_cast<int>(wait.count()), nullptr);
        code != CURLM_OK) {
      throw_multi_error(code);
    }
  }
  return errors;
}

}  // namespace trunk::detail
