#include "trunk/twin/queue_history.hpp"

#include <algorithm>

#include "history_reading.hpp"
#include "trunk/error.hpp"
#include "trunk/operations.hpp"
#include "trunk/twin/backtest.hpp"
#include "trunk/twin/observed_run.hpp"

namespace trunk::twin {

namespace detail {

void check_window(Timestamp since, Timestamp until) {
  if (until <= since || until - since > kTestingResultsWindow) {
    throw ValidationError({{"since", format_rfc3339(since),
                            "must be before until (" + format_rfc3339(until) + ") and at most 45 days before it"}});
  }
}

std::vector<std::string> runs_to_sample(std::span<const TestingResult> results, std::size_t target_sample) {
  // Runs of one pull request each (their targets are that pull request's), every k-th so the sample spans the window.
  std::vector<std::string> single;
  for (const ObservedRun& run : observed_runs(results).runs) {
    if (!run.bisection && run.pull_requests.size() == 1 && !run.id.empty()) single.push_back(run.id);
  }
  std::vector<std::string> sample;
  const std::size_t step = target_sample == 0 ? 0 : std::max<std::size_t>(1, single.size() / target_sample);
  for (std::size_t i = 0; step != 0 && i < single.size() && sample.size() < target_sample; i += step) {
    sample.push_back(single[i]);
  }
  return sample;
}

}  // namespace detail

QueueHistory collect_queue_history(Client& client, const std::string& queue_id, Timestamp since, Timestamp until,
                                   std::size_t target_sample) {
  detail::check_window(since, until);
  QueueHistory history;
  history.queue_id = queue_id;
  history.since = since;
  history.until = until;
  MergeQueueRef ref;
  ref.id = queue_id;
  history.queue = client.get_merge_queue(ref);
  history.settings = settings_of(history.queue);

  ListTestingResultsRequest results;
  results.id = queue_id;
  results.since = since;
  results.until = until;
  results.limit = kV2MaxLimit;  // a whole listing: the fewest pages
  for (const TestingResult& r : client.pager<op::ListTestingResults>(results)) history.testing_results.push_back(r);

  // Newest submission first: once an entry was submitted before the window, so were all the rest.
  ListQueuePullRequestsRequest pulls;
  pulls.id = queue_id;
  pulls.limit = kV2MaxLimit;
  for (const PullRequestV2& pr : client.pager<op::ListMergeQueuePullRequests>(pulls)) {
    const auto submitted = pr.queue_entry ? pr.queue_entry->created_at : std::nullopt;
    if (submitted && *submitted < since) break;
    if (submitted && *submitted >= until) continue;
    history.pull_requests.push_back(pr);
  }

  for (const std::string& id : detail::runs_to_sample(history.testing_results, target_sample)) {
    VerificationRunRef run;
    run.id = id;
    history.sampled_runs.push_back(client.get_verification_run(run));
  }
  return history;
}

QueueRecord record_of(const QueueHistory& history) {
  QueueRecord record;
  for (const PullRequestV2& pr : history.pull_requests) {
    if (!pr.number || !pr.queue_entry || !pr.queue_entry->created_at) continue;
    const QueueEntry& entry = *pr.queue_entry;
    EntryRecord& r = record.entries.emplace_back();
    r.number = *pr.number;
    r.submitted_at = *entry.created_at;
    const std::optional<QueueEntryState> state = entry.state ? entry.state->known() : std::nullopt;
    r.end = state == QueueEntryState::merged      ? EntryEnd::merged
            : state == QueueEntryState::failed    ? EntryEnd::failed
            : state == QueueEntryState::cancelled ? EntryEnd::cancelled
                                                  : EntryEnd::open;  // testing, pending, or a state this library does not know
    if (r.end != EntryEnd::open) r.concluded_at = entry.state_changed_at;
  }
  for (const ObservedRun& run : observed_runs(history.testing_results).runs) {
    record.runs.push_back({.ended_at = run.ended_at,
                           .bisection = run.bisection,
                           .finished = run.finished(),
                           .failed = run.outcome == TestingOutcome::failed,
                           .pull_requests = run.pull_requests});
  }
  return record;
}

}  // namespace trunk::twin
