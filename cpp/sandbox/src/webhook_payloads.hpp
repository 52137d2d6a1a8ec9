#pragma once
// The webhook events a merge queue's transitions give, as Trunk sends them (docs/webhooks.md, "What the sandbox
// sends"): one pull_request.* event per change a subscriber can see, and one pull_request_batch.* event per
// batch that merges or reports a failure. The bodies are the typed event models of trunk/webhook_events.hpp,
// encoded by the same codec that reads them, so what the sandbox sends is what the SDK reads.
//
// Which transition gives which event (the fields each carries: trunk/webhook_event_shapes.hpp):
//   submitted (the submission)            pull_request.submitted (submitted_reason)
//   -> pending                            pull_request.queued (queued_reason)
//   -> testing                            pull_request.testing
//   -> merged                             pull_request.merged (merged_reason)
//   -> pending_failure                    pull_request.pending_failure (failure_reason)
//   -> failed                             pull_request.failed (failure_reason)
//   -> cancelled                          pull_request.canceled (cancellation_reason)
//   -> tests_passed                       none (Trunk publishes no such event)
// A run of more than one pull request (a batch, or a bisection's half) is a batch, and its events follow its
// members' first transition of each kind: submitted then testing when its run starts, pending_failure when the
// run fails, then one end: merged; failed (its failure sends it to bisection, queued_reason BISECTION_REQUIRED);
// canceled (a member was cancelled); or queued (it goes back to the line whole: a restart, an urgent pull
// request, a failure ahead, or a bisection's half that passed). Nothing more is sent for a batch that ended.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "history.hpp"
#include "merge_queue.hpp"
#include "quarantine_override.hpp"
#include "trunk/repo.hpp"
#include "trunk/time.hpp"
#include "trunk/webhook_events.hpp"

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

/// Turns the transitions of one queue into events; remembers what it sent for each batch (by run), so that a
/// batch whose members change state one after the other gives one event per step of the batch.
class QueueEventWriter {
 public:
  QueueEventWriter(trunk::Repo repo, std::string branch);
  /// Appends the events of `transition` (none, one or more) to `out`.
  void write(const Transition& transition, std::vector<OutgoingEvent>& out);

 private:
  struct BatchRecord {
    std::vector<trunk::QueueEventAction> sent;
    std::optional<trunk::QueueFailureReason> failure;  ///< from its pending_failure, for its failed
    std::optional<trunk::Timestamp> ended_at;
  };
  void write_batch(const Transition& t, trunk::QueueEventAction action, std::vector<OutgoingEvent>& out);
  void forget_ended(trunk::Timestamp now);

  trunk::Repo repo_;
  std::string branch_;
  std::map<std::string, BatchRecord> batches_;  ///< by run id; an ended batch is kept a while, then forgotten
};

/// The events of a test whose health changed from `previous` at `at` (Sandbox::set_test_status; `now`: what the
/// API reports of it from then on), as a detection monitor's verdict gives them: test_case.monitor_status_changed
/// (the monitor activates, or resolves when the test is healthy again), v2.test_case.status_changed, then the
/// earlier form test_case.status_changed with the whole test case, as Trunk's schema for it publishes it. The
/// monitor is the sandbox's own (type "sandbox"); its id is derived from the test's, so one test's events name
/// one monitor.
std::vector<OutgoingEvent> test_status_events(const RepoHistory& repo, const TestRecord& test, Health previous,
                                              const DerivedFacts& now, bool quarantined, trunk::Timestamp at,
                                              const std::string& org_url_slug);

/// v2.test_case.status_changed for a test whose status a mute of `monitor_id` changed from `previous` at `at`
/// (v2's POST /v2/monitors/{monitorId}/tests/{testId}/mute; `now`: what the API reports of it from then on). Only
/// that event: the monitor's own verdict did not change, so no test_case.monitor_status_changed, and Trunk's docs
/// name only this one for a mute.
OutgoingEvent muted_status_event(const RepoHistory& repo, const TestRecord& test, Health previous,
                                 const DerivedFacts& now, bool quarantined, const std::string& monitor_id,
                                 trunk::MonitorType monitor_type, trunk::Timestamp at, const std::string& org_url_slug);

/// The person the sandbox's web-app changes are made by (Sandbox::set_quarantine), as events name them.
inline constexpr std::string_view kSandboxPersonEmail = "sandbox.person@example.com";
inline constexpr std::string_view kSandboxPersonName = "Sandbox Person";

/// test_case.quarantining_setting_changed for a person's change of a test's quarantine override from `before` to
/// `after` (nullopt: none, UNSPECIFIED on the wire) at `at` (Sandbox::set_quarantine). Its test_case is the whole
/// test as v1 reports it then (`facts`), quarantined as the new override leaves it. Trunk's docs say a change made
/// through the API sends no such event yet, so v2's POST /v2/tests/{testId}/quarantine sends none.
OutgoingEvent quarantine_setting_event(const RepoHistory& repo, const TestRecord& test, const DerivedFacts& facts,
                                       const std::optional<QuarantineOverride>& before,
                                       const std::optional<QuarantineOverride>& after, trunk::Timestamp at,
                                       const std::string& org_url_slug);

}  // namespace trunk::sandbox
