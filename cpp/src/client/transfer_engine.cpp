#include "transfer_engine.hpp"

#include <algorithm>
#include <memory>
#include <thread>
#include <unordered_map>
#include <utility>

#include "transfer_loop.hpp"
#include "trunk/error.hpp"

#include <unistd.h>

namespace trunk::detail {

namespace {

using Key = TransferKey;
using std::chrono::milliseconds;

/// Longest wait in curl_multi_poll, so the cancellation is checked at least this often (Ctrl-C latency).
constexpr milliseconds kPollInterval{100};

CancelledError cancelled_error(std::string_view operation) {
  return CancelledError(std::string(operation) + ": cancelled by the caller");
}

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
struct TransferEngine::Persistent {
  struct Submission {
    HttpRequest request;
    Completion done;
  };

  Persistent(TransferEngine& engine, std::size_t width)
      : engine(engine), lease(engine.pool_.acquire()), target(std::make_shared<SubmissionHandle::Target>()),
        owner_pid(::getpid()) {
    target->multi = lease->multi.get();
    thread = std::thread([this, width] { run(width); });
  }

  /// The last reference may go on the engine thread itself (the engine destroyed inside a completion): the
  /// thread is then left to end on its own, as it cannot join itself.
  ~Persistent() {
    stop();
    if (thread.joinable()) thread.detach();
  }

  bool on_its_thread() const noexcept { return thread.get_id() == std::this_thread::get_id(); }

  /// Tells the loop to end; waits for it unless called on the engine thread (from a completion: the loop ends
  /// after that returns, and TransferEngine joins it later from another thread).
  void stop() {
    {
      std::lock_guard lock(target->mutex);
      target->stopping = true;
      curl_multi_wakeup(target->multi);
    }
    if (thread.joinable() && !on_its_thread()) thread.join();
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

void TransferEngine::abandon_if_forked() {
  const pid_t pid = ::getpid();
  const auto forked = [pid](const std::shared_ptr<Persistent>& engine) { return engine && engine->owner_pid != pid; };
  // A forked child: the engine threads do not exist here, and the leased connections are the parent's. Both are
  // abandoned untouched (never freed: freeing would close the parent's sockets' TLS state).
  if (forked(persistent_)) new std::shared_ptr<Persistent>(std::move(persistent_));  // deliberately leaked
  for (auto& engine : retired_) {
    if (forked(engine)) new std::shared_ptr<Persistent>(std::move(engine));  // likewise
  }
  std::erase(retired_, nullptr);
}

void TransferEngine::join_retired() {
  std::vector<std::shared_ptr<Persistent>> joinable;
  {
    std::lock_guard lock(persistent_mutex_);
    abandon_if_forked();
    for (auto& engine : retired_) {
      if (!engine->on_its_thread()) joinable.push_back(std::move(engine));  // a thread cannot join itself
    }
    std::erase(retired_, nullptr);
  }
  for (const auto& engine : joinable) engine->stop();  // joins; the loop has ended or is about to
}

std::shared_ptr<TransferEngine::Persistent> TransferEngine::persistent() {
  join_retired();  // a client closed in a callback and used again: the old thread is joined before a new one
  std::lock_guard lock(persistent_mutex_);
  abandon_if_forked();
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
    abandon_if_forked();
    running = std::move(persistent_);
  }
  if (running) {
    running->stop();
    if (running->on_its_thread()) {
      // Stopped from one of its own completions (close() in a callback): its loop ends once that returns,
      // then gives its connections back to pool_. Kept until another thread joins it (the next submission,
      // or this engine's destructor), so the pool cannot go first.
      std::lock_guard lock(persistent_mutex_);
      retired_.push_back(std::move(running));
    }
  }
  join_retired();
}

}  // namespace trunk::detail
