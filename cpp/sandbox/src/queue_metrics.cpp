#include "queue_metrics.hpp"

#include <chrono>
#include <cstdio>
#include <array>
#include <functional>
#include <map>

namespace trunk::sandbox {

namespace {

std::string escape_label(const std::string& value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string number(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

class Exposition {
 public:
  explicit Exposition(const std::vector<QueueView>& queues) : queues_(queues) {}

  /// One family: its # HELP and # TYPE, then the samples `each` writes for every queue.
  void family(const char* name, const char* type, const char* help,
              const std::function<void(const QueueView&, const std::string& labels)>& each) {
    text_ += "# HELP " + std::string(name) + " " + help + "\n# TYPE " + name + " " + type + "\n";
    for (const QueueView& view : queues_) {
      each(view, "repo=\"" + escape_label(view.repo) + "\",branch=\"" + escape_label(view.branch) + "\"");
    }
  }
  void sample(const std::string& name, const std::string& labels, double value) {
    text_ += name + "{" + labels + "} " + number(value) + "\n";
  }
  /// _bucket (cumulative, then +Inf), _sum and _count of `values` over `bounds`.
  template <std::size_t N>
  void histogram(const std::string& name, const std::string& labels, const double (&bounds)[N],
                 const std::vector<double>& values) {
    std::array<std::uint64_t, N> counts{};
    double sum = 0;
    for (const double v : values) {
      sum += v;
      for (std::size_t b = 0; b < N; ++b) counts[b] += v <= bounds[b] ? 1 : 0;
    }
    for (std::size_t b = 0; b < N; ++b) {
      sample(name + "_bucket", labels + ",le=\"" + number(bounds[b]) + "\"", static_cast<double>(counts[b]));
    }
    sample(name + "_bucket", labels + ",le=\"+Inf\"", static_cast<double>(values.size()));
    sample(name + "_sum", labels, sum);
    sample(name + "_count", labels, static_cast<double>(values.size()));
  }
  std::string take() { return std::move(text_); }

 private:
  const std::vector<QueueView>& queues_;
  std::string text_;
};

/// The documented rolling-window figures of one queue type, from the transitions of the last hour.
struct Window {
  std::map<trunk::PullRequestState, std::uint64_t> conclusions{
      {trunk::PullRequestState::merged, 0}, {trunk::PullRequestState::failed, 0}, {trunk::PullRequestState::cancelled, 0}};
  std::uint64_t restarts = 0;
  std::vector<double> wait, test, in_queue;  ///< seconds
};

Window window_of(const MergeQueue& queue, QueueType type) {
  Window out;
  const auto since = queue.now() - kTransitionWindow;
  const auto seconds = [](std::chrono::microseconds d) { return std::chrono::duration<double>(d).count(); };
  for (const Transition& t : queue.recent_transitions()) {
    if (t.queue_type != type || t.at < since) continue;
    using S = trunk::PullRequestState;
    const bool concluded = t.to == S::merged || t.to == S::failed || t.to == S::cancelled;
    if (concluded) ++out.conclusions[t.to];
    if (concluded && t.in_queue) out.in_queue.push_back(seconds(*t.in_queue));
    if (t.from == S::testing && t.to == S::pending) ++out.restarts;
    if (t.from == S::pending && t.to == S::testing) out.wait.push_back(seconds(t.in_from_state));
    if (t.from == S::testing) out.test.push_back(seconds(t.in_from_state));
  }
  return out;
}

}  // namespace

std::string prometheus_metrics(const std::vector<QueueView>& queues) {
  Exposition out(queues);
  const auto typed = [](const std::string& labels, QueueType type) {
    return labels + ",queue_type=\"" + std::string(queue_type_name(type)) + "\"";
  };
  const std::string main = ",queue_type=\"main\"";
  constexpr QueueType kTypes[] = {QueueType::main, QueueType::bisection};
  // ---- the documented series ----
  out.family("mq_depth_current", "gauge",
             "PRs in the queue now, not counting those waiting to become mergeable before they enter it.",
             [&](const QueueView& q, const std::string& labels) {
               for (const QueueType type : kTypes) {
                 out.sample("mq_depth_current", typed(labels, type), static_cast<double>(q.queue->depth(type)));
               }
             });
  out.family("mq_awaiting_mergeability", "gauge",
             "PRs waiting for prerequisites (mergeability; impacted targets in parallel mode) before they enter the queue.",
             [&](const QueueView& q, const std::string& labels) {
               out.sample("mq_awaiting_mergeability", labels + main, static_cast<double>(q.queue->awaiting_mergeability()));
             });
  out.family("mq_testing_slots_active", "gauge", "PRs in the testing state now (CI slots in use).",
             [&](const QueueView& q, const std::string& labels) {
               for (const QueueType type : kTypes) {
                 out.sample("mq_testing_slots_active", typed(labels, type), static_cast<double>(q.queue->testing(type)));
               }
             });
  std::vector<std::array<Window, 2>> windows;
  for (const QueueView& q : queues) windows.push_back({window_of(*q.queue, QueueType::main), window_of(*q.queue, QueueType::bisection)});
  const auto window = [&](const QueueView& q, QueueType type) -> const Window& {
    return windows[static_cast<std::size_t>(&q - queues.data())][type == QueueType::main ? 0 : 1];
  };
  out.family("mq_pr_conclusions_1h_total", "gauge", "PRs that left the queue in the last hour, by conclusion.",
             [&](const QueueView& q, const std::string& labels) {
               for (const QueueType type : kTypes) {
                 for (const auto& [state, count] : window(q, type).conclusions) {
                   out.sample("mq_pr_conclusions_1h_total",
                              typed(labels, type) + ",conclusion=\"" + std::string(trunk::to_wire(state)) + "\"",
                              static_cast<double>(count));
                 }
               }
             });
  out.family("mq_pr_restarts_1h_total", "gauge", "PR restarts (testing to pending transitions) in the last hour.",
             [&](const QueueView& q, const std::string& labels) {
               for (const QueueType type : kTypes) {
                 out.sample("mq_pr_restarts_1h_total", typed(labels, type), static_cast<double>(window(q, type).restarts));
               }
             });
  const auto histogram = [&](const char* name, const char* help, std::vector<double> Window::*values) {
    out.family(name, "histogram", help, [&](const QueueView& q, const std::string& labels) {
      for (const QueueType type : kTypes) {
        const std::vector<double>& v = window(q, type).*values;
        out.histogram(name, typed(labels, type), kDocumentedBuckets, v);
      }
    });
  };
  histogram("mq_pr_wait_duration_1h_seconds", "Seconds PRs waited in the queue before their testing started, last hour.",
            &Window::wait);
  histogram("mq_pr_test_duration_1h_seconds", "Seconds PRs spent testing, for tests that ended in the last hour.",
            &Window::test);
  histogram("mq_pr_time_in_queue_1h_seconds",
            "Seconds from entering the queue to leaving it (every phase), for PRs that left in the last hour.",
            &Window::in_queue);
  // ---- the sandbox's own series ----
  out.family("mq_prs_submitted_total", "counter", "PRs submitted to the queue.",
             [&](const QueueView& q, const std::string& labels) {
               out.sample("mq_prs_submitted_total", labels + main, static_cast<double>(q.queue->tally().submitted));
             });
  out.family("mq_prs_concluded_total", "counter", "PRs that left the queue, by conclusion (merged, failed, cancelled).",
             [&](const QueueView& q, const std::string& labels) {
               const QueueTally& t = q.queue->tally();
               const std::pair<const char*, std::uint64_t> rows[] = {
                   {"merged", t.merged}, {"failed", t.failed}, {"cancelled", t.cancelled}};
               for (const auto& [conclusion, count] : rows) {
                 out.sample("mq_prs_concluded_total", labels + main + ",conclusion=\"" + conclusion + "\"",
                            static_cast<double>(count));
               }
             });
  out.family("mq_prs_current", "gauge", "Submissions per pull request state now (concluded ones included).",
             [&](const QueueView& q, const std::string& labels) {
               for (const auto& [state, count] : q.queue->states()) {
                 out.sample("mq_prs_current", labels + main + ",state=\"" + std::string(trunk::to_wire(state)) + "\"",
                            static_cast<double>(count));
               }
             });
  out.family("mq_test_runs_started_total", "counter", "Test runs started (bisection: runs that bisect a failed batch).",
             [&](const QueueView& q, const std::string& labels) {
               const QueueTally& t = q.queue->tally();
               out.sample("mq_test_runs_started_total", labels + main,
                          static_cast<double>(t.runs_started - t.bisection_runs_started));
               out.sample("mq_test_runs_started_total", labels + ",queue_type=\"bisection\"",
                          static_cast<double>(t.bisection_runs_started));
             });
  out.family("mq_test_runs_passed_total", "counter", "Test runs that passed.",
             [&](const QueueView& q, const std::string& labels) {
               out.sample("mq_test_runs_passed_total", labels + main, static_cast<double>(q.queue->tally().runs_passed));
             });
  out.family("mq_test_runs_failed_total", "counter", "Test runs that failed, by cause (flaky, broken, timeout).",
             [&](const QueueView& q, const std::string& labels) {
               for (const FailureCause cause : {FailureCause::flaky, FailureCause::broken, FailureCause::timeout}) {
                 const auto& failed = q.queue->tally().runs_failed;
                 const auto it = failed.find(cause);
                 out.sample("mq_test_runs_failed_total",
                            labels + main + ",cause=\"" + std::string(cause_name(cause)) + "\"",
                            static_cast<double>(it == failed.end() ? 0 : it->second));
               }
             });
  out.family("mq_test_runs_cancelled_total", "counter", "Test runs abandoned before they finished (restarts, cancels).",
             [&](const QueueView& q, const std::string& labels) {
               out.sample("mq_test_runs_cancelled_total", labels + main,
                          static_cast<double>(q.queue->tally().runs_cancelled));
             });
  out.family("mq_pr_time_to_merge_seconds", "histogram", "Seconds from submission to merge, since the queue was created.",
             [&](const QueueView& q, const std::string& labels) {
               const QueueTally& t = q.queue->tally();
               std::uint64_t cumulative = 0;
               for (std::size_t b = 0; b < std::size(kTimeToMergeBuckets); ++b) {
                 cumulative += t.time_to_merge_buckets[b];
                 out.sample("mq_pr_time_to_merge_seconds_bucket",
                            labels + main + ",le=\"" + number(kTimeToMergeBuckets[b]) + "\"", static_cast<double>(cumulative));
               }
               out.sample("mq_pr_time_to_merge_seconds_bucket", labels + main + ",le=\"+Inf\"", static_cast<double>(t.merged));
               out.sample("mq_pr_time_to_merge_seconds_sum", labels + main, t.time_to_merge_sum_seconds);
               out.sample("mq_pr_time_to_merge_seconds_count", labels + main, static_cast<double>(t.merged));
             });
  return out.take();
}

}  // namespace trunk::sandbox
