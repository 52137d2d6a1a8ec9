#include "trunk/twin/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "trunk/twin/intervals.hpp"
#include "trunk/twin/observed_run.hpp"

namespace trunk::twin {

namespace {

std::string count_text(std::size_t n, const char* what) { return std::to_string(n) + " " + what; }

/// Each key's share of `of` (Wilson intervals), the most shared first; ties keep the keys' order.
template <typename Share, typename Key>
std::vector<Share> shares_of(const std::map<Key, std::size_t>& counts, std::size_t of) {
  std::vector<Share> out;
  for (const auto& [key, count] : counts) out.push_back({key, *estimate_proportion(count, of)});
  std::stable_sort(out.begin(), out.end(), [](const Share& a, const Share& b) { return a.share.value > b.share.value; });
  return out;
}

}  // namespace

Calibration calibrate(const QueueHistory& history) {
  Calibration c;
  const ObservedRuns observed = observed_runs(history.testing_results);
  c.runs = observed.runs.size();
  c.ignored_results = observed.ignored;

  std::vector<double> finished;
  std::vector<double> stopped;
  std::vector<double> batch_sizes;
  for (const ObservedRun& run : observed.runs) {
    (run.finished() ? finished : stopped).push_back(run.minutes);
    if (!run.bisection) batch_sizes.push_back(static_cast<double>(run.pull_requests.size()));
  }
  c.durations = fit_durations(finished, stopped);
  c.batch_size = estimate_mean(batch_sizes);
  if (c.batch_size) c.batch_size->low = std::max(c.batch_size->low, 1.0);  // a batch holds one pull request at least

  std::vector<Timestamp> submitted;
  std::size_t urgent = 0;
  std::size_t with_entry = 0;
  std::map<std::int64_t, std::size_t> priority_counts;
  for (const PullRequestV2& pr : history.pull_requests) {
    if (!pr.queue_entry) continue;
    ++with_entry;
    if (pr.queue_entry->created_at) submitted.push_back(*pr.queue_entry->created_at);
    if (pr.queue_entry->skips_the_line.value_or(false)) ++urgent;
    if (pr.queue_entry->priority_value) ++priority_counts[*pr.queue_entry->priority_value];
  }
  // A queue created inside the window had no arrivals before it existed: its hours are not hours without any.
  const Timestamp arrivals_from =
      history.queue.created_at && *history.queue.created_at > history.since && *history.queue.created_at < history.until
          ? *history.queue.created_at
          : history.since;
  c.arrivals = fit_arrivals(submitted, arrivals_from, history.until);
  c.urgent_submissions = estimate_proportion(urgent, with_entry);
  c.priorities = shares_of<PriorityShare>(priority_counts, with_entry);

  // Failures measured as the twin's simulation measures them, so the fit of the rates compares like with like.
  const QueueMeasures measured = measure(record_of(history), history.since, history.until);
  c.failed_entries = estimate_proportion(measured.failed, measured.concluded);
  c.failed_clean_runs = estimate_proportion(measured.clean_failed, measured.clean_runs);
  const std::size_t merged_or_failed = measured.concluded;
  const std::size_t failed = measured.failed;

  // Impacted targets: a sampled run tested one pull request, so its tested pull requests' targets are that one's.
  std::map<std::string, std::size_t> target_counts;
  std::size_t impacting_all = 0;
  for (const VerificationRun& run : history.sampled_runs) {
    if (!run.impacted_targets) continue;  // no upload for its commit
    const auto& set = run.impacted_targets->tested_pull_requests_only ? *run.impacted_targets->tested_pull_requests_only
                                                                     : run.impacted_targets->all;
    if (!set) continue;
    ++c.targets_sampled;
    if (set->impacts_all_targets.value_or(false)) {
      ++impacting_all;
      continue;
    }
    for (const std::string& target : set->impacted_targets.value_or(std::vector<std::string>{})) ++target_counts[target];
  }
  c.all_targets = estimate_proportion(impacting_all, c.targets_sampled);
  c.targets = shares_of<TargetShare>(target_counts, c.targets_sampled);

  // What makes the answers weak, in the order a reader meets them.
  if (history.source == HistorySource::v1) {
    c.warnings.push_back("read through v1, which gives no submission times: each pull request's is the start of its "
                         "first test, so arrivals are when testing began, the wait before it is not seen, pull "
                         "requests never tested are not counted, and time in queue is not backtested");
  }
  const double days = c.arrivals.observed_hours / 24;
  if (days < kThinWindowDays) {
    c.warnings.push_back("the window covers " + std::to_string(days).substr(0, 4) +
                         " days: some hours of the week are never observed, so the arrival profile is by hour of the "
                         "day only");
  }
  if (observed.runs.empty()) {
    c.warnings.push_back("no testing results: CI durations and failure rates are unknown");
  } else if (c.durations.minutes.size() < kFewRuns) {
    c.warnings.push_back(count_text(c.durations.minutes.size(), "finished runs") +
                         ": durations come from a fitted lognormal, not the observed sample");
  }
  if (c.durations.censored > 0 && !c.durations.empirical.empty() && c.durations.censored * 2 > observed.runs.size()) {
    c.warnings.push_back("most runs were stopped before they ended: durations are lower bounds");
  }
  if (merged_or_failed < kFewEntries) {
    c.warnings.push_back(count_text(merged_or_failed, "concluded entries") + ": failure shares are wide");
  }
  if (merged_or_failed > 0 && failed == 0) {
    c.warnings.push_back("no entry failed: the failure share's interval is all the history can say");
  }
  if (c.arrivals.arrivals == 0) c.warnings.push_back("no submission in the window: the arrival rate is unknown");
  if (!batch_sizes.empty() && c.batch_size->value == 1.0) {
    c.warnings.push_back("no run tested more than one pull request: how a batch fails together is not observed");
  }
  if (history.queue.updated_at && *history.queue.updated_at > history.since) {
    c.warnings.push_back("the queue changed at " + format_rfc3339(*history.queue.updated_at) +
                         ", inside the window: the history may mix two configurations, and the backtest replays "
                         "only today's");
  }
  if (c.targets_sampled == 0) {
    c.warnings.push_back("no sampled run had impacted targets: every pull request is modelled as impacting all "
                         "targets, so parallel mode's independent lanes are not predicted");
  } else if (c.targets_sampled < kFewEntries) {
    c.warnings.push_back(count_text(c.targets_sampled, "pull requests with impacted targets sampled") +
                         ": each target's share is wide");
  }
  if (observed.ignored > 0) {
    c.warnings.push_back(count_text(observed.ignored, "testing results") +
                         " lacked a pull request number, an end or a duration and were left out");
  }
  return c;
}

}  // namespace trunk::twin
