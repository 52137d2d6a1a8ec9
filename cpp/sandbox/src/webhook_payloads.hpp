#pragma once
// The webhook events a merge queue's transitions give, as Trunk sends them (docs/webhooks.md, "What the sandbox
// sends"): one pull_request.* event per change a subscriber can see, and one pull_request_batch.* event per
// batch that merges or reports a failure. The bodies are the typed event models of trunk/webhook_events.hpp,
// encoded by the same codec that reads them, so what the sandbox sends is what the SDK reads.
//
// Which transition gives which event:
//   submitted (the submission)                    pull_request.submitted
//   -> pending                                    pull_request.queued (with `reason` when it re-enters)
//   -> testing                                    pull_request.testing
//   -> merged                                     pull_request.merged (+ pull_request_batch.merged, batch)
//   -> pending_failure                            pull_request_batch.pending_failure (batch only)
//   -> failed                                     pull_request.failed (failure_reason)
//   -> cancelled                                  pull_request.canceled (cancellation_reason)
//   -> tests_passed                               none (Trunk publishes no such event)

#include <string>
#include <utility>
#include <vector>

#include "history.hpp"
#include "merge_queue.hpp"
#include "trunk/repo.hpp"
#include "trunk/time.hpp"

namespace trunk::sandbox {

/// One event to publish: its type's wire name, its JSON body, when it happened, and the key within which
/// deliveries keep their order (one pull request; a batch event shares its first member's).
struct OutgoingEvent {
  std::string type;
  std::string body;
  trunk::Timestamp at;
  std::string ordering_key;
  std::int64_t pr_number = 0;  ///< of a pull_request.* event; 0 for a batch event
};

/// Turns the transitions of one queue into events; remembers the last batch event, so a batch whose members
/// change state one after the other gives one batch event.
class QueueEventWriter {
 public:
  QueueEventWriter(trunk::Repo repo, std::string branch);
  /// Appends the events of `transition` (none, one or two) to `out`.
  void write(const Transition& transition, std::vector<OutgoingEvent>& out);

 private:
  trunk::Repo repo_;
  std::string branch_;
  std::pair<std::string, std::string> last_batch_;  ///< (run id, event type) of the last batch event
};

/// The events of a test whose health changed from `previous` to `now` at `at` (Sandbox::set_test_status), as a
/// detection monitor's verdict gives them: test_case.monitor_status_changed (the monitor activates, or resolves
/// when the test is healthy again), then v2.test_case.status_changed. The monitor is the sandbox's own (type
/// "sandbox"); its id is derived from the test's, so one test's events name one monitor.
std::vector<OutgoingEvent> test_status_events(const RepoHistory& repo, const TestRecord& test, Health previous,
                                              Health now, trunk::Timestamp at, const std::string& org_url_slug);

}  // namespace trunk::sandbox
