// The sandbox's v2 testing results (docs/sandbox.md#v2): one result per pull request of each finished test run of
// the queue simulation, in the order the runs ended, over [since, until] (until: the sandbox clock's now when not
// given; at most 45 days). A run stopped before it ended (a restart, a failure ahead, a dequeue) is "interrupted";
// a failed batch that was bisected "startedBisection"; the entry's conclusion is its pull request's latest, once
// concluded.
#include <algorithm>
#include <map>

#include "identifiers.hpp"
#include "trunk/codec.hpp"
#include "trunk/operations.hpp"
#include "trunk/testing_result.hpp"
#include "v2_answers.hpp"
#include "v2_service.hpp"

namespace trunk::sandbox {

namespace {
std::optional<trunk::QueueEntryConclusion> conclusion_of(trunk::PullRequestState state) {
  switch (state) {
    case trunk::PullRequestState::merged: return trunk::QueueEntryConclusion::merged;
    case trunk::PullRequestState::failed: return trunk::QueueEntryConclusion::failed;
    case trunk::PullRequestState::cancelled: return trunk::QueueEntryConclusion::cancelled;
    default: return std::nullopt;
  }
}
}  // namespace

template <>
Reply V2Service::answer<trunk::op::ListTestingResults>(const trunk::ListTestingResultsRequest& request) {
  const std::optional<QueueKey> key = find_queue(request.id);
  if (!key) return v2_error(404, "MERGE_QUEUE_NOT_FOUND", "no merge queue has the id " + request.id);
  const trunk::Timestamp until = request.until.value_or(clock_());
  if (until - request.since > trunk::kTestingResultsWindow || until < request.since) {
    return v2_error(400, "VALIDATION_FAILED", "since must be at most 45 days before until, and not after it");
  }
  std::vector<MergeQueue::RunView> runs;
  std::map<std::int64_t, trunk::PullRequestState> latest_state;
  queues_.with_queue(key->repo, key->branch, [&](MergeQueue& queue, const trunk::QueueSettings&) {
    runs = queue.runs();
    for (const MergeQueue::EntryView& e : queue.entries()) latest_state[e.number] = e.state;
    return 0;
  });
  std::erase_if(runs, [&](const MergeQueue::RunView& run) {
    return run.status == trunk::TestingStatus::in_progress || run.updated_at < request.since || run.updated_at > until;
  });
  std::stable_sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.updated_at < b.updated_at; });
  // One result per pull request of each run; only the page's are built.
  std::vector<std::pair<std::size_t, std::size_t>> results;  // (run, tested)
  for (std::size_t r = 0; r < runs.size(); ++r) {
    for (std::size_t t = 0; t < runs[r].tested.size(); ++t) results.emplace_back(r, t);
  }
  const auto result_of = [&](std::size_t i) {
    const MergeQueue::RunView& run = runs[results[i].first];
    const auto& pr = run.tested[results[i].second];
    trunk::TestingResult r;
    r.pull_request_number = pr.number;
    r.ended_at = run.updated_at;
    r.testing_duration_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(run.updated_at - run.created_at).count();
    r.outcome = run.status == trunk::TestingStatus::succeeded ? trunk::TestingOutcome::passed
                : run.status == trunk::TestingStatus::failed  ? trunk::TestingOutcome::failed
                                                              : trunk::TestingOutcome::interrupted;
    if (const auto conclusion = conclusion_of(latest_state.at(pr.number))) r.entry_conclusion = *conclusion;
    r.is_bisection = run.bisection;
    r.started_bisection = !run.bisection && run.status == trunk::TestingStatus::failed && run.tested.size() > 1;
    r.verification_run_id = run.id;
    return r;
  };
  const std::string filter = request.id + "\n" + trunk::format_rfc3339(request.since) + "\n" +
                             (request.until ? trunk::format_rfc3339(*request.until) : "");
  return v2::page_reply(v2::page_of<trunk::TestingResultList>(results.size(), request, filter, result_of));
}

}  // namespace trunk::sandbox
