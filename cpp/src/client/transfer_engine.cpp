#include "transfer_engine.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <queue>
#include <thread>
#include <unordered_map>
#include <tuple>
#include <utility>

#include "curl_handles.hpp"
#include "http_transfer.hpp"
#include "trunk/error.hpp"

#include <unistd.h>

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

  void start(std::uint64_t index, const TransferRequest& request, const AttemptBudget& budget) {
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

  std::uint64_t index() const noexcept { return index_; }
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
  std::uint64_t index_ = 0;
  AttemptBudget budget_;
  Clock::time_point started_;
};

/// Per-request progress.
struct RequestState {
  std::optional<CallContext> call;  // from the first attempt on
  int attempt = 0;
  bool rate_slot_reserved = false;  // the limiter already gave this request the slot it is waiting for
};

using Key = std::uint64_t;

/// A request waiting to start: when it may, which one, and the wait that was asked for (what the sleep hook
/// is given). Earliest first, ties in submission order.
using Ready = std::tuple<Clock::time_point, Key, milliseconds>;
using ReadyQueue = std::priority_queue<Ready, std::vector<Ready>, std::greater<>>;

std::string_view method_name(HttpMethod method) { return method == HttpMethod::get ? "GET" : "POST"; }

/// The one poll loop over a leased multi handle, shared by the batch path (send_all: a fixed set of requests,
/// run until all have ended) and the persistent engine thread (submissions arriving while it runs). Requests
/// are named by a key that is never reused within one loop; `done` is called once per request that ends.
class TransferLoop {
 public:
  using Done = std::function<void(Key key, std::string&& body, std::exception_ptr error)>;

  TransferLoop(const EngineSettings& settings, PooledConnection& lane, std::size_t width, Done done)
      : settings_(settings), lane_(lane), width_(std::max<std::size_t>(width, 1)), done_(std::move(done)),
        max_attempts_(1 + std::max(0, settings.retry->max_retries)) {
    // Set per run: a pooled multi handle keeps as many connections as its last run used at once.
    curl_multi_setopt(lane.multi.get(), CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(width_));
    curl_multi_setopt(lane.multi.get(), CURLMOPT_MAXCONNECTS, static_cast<long>(width_));
  }
  TransferLoop(const TransferLoop&) = delete;
  TransferLoop& operator=(const TransferLoop&) = delete;

  CURLM* multi() const noexcept { return lane_.multi.get(); }
  std::size_t pending() const noexcept { return jobs_.size(); }
  bool in_flight() const noexcept { return slots_.size() > idle_.size(); }

  /// `request` must stay where it is until the request ends.
  void add(Key key, const HttpRequest& request) {
    jobs_.try_emplace(key, Job{&request, {}});
    ready_.emplace(Clock::time_point{}, key, milliseconds(0));
  }

  /// Ends request `key` without calling `done` (the caller reports it): an attempt in flight is dropped (logged
  /// as cancelled), a waiting one forgotten. False when no such request is pending.
  bool cancel(Key key) {
    const auto job = jobs_.find(key);
    if (job == jobs_.end()) return false;
    for (const auto& slot : slots_) {
      if (slot->busy() && slot->index() == key) {
        drop_attempt(*slot);
        idle_.push_back(slot.get());
        break;
      }
    }
    jobs_.erase(job);  // a stale entry in ready_ is skipped when it comes up
    return true;
  }

  /// The attempts in flight end as cancelled (logged like any attempt); nothing is reported.
  void drop_all() {
    for (const auto& slot : slots_) {
      if (slot->busy()) drop_attempt(*slot);
    }
    idle_.clear();
    for (const auto& slot : slots_) idle_.push_back(slot.get());
    jobs_.clear();
    ready_ = {};
  }

  std::vector<Key> keys() const {
    std::vector<Key> out;
    out.reserve(jobs_.size());
    for (const auto& [key, job] : jobs_) out.push_back(key);
    return out;
  }

