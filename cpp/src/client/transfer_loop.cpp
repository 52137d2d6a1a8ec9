// The transfer engine's poll loop (transfer_loop.hpp) and the easy handle each attempt runs on.
#include "transfer_loop.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

#include "curl_handles.hpp"
#include "http_transfer.hpp"
#include "trunk/error.hpp"

namespace trunk::detail {

using Clock = AttemptClock;
using std::chrono::milliseconds;

void throw_multi_error(CURLMcode code) {
  throw TransportError(std::string("libcurl: ") + curl_multi_strerror(code));
}

namespace {

/// Whether a header line of the last response on `easy` held the token (a server may echo it). libcurl keeps
/// response header lines in its own buffers for as long as the handle lives (the body buffer it frees after
/// every transfer).
bool headers_echoed_token(CURL* easy, const SecretViews& secrets) {
  if (secrets[0].empty() && secrets[1].empty()) return false;
  constexpr unsigned kOrigins = CURLH_HEADER | CURLH_TRAILER | CURLH_CONNECT | CURLH_1XX;
  for (curl_header* header = curl_easy_nextheader(easy, kOrigins, -1, nullptr); header != nullptr;
       header = curl_easy_nextheader(easy, kOrigins, -1, header)) {
    if (contains_any(header->value, secrets) || contains_any(header->name, secrets)) {
      return true;
    }
  }
  return false;
}


}  // namespace

/// One easy handle of the batch (taken from the leased connection, or new) and the attempt it carries, if any.
/// Gives its handle back to the leased connection when destroyed.
class TransferSlot {
 public:
  TransferSlot(HandleSet& handles, const std::function<void(CURL*)>& configure) : handles_(handles) {
    if (!handles.easy.empty()) {
      easy_ = std::move(handles.easy.back());
      handles.easy.pop_back();
    } else {
      easy_ = make_easy();
      configure(easy_.get());
    }
    curl_easy_setopt(easy_.get(), CURLOPT_PRIVATE, static_cast<void*>(this));
  }
  ~TransferSlot() {
    detach();
    try {
      handles_.easy.push_back(std::move(easy_));
    } catch (...) {
      // Out of memory: the handle is simply freed instead of kept.
    }
  }
  TransferSlot(const TransferSlot&) = delete;
  TransferSlot& operator=(const TransferSlot&) = delete;

  bool busy() const noexcept { return transfer_ != nullptr; }
  CURL* easy() const noexcept { return easy_.get(); }

  void start(std::uint64_t index, const TransferRequest& request, const AttemptBudget& budget) {
    transfer_ = std::make_unique<PreparedTransfer>(easy_.get(), request);
    index_ = index;
    budget_ = budget;
    started_ = Clock::now();
    const CURLMcode code = curl_multi_add_handle(handles_.multi.get(), easy_.get());
    if (code != CURLM_OK) {
      transfer_.reset();
      throw_multi_error(code);
    }
  }

  /// The attempt ended with libcurl's `code`: detaches the handle and returns what was received.
  TransferResult finish(CURLcode code) {
    curl_multi_remove_handle(handles_.multi.get(), easy_.get());
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
    curl_multi_remove_handle(handles_.multi.get(), easy_.get());
    transfer_.reset();
  }

