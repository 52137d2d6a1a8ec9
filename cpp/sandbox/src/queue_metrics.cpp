#include "queue_metrics.hpp"

#include <chrono>
#include <cstdio>
#include <functional>

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
  std::string take() { return std::move(text_); }

 private:
  const std::vector<QueueView>& queues_;
  std::string text_;
};

}  // namespace

std::string prometheus_metrics(const std::vector<QueueView>& queues) {
  Exposition out(queues);
  const std::string main = ",queue_type=\"main\"";
  out.family("mq_depth_current", "gauge", "Number of PRs currently in the queue (in any non-terminal state).",
             [&](const QueueView& q, const std::string& labels) {
               out.sample("mq_depth_current", labels + main, static_cast<double>(q.queue->unconcluded()));
             });
  out.family("mq_pr_conclusions_1h_total", "gauge", "PRs that left the queue in the last hour, by conclusion.",
             [&](const QueueView& q, const std::string& labels) {
               for (const auto& [state, count] : q.queue->conclusions_since(q.queue->now() - std::chrono::hours(1))) {
                 out.sample("mq_pr_conclusions_1h_total",
                            labels + main + ",conclusion=\"" + std::string(trunk::to_wire(state)) + "\"",
                            static_cast<double>(count));
               }
             });
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
  out.family("mq_pr_time_to_merge_seconds", "histogram", "Seconds from submission to merge.",
             [&](const QueueView& q, const std::string& labels) {
               const auto& times = q.queue->tally().time_to_merge_seconds;
               double sum = 0;
               for (const double t : times) sum += t;
               for (const double bound : kTimeToMergeBuckets) {
                 std::size_t count = 0;
                 for (const double t : times) count += t <= bound ? 1 : 0;
                 out.sample("mq_pr_time_to_merge_seconds_bucket", labels + main + ",le=\"" + number(bound) + "\"",
                            static_cast<double>(count));
               }
               out.sample("mq_pr_time_to_merge_seconds_bucket", labels + main + ",le=\"+Inf\"",
                          static_cast<double>(times.size()));
               out.sample("mq_pr_time_to_merge_seconds_sum", labels + main, sum);
               out.sample("mq_pr_time_to_merge_seconds_count", labels + main, static_cast<double>(times.size()));
             });
  return out.take();
}

}  // namespace trunk::sandbox
