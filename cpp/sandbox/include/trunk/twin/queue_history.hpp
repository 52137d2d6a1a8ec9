#pragma once
// trunk::twin::QueueHistory: what the twin is calibrated from, read from the service (docs/twin.md, "From the
// history"): the queue's configuration now, its testing results over the window (at most 45 days: the service
// keeps no more), the pull requests submitted in it with their latest queue entry, and a sample of its runs
// fetched one by one for their impacted targets (a run's targets come only by id, never in a list, so reading them
// all would cost a request per run).
// Read through v2, or through v1 for a team on a v1 token (collect_queue_history_v1): v1's rows are read as v2
// shows the same things (the migration guide's mapping), so one calibration serves both; what v1 cannot say is
// marked by `source` (docs/twin.md, "From a v1 history").
// Plain data, so that a calibration can be tested on a history built by hand, and a history saved and replayed.

#include <string>
#include <vector>

#include "trunk/client.hpp"
#include "trunk/queue_settings.hpp"
#include "trunk/repo.hpp"
#include "trunk/merge_queue_v2.hpp"
#include "trunk/pull_request_v2.hpp"
#include "trunk/testing_result.hpp"
#include "trunk/time.hpp"
#include "trunk/verification_run.hpp"
#include "trunk/twin/queue_measures.hpp"

namespace trunk::twin {

/// Which API a history was read through. v1 gives no submission times: each pull request's is taken as the start
/// of its first test, so the time it waited before that is not seen, one never tested is not counted, and time
/// in queue cannot be backtested.
enum class HistorySource { v2, v1 };

struct QueueHistory {
  std::string queue_id;                        ///< v2's id; from v1, "host/owner/name main" (repository and branch)
  HistorySource source = HistorySource::v2;
  Timestamp since;
  Timestamp until;
  QueueSettings settings;                      ///< its configuration when the history was read, as the twin replays it
  MergeQueue queue;                            ///< from v2, the queue as read (created, last changed); from v1, empty
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

/// Reads a v1 queue's history through `client` (which needs the v1 API token): getQueue, listPullRequests
/// (concluded in the window), listMergeQueueTestingResults, and up to target_sample runs of one pull request by
/// getMergeQueueTestingDetails for their impacted targets. Each row is read as v2 would show it; a pull request's
/// submission is the start of its first test in the window (HistorySource::v1). Throws as collect_queue_history.
QueueHistory collect_queue_history_v1(Client& client, const Repo& repo, const std::string& target_branch,
                                      Timestamp since, Timestamp until, std::size_t target_sample = kTargetSample);

/// The history in the terms the twin's simulation also gives (queue_measures.hpp): each submission's latest
/// entry (when it was submitted, how and when it ended) and each run rebuilt from the testing results.
QueueRecord record_of(const QueueHistory& history);

}  // namespace trunk::twin