  /// Starts what may start, lets libcurl work, and reports every request that ended. Returns whether any
  /// attempt ended (then handles are free: call again before waiting).
  bool run_once() {
    start_due();
    perform();
    bool any_done = false;
    // The requests that ended are reported (their answers decoded, callbacks run) only after the freed handles
    // have taken the next requests and sent them: with many in flight, decoding a wave of answers first would
    // hold back the next wave by all of that work (measured at 256 in flight: about a third of the latency).
    std::vector<Ended> ended;
    int queued = 0;
    while (CURLMsg* message = curl_multi_info_read(multi(), &queued)) {
      if (message->msg != CURLMSG_DONE) continue;
      void* owner = nullptr;
      curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, &owner);
      auto* slot = static_cast<Slot*>(owner);
      const CURLcode code = message->data.result;  // read before finish(): removing the handle frees `message`
      const Key key = slot->index();
      const AttemptBudget budget = slot->budget();
      const milliseconds elapsed = slot->elapsed();
      TransferResult result = slot->finish(code);
      if (headers_echoed_token(slot->easy(), settings_.token)) {
        slot->replace(settings_.configure);
        lane_.discard = true;
      }
      idle_.push_back(slot);
      any_done = true;

      const auto job = jobs_.find(key);
      if (job == jobs_.end()) continue;
      RequestState& state = job->second.state;
      AttemptOutcome outcome =
          classify_attempt(*state.call, std::move(result), budget, state.attempt, max_attempts_, elapsed);
      switch (outcome.kind) {
        case AttemptOutcome::Kind::success:
          end(job, std::move(outcome.body), nullptr, ended);
          break;
        case AttemptOutcome::Kind::final_error:
          end(job, {}, outcome.error, ended);
          break;
        case AttemptOutcome::Kind::retryable:
          if (const auto delay = plan_retry(*state.call, outcome, state.attempt, max_attempts_, settings_.random())) {
            ready_.emplace(Clock::now() + *delay, key, *delay);
          } else {
            end(job, {}, outcome.error, ended);
          }
          break;
      }
    }
    std::exception_ptr failure;
    if (any_done) {
      try {
        start_due();
        perform();
      } catch (...) {
        failure = std::current_exception();  // after the ended ones are reported: they are no longer pending
      }
    }
    for (Ended& one : ended) done_(one.key, std::move(one.body), std::move(one.error));
    if (failure) std::rethrow_exception(failure);
    return any_done;
  }

  /// The next waiting request that could start now if it were due (skipping cancelled ones), if any.
  const Ready* next_ready() {
    while (!ready_.empty() && !jobs_.contains(std::get<1>(ready_.top()))) ready_.pop();
    if (ready_.empty() || !can_start()) return nullptr;
    return &ready_.top();
  }

  /// The sleep hook (EngineSettings::sleep) when nothing is on the network: the whole wait is the one the next
  /// request asked for, and the hook replaces it; the request is then due at once. False when it does not apply.
  bool sleep_through_wait() {
    if (!settings_.sleep || in_flight()) return false;
    const Ready* next = next_ready();
    if (next == nullptr) return false;
    const auto [due, key, delay] = *next;
    ready_.pop();
    if (due > Clock::now()) settings_.sleep(delay);
    ready_.emplace(Clock::time_point{}, key, milliseconds(0));
    return true;
  }

  /// Waits for network activity, the next due request, a wakeup, or at most `longest`. With no handle in the
  /// multi handle, curl_multi_poll simply sleeps (until woken).
  void wait(milliseconds longest) {
    milliseconds wait = longest;
    if (const Ready* next = next_ready()) {
      const auto now = Clock::now();
      const auto due = std::chrono::duration_cast<milliseconds>(std::get<0>(*next) - now);
      wait = std::clamp(due, milliseconds(0), longest);
      if (wait.count() == 0 && std::get<0>(*next) > now) wait = milliseconds(1);
    }
    if (const CURLMcode code = curl_multi_poll(multi(), nullptr, 0, static_cast<int>(wait.count()), nullptr);
        code != CURLM_OK) {
      throw_multi_error(code);
    }
  }

 private:
  struct Job {
    const HttpRequest* request;
    RequestState state;
  };
  using Jobs = std::unordered_map<Key, Job>;

  bool can_start() const { return !idle_.empty() || slots_.size() < width_; }

  void finish(Jobs::iterator job, std::string&& body, std::exception_ptr error) {
    const Key key = job->first;
    jobs_.erase(job);
    done_(key, std::move(body), std::move(error));
  }

  /// A request that ended in run_once(), reported once the next requests are on their way.
  struct Ended {
    Key key;
    std::string body;
    std::exception_ptr error;
  };
  void end(Jobs::iterator job, std::string&& body, std::exception_ptr error, std::vector<Ended>& ended) {
    ended.push_back(Ended{job->first, std::move(body), std::move(error)});
    jobs_.erase(job);
  }

  void perform() {
    int running = 0;
    if (const CURLMcode code = curl_multi_perform(multi(), &running); code != CURLM_OK) throw_multi_error(code);
  }

  void drop_attempt(Slot& slot) {
    const auto job = jobs_.find(slot.index());
    const AttemptBudget budget = slot.budget();
    const milliseconds elapsed = slot.elapsed();
    TransferResult result = slot.cancel();
    if (job != jobs_.end() && job->second.state.call) {
      static_cast<void>(classify_attempt(*job->second.state.call, std::move(result), budget,
                                         job->second.state.attempt, max_attempts_, elapsed));
    }
  }

  CallContext new_call(const HttpRequest& request) const {
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
  }

  /// Starts every request that may start now, while a handle is free.
  void start_due() {
    const Clock::time_point now = Clock::now();
    while (!ready_.empty() && std::get<0>(ready_.top()) <= now && can_start()) {
      const Key key = std::get<1>(ready_.top());
      ready_.pop();
      const auto job = jobs_.find(key);
      if (job == jobs_.end()) continue;  // cancelled while waiting
      RequestState& state = job->second.state;
      const HttpRequest& request = *job->second.request;
      if (!state.rate_slot_reserved && settings_.rate_limiter != nullptr && settings_.rate_limiter->enabled()) {
        if (const milliseconds wait = settings_.rate_limiter->reserve(); wait.count() > 0) {
          state.rate_slot_reserved = true;  // the slot is ours; come back when it is due
          ready_.emplace(now + wait, key, wait);
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
        finish(job, {}, std::current_exception());
        continue;
      }
      if (idle_.empty()) {
        slots_.push_back(std::make_unique<Slot>(lane_, settings_.configure));
        idle_.push_back(slots_.back().get());
      }
      Slot* slot = idle_.back();
      idle_.pop_back();
      TransferRequest transfer;
      transfer.url = &request.url;
      transfer.body = request.method == HttpMethod::post ? &request.body : nullptr;
      transfer.headers = request.answer == BodyKind::text ? settings_.text_headers : settings_.json_headers;
      transfer.timeout = budget.timeout;
      transfer.max_response_bytes = settings_.max_response_bytes;
      transfer.fresh_connection = request.repeat == Repeat::not_safe;
      try {
        slot->start(key, transfer, budget);
      } catch (...) {
        idle_.push_back(slot);
        throw;
      }
    }
  }

  const EngineSettings& settings_;
  PooledConnection& lane_;
  std::size_t width_;
  Done done_;
  int max_attempts_;
  Jobs jobs_;
  ReadyQueue ready_;
  // Declared last: destroyed first, every handle detached and given back to the lane.
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<Slot*> idle_;
};

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
                                                         std::string_view operation, const OnSuccess& on_success,
                                                         const OnEnded& on_ended) {
  const std::size_t count = requests.size();
  std::vector<std::exception_ptr> errors(count);
  if (count == 0) return errors;
  if (cancel.requested()) throw cancelled_error(operation);  // nothing sent, no connection taken

  ConnectionPool::Lease lease = pool_.acquire();
  // Declared after the lease, so destroyed before it: every handle is detached and given back first.
  TransferLoop loop(settings_, *lease, std::clamp<std::size_t>(concurrency, 1, count),
                    [&](Key key, std::string&& body, std::exception_ptr error) {
                      const auto index = static_cast<std::size_t>(key);
                      if (!error) {
                        try {
                          on_success(index, std::move(body));
                        } catch (...) {
                          error = std::current_exception();
                        }
                      }
                      errors[index] = std::move(error);
                      if (on_ended) on_ended(index);
                    });
  for (std::size_t i = 0; i < count; ++i) loop.add(i, requests[i]);

  while (loop.pending() > 0) {
    if (cancel.requested()) {
      loop.drop_all();  // the attempts in flight end as cancelled (logged) before CancelledError is thrown
      throw cancelled_error(operation);
    }
    if (loop.run_once()) continue;  // freed handles: start the next requests before waiting
    if (loop.pending() == 0) break;
    if (loop.sleep_through_wait()) continue;
    loop.wait(kPollInterval);  // the cancellation is checked at least this often
  }
  return errors;
}

