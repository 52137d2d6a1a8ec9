#pragma once
// trunk::twin::QueueHistory: what the twin is calibrated from, read from the service through v2 only
// (docs/twin.md, "From the history"): the queue's configuration now, its testing results over the window (at most
// 45 days: the service keeps no more), and the pull requests submitted in it with their latest queue entry.
// Plain data, so that a calibration can be tested on a history built by hand, and a history saved and replayed.

#include <string>
#include <vector>

#include "trunk/client.hpp"
#include "trunk/merge_queue_v2.hpp"
#include "trunk/pull_request_v2.hpp"
#include "trunk/testing_result.hpp"
#include "trunk/time.hpp"
#include "trunk/twin/queue_measures.hpp"

namespace trunk::twin {

struct QueueHistory {
  std::string queue_id;
  Timestamp since;
  Timestamp until;
  MergeQueue queue;                            ///< its configuration when the history was read
  std::vector<TestingResult> testing_results;  ///< testing that ended in [since, until]
  std::vector<PullRequestV2> pull_requests;    ///< submitted in [since, until), newest first
};

/// Reads a queue's history through `client` (which needs the v2 API key). Throws trunk::ValidationError naming
/// `since` when the window is empty or longer than 45 days (kTestingResultsWindow), before anything is sent; the
/// client's errors (ApiError, ...) as they come.
QueueHistory collect_queue_history(Client& client, const std::string& queue_id, Timestamp since, Timestamp until);

/// The history in the terms the twin's simulation also gives (queue_measures.hpp): each submission's latest
/// entry (when it was submitted, how and when it ended) and each run rebuilt from the testing results.
QueueRecord record_of(const QueueHistory& history);

}  // namespace trunk::twin
