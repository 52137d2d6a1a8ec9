// trunk_bench_queue: how fast the merge queue simulation runs a month of a busy parallel queue on the virtual
// clock — 5,000 pull requests over 30 days (about 7 an hour, in working-hours bursts), impacted targets drawn
// from 8 areas of a repository, batching (size 4, 10 minutes), bisection, flaky runs (8%) and broken pull
// requests (4%). Prints one JSON line: wall seconds, what happened, and the largest transition record kept
// (the metrics' memory, bounded by an hour of activity). benchmarks/run.py runs it as scenario 9 (goal < 5 s).
// Usage: trunk_bench_queue [pull_requests] [seed]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "merge_queue.hpp"
#include "queue_setting_starts.hpp"
#include "random.hpp"

int main(int argc, char** argv) {
  using namespace trunk::sandbox;
  const long pull_requests = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 5000;
  const auto seed = static_cast<std::uint64_t>(argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 7);
  FailureModel model;
  model.flaky_run_failure = 0.08;
  model.broken_pull_request = 0.04;
  model.seed = seed;
  trunk::Timestamp now = trunk::parse_rfc3339("2026-11-01T00:00:00Z");
  MergeQueue queue("github.com/acme/storefront", "main", model, now);
  trunk::QueueSettings settings = start_settings();  // then a busy parallel queue's choices:
  settings.mode = trunk::QueueMode::parallel;
  settings.concurrency = 6;
  settings.bisection_concurrency = 6;
  settings.pending_failure_depth = 1;
  settings.can_optimistically_merge = true;
  settings.batch = true;
  settings.batching_min_size = 4;
  settings.batching_max_wait_time_minutes = 10;
  settings.optimization_mode = trunk::OptimizationMode::bisection_skip_redundant_tests;
  static const char* kAreas[] = {"frontend", "backend", "api", "mobile", "docs", "infra", "payments", "search"};
  Random dice(seed);
  const auto month = std::chrono::hours(24 * 30);
  const auto step = std::chrono::duration_cast<std::chrono::microseconds>(month) / pull_requests;
  std::size_t most_transitions = 0;
  const auto started = std::chrono::steady_clock::now();
  for (long n = 1; n <= pull_requests; ++n) {
    now += std::chrono::microseconds(static_cast<std::int64_t>(dice.uniform(0.2, 1.8) * static_cast<double>(step.count())));
    queue.advance_to(now, settings);
    trunk::SubmitPullRequestRequest submit;
    submit.pr.number = n;
    if (dice.chance(0.02)) submit.priority = trunk::Priority{std::string("urgent")};
    if (dice.chance(0.05)) submit.no_batch = true;
    if (queue.submit(submit, settings)) return 1;
    trunk::SetImpactedTargetsRequest targets;
    targets.pr.number = n;
    targets.pr.sha = std::get<trunk::SubmittedPullRequest>(queue.submitted(n)).pr_sha.value_or("");
    if (dice.chance(0.03)) {
      targets.targets = trunk::AllTargets::all;
    } else {
      std::vector<std::string> areas{kAreas[dice.next() % 8]};
      if (dice.chance(0.3)) areas.emplace_back(kAreas[dice.next() % 8]);
      targets.targets = areas;
    }
    (void)queue.set_impacted_targets(targets, settings);
    most_transitions = std::max(most_transitions, queue.recent_transitions().size());
  }
  queue.advance_to(now + std::chrono::hours(24), settings);  // let the last ones finish
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const QueueTally& t = queue.tally();
  std::printf(
      "{\"pull_requests\": %ld, \"seconds\": %.3f, \"merged\": %llu, \"failed\": %llu, \"open\": %zu, "
      "\"runs\": %llu, \"bisection_runs\": %llu, \"most_transitions_kept\": %zu}\n",
      pull_requests, seconds, static_cast<unsigned long long>(t.merged), static_cast<unsigned long long>(t.failed),
      queue.unconcluded(), static_cast<unsigned long long>(t.runs_started),
      static_cast<unsigned long long>(t.bisection_runs_started), most_transitions);
  return 0;
}