// ---- The persistent mode -------------------------------------------------------------------------------------

/// What a SubmissionHandle reaches: the queue of the engine thread it was submitted to.
struct SubmissionHandle::Target {
  std::mutex mutex;
  std::vector<Key> cancelled;  // keys to cancel, taken by the engine thread
  CURLM* multi = nullptr;      // to wake the thread (curl_multi_wakeup is thread-safe)
  bool stopping = false;
  void request_cancel(Key key) {
    std::lock_guard lock(mutex);
    if (stopping || multi == nullptr) return;
    cancelled.push_back(key);
    curl_multi_wakeup(multi);
  }
};

void SubmissionHandle::cancel() const {
  if (const auto target = target_.lock()) target->request_cancel(key_);
}

/// One engine thread and its queue. Made at the first submission (and again in a forked child).
struct TransferEngine::Persistent : std::enable_shared_from_this<TransferEngine::Persistent> {
  struct Submission {
    HttpRequest request;
    Completion done;
  };

  Persistent(TransferEngine& engine, std::size_t width)
      : engine(engine), lease(engine.pool_.acquire()), target(std::make_shared<SubmissionHandle::Target>()),
        owner_pid(::getpid()) {
    target->multi = lease->multi.get();
    thread = std::thread([this, width] {
      run(width);
      // Stopped from one of its own completions (close() called in a callback): nobody joins this thread, so
      // it owns the object until here, and destroys it as its last act.
      const std::shared_ptr<Persistent> last = std::move(keep_alive);
    });
  }

