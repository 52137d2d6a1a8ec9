#pragma once
// trunk::twin::QueueHistory: what the twin is calibrated from, read from the service through v2 only
// (docs/twin.md, "From the history"): the queue's configuration now, its testing results over the window (at most
// 45 days: the service keeps no more), the pull requests submitted in it with their latest queue entry, and a
// sample of its runs fetched one by one for their impacted targets (v2 gives a run's targets only by id, never in
// a list, so reading them all would cost a request per run).
// Plain data, so that a calibration can be tested on a history built by hand, and a history saved and replayed.

#include <string>
#include <vector>

#include "trunk/client.hpp"
#include "trunk/merge_queue_v2.hpp"
#include "trunk/pull_request_v2.hpp"
#include "trunk/testing_result.hpp"
#include "trunk/time.hpp"
#include "trunk/verification_run.hpp"
#include "trunk/twin/queue_measures.hpp"

namespace trunk::twin {

struct QueueHistory {
  std::string queue_id;
  Timestamp since;
  Timestamp until;
  MergeQueue queue;                            ///< its configuration when the history was read
  std::vector<TestingResult> testing_results;  ///< testing that ended in [since, until]
  std::vector<PullRequestV2> pull_requests;    ///< submitted in [since, until), newest first
  /// Runs that tested one pull request (not bisections), fetched by id for their impacted targets: at most
  /// kTargetSample, spread evenly over the window.
  std::vector<VerificationRun> sampled_runs;
};

/// How many runs collect_queue_history fetches for their impacted targets: enough for each target's share within
/// about ±7 points (a Wilson interval from 200), at 200 requests.
inline constexpr std::size_t kTargetSample = 200;

/// Reads a queue's history through `client` (which needs the v2 API key). Throws trunk::ValidationError naming
/// `since` when the window is empty or longer than 45 days (kTestingResultsWindow), before anything is sent; the
/// client's errors (ApiError, ...) as they come.
QueueHistory collect_queue_history(Client& client, const std::string& queue_id, Timestamp since, Timestamp until,
                                   std::size_t target_sample = kTargetSample);

/// The history in the terms the twin's simulation also gives (queue_measures.hpp): each submission's latest
/// entry (when it was submitted, how and when it ended) and each run rebuilt from the testing results.
QueueRecord record_of(const QueueHistory& history);

}  // namespace trunk::twin