  HandleSet& handles_;
  EasyHandle easy_;
  std::unique_ptr<PreparedTransfer> transfer_;  // clears its pointers from easy_ before easy_ goes
  std::uint64_t index_ = 0;
  AttemptBudget budget_;
  Clock::time_point started_;
};

TransferLoop::TransferLoop(const EngineSettings& settings, HandleSet& handles, std::size_t width, Done done)
    : settings_(settings), handles_(handles), width_(std::max<std::size_t>(width, 1)), done_(std::move(done)),
      max_attempts_(1 + std::max(0, settings.retry->max_retries)) {
  // Set per run: a pooled multi handle keeps as many connections as its last run used at once.
  curl_multi_setopt(handles.multi.get(), CURLMOPT_MAX_HOST_CONNECTIONS, static_cast<long>(width_));
  curl_multi_setopt(handles.multi.get(), CURLMOPT_MAXCONNECTS, static_cast<long>(width_));
}

TransferLoop::~TransferLoop() = default;

void TransferLoop::add(Key key, const HttpRequest& request) {
  jobs_.try_emplace(key, Job{&request, {}});
  ready_.emplace(Clock::time_point{}, key, milliseconds(0));
}

bool TransferLoop::cancel(Key key) {
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

void TransferLoop::drop_all() {
  for (const auto& slot : slots_) {
    if (slot->busy()) drop_attempt(*slot);
  }
  idle_.clear();
  for (const auto& slot : slots_) idle_.push_back(slot.get());
  jobs_.clear();
  ready_ = {};
}

std::vector<TransferLoop::Key> TransferLoop::keys() const {
  std::vector<Key> out;
  out.reserve(jobs_.size());
  for (const auto& [key, job] : jobs_) out.push_back(key);
  return out;
}

bool TransferLoop::run_once() {
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
    auto* slot = static_cast<TransferSlot*>(owner);
    const CURLcode code = message->data.result;  // read before finish(): removing the handle frees `message`
    const Key key = slot->index();
    const AttemptBudget budget = slot->budget();
    const milliseconds elapsed = slot->elapsed();
    TransferResult result = slot->finish(code);
    if (headers_echoed_token(slot->easy(), settings_.secrets)) {
      slot->replace(settings_.configure);
      handles_.discard = true;
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

const TransferLoop::Ready* TransferLoop::next_ready() {
  while (!ready_.empty() && !jobs_.contains(std::get<1>(ready_.top()))) ready_.pop();
  if (ready_.empty() || !can_start()) return nullptr;
  return &ready_.top();
}

bool TransferLoop::sleep_through_wait() {
  if (!settings_.sleep || in_flight()) return false;
  const Ready* next = next_ready();
  if (next == nullptr) return false;
  const auto [due, key, delay] = *next;
  ready_.pop();
  if (due > Clock::now()) settings_.sleep(delay);
  ready_.emplace(Clock::time_point{}, key, milliseconds(0));
  return true;
}

void TransferLoop::wait(milliseconds longest) {
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

void TransferLoop::finish(Jobs::iterator job, std::string&& body, std::exception_ptr error) {
  const Key key = job->first;
  jobs_.erase(job);
  done_(key, std::move(body), std::move(error));
}

void TransferLoop::end(Jobs::iterator job, std::string&& body, std::exception_ptr error, std::vector<Ended>& ended) {
  ended.push_back(Ended{job->first, std::move(body), std::move(error)});
  jobs_.erase(job);
}

void TransferLoop::perform() {
  int running = 0;
  if (const CURLMcode code = curl_multi_perform(multi(), &running); code != CURLM_OK) throw_multi_error(code);
}

void TransferLoop::drop_attempt(TransferSlot& slot) {
  const auto job = jobs_.find(slot.index());
  const AttemptBudget budget = slot.budget();
  const milliseconds elapsed = slot.elapsed();
  TransferResult result = slot.cancel();
  if (job != jobs_.end() && job->second.state.call) {
    static_cast<void>(classify_attempt(*job->second.state.call, std::move(result), budget,
                                       job->second.state.attempt, max_attempts_, elapsed));
  }
}

CallContext TransferLoop::new_call(const HttpRequest& request) const {
  CallContext call;
  call.operation = request.operation;
  call.method = method_name(request.method);
  call.url = &request.url;
  call.repeat = request.repeat;
  call.secrets = settings_.secrets;
  call.retry = settings_.retry;
  call.max_response_bytes = settings_.max_response_bytes;
  call.tls_trust = &settings_.tls_trust;
  call.log = settings_.log;
  call.has_deadline = settings_.retry->overall_deadline.count() > 0;
  call.deadline = Clock::now() + settings_.retry->overall_deadline;
  return call;
}

void TransferLoop::start_due() {
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
      slots_.push_back(std::make_unique<TransferSlot>(handles_, settings_.configure));
      idle_.push_back(slots_.back().get());
    }
    TransferSlot* slot = idle_.back();
    idle_.pop_back();
    TransferRequest transfer;
    transfer.url = &request.url;
    transfer.body = sends_body(request.method) ? &request.body : nullptr;
    if (request.method != HttpMethod::get && request.method != HttpMethod::post) {
      transfer.custom_method = method_name(request.method).data();  // the names are NUL-terminated literals
    }
    const EngineSettings::HeaderLists& lists =
        request.credential == Credential::api_key ? settings_.api_key_headers
        : request.credential == Credential::none  ? settings_.public_headers
                                                  : settings_.token_headers;
    transfer.headers = request.answer == BodyKind::text ? lists.text : lists.json;
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

}  // namespace trunk::detail