  ~Persistent() { stop(); }

  void stop() {
    {
      std::lock_guard lock(target->mutex);
      target->stopping = true;
      curl_multi_wakeup(target->multi);
    }
    if (!thread.joinable()) return;
    if (thread.get_id() == std::this_thread::get_id()) {
      // Stopped from a completion: the loop ends after it returns, and must outlive its owner's reference.
      keep_alive = weak_from_this().lock();  // null only if this is the destructor's call: nothing to keep
      thread.detach();
    } else {
      thread.join();
    }
  }

  SubmissionHandle submit(HttpRequest request, Completion done) {
    std::lock_guard lock(target->mutex);
    if (target->stopping) throw CancelledError(std::string(request.operation) + ": the client is closed");
    const Key key = next_key++;
    incoming.emplace_back(key, Submission{std::move(request), std::move(done)});
    curl_multi_wakeup(target->multi);
    return SubmissionHandle(target, key);
  }

  static void complete(Completion& done, std::string&& body, std::exception_ptr error) noexcept {
    try {
      done(std::move(body), std::move(error));
    } catch (...) {
      // A completion must not throw; there is nobody to tell.
    }
  }

  void run(std::size_t width) {
    std::unordered_map<Key, Submission> jobs;
    TransferLoop loop(engine.settings_, *lease, width, [&](Key key, std::string&& body, std::exception_ptr error) {
      const auto job = jobs.find(key);
      if (job == jobs.end()) return;
      Completion done = std::move(job->second.done);
      jobs.erase(job);
      complete(done, std::move(body), std::move(error));
    });
    const auto cancel = [&](Key key, const char* why) {
      const auto job = jobs.find(key);
      if (job == jobs.end()) return;
      loop.cancel(key);
      Completion done = std::move(job->second.done);
      const std::string operation(job->second.request.operation);
      jobs.erase(job);
      complete(done, {}, std::make_exception_ptr(CancelledError(operation + why)));
    };
    bool stopping = false;
    while (!stopping) {
      std::vector<std::pair<Key, Submission>> arrived;
      std::vector<Key> cancelled;
      {
        std::lock_guard lock(target->mutex);
        arrived.swap(incoming);
        cancelled.swap(target->cancelled);
        stopping = target->stopping;
      }
      for (auto& [key, submission] : arrived) {
        const auto job = jobs.try_emplace(key, std::move(submission)).first;
        loop.add(key, job->second.request);  // the map's nodes stay put: the loop keeps a pointer
      }
      for (const Key key : cancelled) cancel(key, ": cancelled by the caller");
      if (stopping) break;
      try {
        if (loop.run_once()) continue;
        loop.wait(std::chrono::seconds(1));  // a submission, a cancellation or stop() wakes it sooner
      } catch (const Error&) {
        // libcurl itself failed: every pending request ends with that error, and the loop goes on.
        const std::exception_ptr error = std::current_exception();
        for (const Key key : loop.keys()) {
          const auto job = jobs.find(key);
          if (job == jobs.end()) continue;
          Completion done = std::move(job->second.done);
          jobs.erase(job);
          complete(done, {}, error);
        }
        loop.drop_all();
      }
    }
    loop.drop_all();
    std::vector<std::pair<Key, Submission>> arrived;
    {
      std::lock_guard lock(target->mutex);
      arrived.swap(incoming);
    }
    for (auto& [key, submission] : arrived) jobs.try_emplace(key, std::move(submission));
    for (auto& [key, job] : jobs) {
      complete(job.done, {}, std::make_exception_ptr(
                                 CancelledError(std::string(job.request.operation) + ": the client is closed")));
    }
  }

