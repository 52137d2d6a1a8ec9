#include "transfer_engine.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <queue>
#include <tuple>
#include <utility>

#include "curl_handles.hpp"
#include "http_transfer.hpp"
#include "trunk/error.hpp"

namespace trunk::detail {

namespace {

using Clock = AttemptClock;
using std::chrono::milliseconds;

/// Longest wait in curl_multi_poll, so the cancellation is checked at least this often (Ctrl-C latency).
constexpr milliseconds kPollInterval{100};

[[noreturn]] void throw_multi_error(CURLMcode code) {
  throw TransportError(std::string("libcurl: ") + curl_multi_strerror(code));
}

CancelledError cancelled_error(std::string_view operation) {
  return CancelledError(std::string(operation) + ": cancelled by the caller");
}

/// Whether a header line of the last response on `easy` held the token (a server may echo it). libcurl keeps
/// response header lines in its own buffers for as long as the handle lives (the body buffer it frees after
/// every transfer).
bool headers_echoed_token(CURL* easy, std::string_view token) {
  if (token.empty()) return false;
  constexpr unsigned kOrigins = CURLH_HEADER | CURLH_TRAILER | CURLH_CONNECT | CURLH_1XX;
  for (curl_header* header = curl_easy_nextheader(easy, kOrigins, -1, nullptr); header != nullptr;
       header = curl_easy_nextheader(easy, kOrigins, -1, header)) {
    if (std::string_view(header->value).find(token) != std::string_view::npos ||
        std::string_view(header->name).find(token) != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

/// One easy handle of the batch (taken from the leased connection, or new) and the attempt it carries, if any.
/// Gives its handle back to the leased connection when destroyed.
class Slot {
 public:
  Slot(PooledConnection& lane, const std::function<void(CURL*)>& configure) : lane_(lane) {
    if (!lane.easy.empty()) {
      easy_ = std::move(lane.easy.back());
      lane.easy.pop_back();
    } else {
      easy_ = make_easy();
      configure(easy_.get());
    }
    curl_easy_setopt(easy_.get(), CURLOPT_PRIVATE, static_cast<void*>(this));
  }
  ~Slot() {
    detach();
    try {
      lane_.easy.push_back(std::move(easy_));
    } catch (...) {
      // Out of memory: the handle is simply freed instead of kept.
    }
  }
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;

  bool busy() const noexcept { return transfer_ != nullptr; }
  CURL* easy() const noexcept { return easy_.get(); }

  void start(std::size_t index, const TransferRequest& request, const AttemptBudget& budget) {
    transfer_ = std::make_unique<PreparedTransfer>(easy_.get(), request);
    index_ = index;
    budget_ = budget;
    started_ = Clock::now();
    const CURLMcode code = curl_multi_add_handle(lane_.multi.get(), easy_.get());
    if (code != CURLM_OK) {
      transfer_.reset();
      throw_multi_error(code);
    }
  }

  /// The attempt ended with libcurl's `code`: detaches the handle and returns what was received.
  TransferResult finish(CURLcode code) {
    curl_multi_remove_handle(lane_.multi.get(), easy_.get());
    TransferResult result = transfer_->finish(code);
    transfer_.reset();
    return result;
  }

  /// Drops the attempt in flight: removing the handle closes its connection mid-transfer.
  TransferResult cancel() {
    TransferResult result = finish(CURLE_ABORTED_BY_CALLBACK);
    result.cancelled = true;
    return result;
  }

  /// Replaces the (idle) handle by a new one: libcurl frees, so wipes (curl_memory.hpp), every buffer of the old.
  void replace(const std::function<void(CURL*)>& configure) {
    EasyHandle fresh = make_easy();
    configure(fresh.get());
    curl_easy_setopt(fresh.get(), CURLOPT_PRIVATE, static_cast<void*>(this));
    easy_ = std::move(fresh);
  }

  std::size_t index() const noexcept { return index_; }
  const AttemptBudget& budget() const noexcept { return budget_; }
  milliseconds elapsed() const { return std::chrono::duration_cast<milliseconds>(Clock::now() - started_); }

 private:
  void detach() noexcept {
    if (!transfer_) return;
    curl_multi_remove_handle(lane_.multi.get(), easy_.get());
    transfer_.reset();
  }

  PooledConnection& lane_;
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

/// A request waiting to start: when it may, which one, and the wait that was asked for (what the sleep hook
/// is given). Earliest first, ties in input order.
using Ready = std::tuple<Clock::time_point, std::size_t, milliseconds>;
using ReadyQueue = std::priority_queue<Ready, std::vector<Ready>, std::greater<>>;

std::string_view method_name(HttpMethod method) { return method == HttpMethod::get ? "GET" : "POST"; }

}  // namespace

TransferEngine::TransferEngine(EngineSettings settings)
    : settings_(std::move(settings)), pool_(settings_.max_idle_connections) {}

std::string TransferEngine::send(const HttpRequest& request, const Cancellation& cancel) {
  std::string answer;
  std::vector<std::exception_ptr> errors = send_all(std::span(&request, 1), 1, cancel, request.operation,
                                                    [&answer](std::size_t, std::string&& body) { answer.swap(body); });
  if (errors.front()) std::rethrow_exception(errors.front());
  return answer;
}

std::vector<std::exception_ptr> TransferEngine::send_all(std::span<const HttpRequest> requests,
                                                         std::size_t concurrency, const Cancellation& cancel,
                                                         std::string_view operation, const OnSuccess& on_success) {
  const std::size_t count = requests.size();
  std::vector<std::exception_ptr> errors(count);
  if (count == 0) return errors;
  if (cancel.requested()) throw cancelled_error(operation);  // nothing sent, no connection taken

  const int max_attempts = 1 + std::max(0, settings_.retry->max_retries);
  const std::size_t width = std::clamp<std::size_t>(concurrency, 1, count);

  ConnectionPool::Lease lease = pool_.acquire();
  PooledConnection& lane = *lease;
  CURLM* multi = lane.multi.get();
  // Set per batch: a pooled multi handle keeps as many connections as its last batch used at once.
  curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(width));
  curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, static_cast<long>(width));
  // Declared after the lease, so destroyed before it: every handle is detached and given back first.
  std::vector<std::unique_ptr<Slot>> slots;
  std::vector<Slot*> idle;
  const auto can_start = [&] { return !idle.empty() || slots.size() < width; };
  const auto in_flight = [&] { return slots.size() > idle.size(); };

  std::vector<RequestState> states(count);
  ReadyQueue ready;
  for (std::size_t i = 0; i < count; ++i) ready.emplace(Clock::time_point{}, i, milliseconds(0));
  std::size_t finished = 0;

  const auto fail = [&](std::size_t index, std::exception_ptr error) {
    errors[index] = std::move(error);
    ++finished;
  };
  const auto new_call = [&](const HttpRequest& request) {
    CallContext call;
    call.operation = request.operation;
    call.method = method_name(request.method);
    call.url = &request.url;
    call.repeat = request.repeat;
    call.token = settings_.token;
    call.retry = settings_.retry;
    call.max_response_bytes = settings_.max_response_bytes;
    call.log = settings_.log;
    call.has_deadline = settings_.retry->overall_deadline.count() > 0;
    call.deadline = Clock::now() + settings_.retry->overall_deadline;
    return call;
  };
  // The attempts in flight end as cancelled (logged like any attempt) before CancelledError is thrown.
  const auto throw_cancelled = [&]() {
    for (const auto& slot : slots) {
      if (!slot->busy()) continue;
      const std::size_t index = slot->index();
      const AttemptBudget budget = slot->budget();
      const milliseconds elapsed = slot->elapsed();
      static_cast<void>(classify_attempt(*states[index].call, slot->cancel(), budget, states[index].attempt,
                                         max_attempts, elapsed));
    }
    throw cancelled_error(operation);
  };

  while (finished < count) {
    if (cancel.requested()) throw_cancelled();

    // Start every request that may start now, while a handle is free.
    Clock::time_point now = Clock::now();
    while (!ready.empty() && std::get<0>(ready.top()) <= now && can_start()) {
      const std::size_t index = std::get<1>(ready.top());
      ready.pop();
      RequestState& state = states[index];
      const HttpRequest& request = requests[index];
      if (!state.rate_slot_reserved && settings_.rate_limiter != nullptr && settings_.rate_limiter->enabled()) {
        if (const milliseconds wait = settings_.rate_limiter->reserve(); wait.count() > 0) {
          state.rate_slot_reserved = true;  // the slot is ours; come back when it is due
          ready.emplace(now + wait, index, wait);
          continue;
        }
      }
      state.rate_slot_reserved = false;
      if (!state.call) state.call = new_call(request);
      ++state.attempt;
      AttemptBudget budget;
      try {
        budget = plan_attempt(*state.call, settings_.attempt_timeout, state.attempt);
      } catch (const Error&) {
        fail(index, std::current_exception());
        continue;
      }
      if (idle.empty()) {
        slots.push_back(std::make_unique<Slot>(lane, settings_.configure));
        idle.push_back(slots.back().get());
      }
      Slot* slot = idle.back();
      idle.pop_back();
      TransferRequest transfer;
      transfer.url = &request.url;
      transfer.body = request.method == HttpMethod::post ? &request.body : nullptr;
      transfer.headers = request.answer == BodyKind::text ? settings_.text_headers : settings_.json_headers;
      transfer.timeout = budget.timeout;
      transfer.max_response_bytes = settings_.max_response_bytes;
      transfer.fresh_connection = request.repeat == Repeat::not_safe;
      slot->start(index, transfer, budget);
    }

    int running = 0;
    if (const CURLMcode code = curl_multi_perform(multi, &running); code != CURLM_OK) throw_multi_error(code);

    bool any_done = false;
    int queued = 0;
    while (CURLMsg* message = curl_multi_info_read(multi, &queued)) {
      if (message->msg != CURLMSG_DONE) continue;
      void* owner = nullptr;
      curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, &owner);
      auto* slot = static_cast<Slot*>(owner);
      const CURLcode code = message->data.result;  // read before finish(): removing the handle frees `message`
      const std::size_t index = slot->index();
      const AttemptBudget budget = slot->budget();
      const milliseconds elapsed = slot->elapsed();
      TransferResult result = slot->finish(code);
      if (headers_echoed_token(slot->easy(), settings_.token)) {
        slot->replace(settings_.configure);
        lane.discard = true;
      }
      idle.push_back(slot);
      any_done = true;

      RequestState& state = states[index];
      AttemptOutcome outcome =
          classify_attempt(*state.call, std::move(result), budget, state.attempt, max_attempts, elapsed);
      switch (outcome.kind) {
        case AttemptOutcome::Kind::success:
          try {
            on_success(index, std::move(outcome.body));
            ++finished;
          } catch (...) {
            fail(index, std::current_exception());
          }
          break;
        case AttemptOutcome::Kind::final_error:
          fail(index, outcome.error);
          break;
        case AttemptOutcome::Kind::retryable:
          if (const auto delay =
                  plan_retry(*state.call, outcome, state.attempt, max_attempts, settings_.random())) {
            ready.emplace(Clock::now() + *delay, index, *delay);
          } else {
            fail(index, outcome.error);
          }
          break;
      }
    }
    if (finished == count) break;
    if (any_done) continue;  // freed handles: start the next requests before waiting

    now = Clock::now();
    const bool due_soon = !ready.empty() && can_start();
    if (settings_.sleep && due_soon && !in_flight()) {
      // Nothing on the network: the whole wait is the one the next request asked for, and the test hook
      // replaces it. The request is then due at once.
      const auto [due, index, delay] = ready.top();
      ready.pop();
      if (due > now) settings_.sleep(delay);
      ready.emplace(Clock::time_point{}, index, milliseconds(0));
      continue;
    }
    // Wait for network activity, the next due request, or the next cancellation check. With no handle in
    // the multi handle, curl_multi_poll simply sleeps.
    milliseconds wait = kPollInterval;
    if (due_soon) {
      const auto due = std::chrono::duration_cast<milliseconds>(std::get<0>(ready.top()) - now);
      wait = std::clamp(due, milliseconds(0), kPollInterval);
      if (wait.count() == 0 && std::get<0>(ready.top()) > now) wait = milliseconds(1);
    }
    if (const CURLMcode code = curl_multi_poll(multi, nullptr, 0, static_cast<int>(wait.count()), nullptr);
        code != CURLM_OK) {
      throw_multi_error(code);
    }
  }
  return errors;
}

}  // namespace trunk::detail
