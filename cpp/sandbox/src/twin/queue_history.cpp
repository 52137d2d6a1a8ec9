#include "trunk/twin/queue_history.hpp"

#include "trunk/error.hpp"
#include "trunk/operations.hpp"

namespace trunk::twin {

QueueHistory collect_queue_history(Client& client, const std::string& queue_id, Timestamp since, Timestamp until) {
  if (until <= since || until - since > kTestingResultsWindow) {
    throw ValidationError({{"since", format_rfc3339(since),
                            "must be before until (" + format_rfc3339(until) + ") and at most 45 days before it"}});
  }
  QueueHistory history;
  history.queue_id = queue_id;
  history.since = since;
  history.until = until;
  MergeQueueRef ref;
  ref.id = queue_id;
  history.queue = client.get_merge_queue(ref);

  ListTestingResultsRequest results;
  results.id = queue_id;
  results.since = since;
  results.until = until;
  for (const TestingResult& r : client.pager<op::ListTestingResults>(results)) history.testing_results.push_back(r);

  // Newest submission first: once an entry was submitted before the window, so were all the rest.
  ListQueuePullRequestsRequest pulls;
  pulls.id = queue_id;
  for (const PullRequestV2& pr : client.pager<op::ListMergeQueuePullRequests>(pulls)) {
    const auto submitted = pr.queue_entry ? pr.queue_entry->created_at : std::nullopt;
    if (submitted && *submitted < since) break;
    if (submitted && *submitted >= until) continue;
    history.pull_requests.push_back(pr);
  }
  return history;
}

}  // namespace trunk::twin