  TransferEngine& engine;
  std::shared_ptr<Persistent> keep_alive;  // set only on the engine thread, by stop() called from a completion
  ConnectionPool::Lease lease;  // the engine thread's multi handle and easy handles, for as long as it runs
  std::shared_ptr<SubmissionHandle::Target> target;
  std::vector<std::pair<Key, Submission>> incoming;  // guarded by target->mutex
  Key next_key = 0;                                  // guarded by target->mutex
  pid_t owner_pid;
  std::thread thread;  // last: started once everything above exists
};

TransferEngine::~TransferEngine() { end_submissions(); }

void TransferEngine::end_submissions() {
  {
    std::lock_guard lock(persistent_mutex_);
    submissions_ended_ = true;
  }
  stop_submissions();
}

std::shared_ptr<TransferEngine::Persistent> TransferEngine::persistent() {
  std::lock_guard lock(persistent_mutex_);
  if (persistent_ && persistent_->owner_pid != ::getpid()) {
    // A forked child: the engine thread does not exist here, and the leased connections are the parent's.
    // Both are abandoned untouched (never freed: freeing would close the parent's sockets' TLS state).
    new std::shared_ptr<Persistent>(std::move(persistent_));  // deliberately leaked
  }
  if (submissions_ended_) return nullptr;
  if (!persistent_) persistent_ = std::make_shared<Persistent>(*this, submission_width_);
  return persistent_;
}

SubmissionHandle TransferEngine::submit(HttpRequest request, Completion done) {
  const std::shared_ptr<Persistent> running = persistent();
  if (!running) throw CancelledError(std::string(request.operation) + ": the client is closed");
  return running->submit(std::move(request), std::move(done));
}

void TransferEngine::set_submission_width(std::size_t width) {
  std::lock_guard lock(persistent_mutex_);
  submission_width_ = std::max<std::size_t>(width, 1);
}

void TransferEngine::stop_submissions() {
  std::shared_ptr<Persistent> running;
  {
    std::lock_guard lock(persistent_mutex_);
    if (persistent_ && persistent_->owner_pid != ::getpid()) {
      new std::shared_ptr<Persistent>(std::move(persistent_));  // a forked child: see persistent()
    }
    running = std::move(persistent_);
  }
  if (running) running->stop();
}

}  // namespace trunk::detail
