#include "webhook_payloads.hpp"

#include <algorithm>
#include <chrono>
#include <optional>

#include "identifiers.hpp"
#include "failure_model.hpp"
#include "trunk/codec.hpp"
#include "trunk/webhook_event_shapes.hpp"
#include "trunk/webhook_events.hpp"

namespace trunk::sandbox {

namespace {

using trunk::PullRequestState;
using trunk::QueueEventAction;

/// The pull request's own event for a transition; none for tests_passed.
std::optional<QueueEventAction> action_of(const Transition& t) {
  if (t.submission) return QueueEventAction::submitted;
  switch (t.to) {
    case PullRequestState::pending: return QueueEventAction::queued;
    case PullRequestState::testing: return QueueEventAction::testing;
    case PullRequestState::merged: return QueueEventAction::merged;
    case PullRequestState::failed: return QueueEventAction::failed;
    case PullRequestState::cancelled: return QueueEventAction::canceled;
    case PullRequestState::pending_failure: return QueueEventAction::pending_failure;
    case PullRequestState::not_ready:
    case PullRequestState::tests_passed: return std::nullopt;
  }
  return std::nullopt;
}

/// Whether the transition belongs to a test run: it starts one, or leaves a state that is part of one.
bool in_run(const Transition& t) {
  if (t.run_id.empty() || t.submission) return false;
  return t.to == PullRequestState::testing || part_of_a_run(t.from);
}

/// What a batch's event is, from one member's transition (webhook_payloads.hpp); nullopt: none.
std::optional<QueueEventAction> batch_action_of(const Transition& t) {
  if (!in_run(t) || t.tested_together.size() < 2) return std::nullopt;
  switch (t.to) {
    case PullRequestState::testing: return QueueEventAction::testing;
    case PullRequestState::pending_failure: return QueueEventAction::pending_failure;
    case PullRequestState::merged: return QueueEventAction::merged;
    case PullRequestState::failed: return QueueEventAction::failed;
    case PullRequestState::cancelled: return QueueEventAction::canceled;
    case PullRequestState::pending:
      // Split for bisection after its run failed: the batch failed. Otherwise it goes back to the line whole.
      return t.reason == reason::kBisectionRequired ? QueueEventAction::failed : QueueEventAction::queued;
    case PullRequestState::not_ready:
    case PullRequestState::tests_passed: return std::nullopt;
  }
  return std::nullopt;
}

bool ends_batch(QueueEventAction action) {
  return action == QueueEventAction::merged || action == QueueEventAction::failed ||
         action == QueueEventAction::canceled || action == QueueEventAction::queued;
}

trunk::QueueEventRepository repository_of(const trunk::Repo& repo) {
  trunk::QueueEventRepository out;
  out.host = repo.host;
  out.owner = repo.owner;
  out.name = repo.name;
  return out;
}

std::string type_name(trunk::WebhookEventType type) { return std::string(trunk::to_wire(type)); }

/// Events carry whole seconds, one form for every timestamp (as the publisher's examples: "...T14:15:22Z").
trunk::Timestamp event_time(trunk::Timestamp at) { return std::chrono::floor<std::chrono::seconds>(at); }

/// Sets the reason field the action gives (webhook_event_shapes.hpp), from the transition's reason; a reason
/// the published list does not hold is not sent.
template <typename Event>
void set_reason(Event& event, QueueEventAction action, std::string_view why) {
  switch (action) {
    case QueueEventAction::submitted:
      if (const auto r = trunk::enum_from_wire<trunk::SubmittedReason>(why)) event.submitted_reason = *r;
      break;
    case QueueEventAction::queued:
      if (const auto r = trunk::enum_from_wire<trunk::QueuedReason>(why)) event.queued_reason = *r;
      break;
    case QueueEventAction::merged:
      if (const auto r = trunk::enum_from_wire<trunk::MergedReason>(why)) event.merged_reason = *r;
      break;
    case QueueEventAction::failed:
    case QueueEventAction::pending_failure:
      if (const auto r = trunk::enum_from_wire<trunk::QueueFailureReason>(why)) event.failure_reason = *r;
      break;
    case QueueEventAction::canceled:
      if (const auto r = trunk::enum_from_wire<trunk::CancellationReason>(why)) event.cancellation_reason = *r;
      break;
    case QueueEventAction::testing: break;
  }
}

}  // namespace

QueueEventWriter::QueueEventWriter(trunk::Repo repo, std::string branch)
    : repo_(std::move(repo)), branch_(std::move(branch)) {}

void QueueEventWriter::write(const Transition& t, std::vector<OutgoingEvent>& out) {
  forget_ended(t.at);
  if (const auto batch_action = batch_action_of(t)) write_batch(t, *batch_action, out);

  const std::optional<QueueEventAction> action = action_of(t);
  if (!action) return;
  const trunk::event_shape::Action& shape = trunk::event_shape::action_shape(*action);
  const trunk::WebhookEventType type = trunk::event_shape::queue_event_type(false, *action);
  trunk::PullRequestEvent event;
  event.type = type;
  event.timestamp = event_time(t.at);
  event.action = *action;
  event.status = *action;
  event.author = t.author;
  event.pr_number = t.number;
  event.repository = repository_of(repo_);
  event.target_branch = branch_;
  event.http_details_url = "https://app.trunk.io/gh/" + repo_.owner + "/" + repo_.name + "/merge/" + branch_ + "/" +
                           std::to_string(t.number);
  if (shape.says_bisection) event.is_bisection = t.queue_type == QueueType::bisection;
  if (shape.follows_test_run && in_run(t)) {
    event.batched = t.tested_together.size() > 1;
    event.test_branch = t.test_branch;
    event.test_branch_sha = t.test_branch_sha;
    event.test_pr_number = t.test_pr_number;
  }
  set_reason(event, *action, t.reason);
  const std::string key = repo_.to_string() + "/" + branch_ + "#" + std::to_string(t.number);
  out.push_back({type_name(type), trunk::encode(event), t.at, key, t.number});
}

void QueueEventWriter::write_batch(const Transition& t, QueueEventAction action, std::vector<OutgoingEvent>& out) {
  BatchRecord& record = batches_[t.run_id];
  if (record.ended_at) return;  // nothing after a batch's end (its other members' transitions)
  if (std::find(record.sent.begin(), record.sent.end(), action) != record.sent.end()) return;
  if (action == QueueEventAction::pending_failure) record.failure = trunk::enum_from_wire<trunk::QueueFailureReason>(t.reason);
  if (ends_batch(action)) record.ended_at = t.at;

  const std::string key = repo_.to_string() + "/" + branch_ + "#" + std::to_string(t.tested_together.front());
  const auto send = [&](QueueEventAction step) {
    record.sent.push_back(step);
    const trunk::WebhookEventType type = trunk::event_shape::queue_event_type(true, step);
    trunk::PullRequestBatchEvent event;
    event.type = type;
    event.timestamp = event_time(t.at);
    event.action = step;
    event.status = step;
    event.pr_numbers = t.tested_together;
    event.pr_numbers_in_batch = t.tested_together;
    event.repository = repository_of(repo_);
    event.target_branch = branch_;
    event.test_branch = t.test_branch;
    event.test_branch_sha = t.test_branch_sha;
    event.test_pr_number = t.test_pr_number;
    if (trunk::event_shape::action_shape(step).says_bisection) event.is_bisection = t.bisection_run;
    if (step == QueueEventAction::submitted) {
      event.submitted_reason = trunk::SubmittedReason::api_requested;  // formed by the queue from submitted ones
    } else if (step == QueueEventAction::failed && t.to == PullRequestState::pending) {
      if (record.failure) event.failure_reason = *record.failure;  // the run's failure, not the bisection
    } else {
      set_reason(event, step, t.reason);
    }
    out.push_back({type_name(type), trunk::encode(event), t.at, key, 0});
  };
  // A batch is formed when its run starts: it is submitted and starts testing at once.
  if (action == QueueEventAction::testing) send(QueueEventAction::submitted);
  send(action);
}

void QueueEventWriter::forget_ended(trunk::Timestamp now) {
  // Its members' transitions follow a batch's end within the same step; an hour is far beyond that.
  std::erase_if(batches_, [&](const auto& entry) {
    return entry.second.ended_at && *entry.second.ended_at < now - std::chrono::hours(1);
  });
}

namespace {

/// A UUID-shaped id derived from `seed` text (the same text, the same id).
std::string derived_uuid(std::string_view seed) {
  const std::string hex = hex40(text_hash(seed));
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-4" + hex.substr(13, 3) + "-a" + hex.substr(17, 3) + "-" +
         hex.substr(20, 12);
}

/// A v2 name as the webhooks spell names (failureRate -> failure_rate, as their monitor_type's pass_on_retry).
std::string snake_case(std::string_view camel) {
  std::string out;
  for (const char c : camel) {
    if (c >= 'A' && c <= 'Z') {
      out += '_';
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  return out;
}

trunk::EventRepository event_repository(const RepoHistory& repo) {
  trunk::EventRepository repository;
  repository.id = derived_uuid("repository:" + repo.repo.to_string());
  repository.html_url = repo.html_url;
  return repository;
}

/// The test a flaky-test event names: who it is, not its rates (the fields Trunk's events carry).
trunk::TestCase event_test_identity(const RepoHistory& repo, const TestRecord& test, bool quarantined,
                                    const std::string& org_url_slug) {
  const trunk::TestCase full = to_test_case(repo, test, DerivedFacts{}, org_url_slug, false);
  trunk::TestCase identity;
  identity.id = full.id;
  identity.name = full.name;
  identity.classname = full.classname;
  identity.file_path = full.file_path;
  identity.html_url = full.html_url;
  identity.codeowners = full.codeowners;
  identity.quarantined = quarantined;
  identity.variant = test.variant;
  return identity;
}

}  // namespace

std::vector<OutgoingEvent> test_status_events(const RepoHistory& repo, const TestRecord& test, Health previous,
                                              const DerivedFacts& facts, bool quarantined, trunk::Timestamp at,
                                              const std::string& org_url_slug) {
  const Health now = facts.health;
  const std::string monitor_id = derived_uuid("monitor:" + test.id);
  const auto monitor_status = now == Health::healthy ? trunk::MonitorStatus::resolved : trunk::MonitorStatus::active;
  trunk::EventRepository repository = event_repository(repo);
  trunk::TestCase identity = event_test_identity(repo, test, quarantined, org_url_slug);

  trunk::TestCaseMonitorStatusChangedEvent monitor_event;
  monitor_event.type = trunk::WebhookEventType::test_case_monitor_status_changed;
  monitor_event.timestamp = at;
  trunk::Monitor monitor;
  monitor.id = monitor_id;
  monitor.type = "sandbox";
  monitor.status = monitor_status;
  monitor_event.monitor = std::move(monitor);
  monitor_event.evidence = trunk::Json{{"set_by", "set_test_status"}, {"health", health_wire(now)}};
  monitor_event.repository = repository;
  monitor_event.test_case = identity;

  trunk::TestCaseStatusChangedEvent status_event;
  status_event.type = trunk::WebhookEventType::test_case_status_changed_v2;
  status_event.timestamp = at;
  status_event.previous_status = status_of(previous);
  status_event.new_status = status_of(now);
  trunk::StatusTrigger trigger;
  trigger.monitor_id = monitor_id;
  trigger.monitor_type = "sandbox";
  trigger.monitor_status = monitor_status;
  status_event.triggered_by = std::move(trigger);
  status_event.repository = std::move(repository);
  status_event.test_case = std::move(identity);

  // The earlier form: the whole test case as the API reports it now, and its status before and after.
  trunk::LegacyTestCaseStatusChangedEvent legacy;
  legacy.type = trunk::WebhookEventType::test_case_status_changed;
  trunk::TestCase whole = to_test_case(repo, test, facts, org_url_slug, true);
  whole.quarantined = quarantined;
  trunk::LegacyStatusChange change;
  change.previous_status = trunk::OpenEnum<trunk::TestHealth>::from_wire(health_wire(previous));
  change.current_status = whole.status;
  legacy.status_change = std::move(change);
  legacy.test_case = std::move(whole);

  const std::string key = "test:" + test.id;
  return {{type_name(trunk::WebhookEventType::test_case_monitor_status_changed), trunk::encode(monitor_event), at, key, 0},
          {type_name(trunk::WebhookEventType::test_case_status_changed_v2), trunk::encode(status_event), at, key, 0},
          {type_name(trunk::WebhookEventType::test_case_status_changed), trunk::encode(legacy), at, key, 0}};
}

OutgoingEvent muted_status_event(const RepoHistory& repo, const TestRecord& test, Health previous,
                                 const DerivedFacts& now, bool quarantined, const std::string& monitor_id,
                                 trunk::MonitorType monitor_type, trunk::Timestamp at, const std::string& org_url_slug) {
  trunk::TestCaseStatusChangedEvent event;
  event.type = trunk::WebhookEventType::test_case_status_changed_v2;
  event.timestamp = at;
  event.previous_status = status_of(previous);
  event.new_status = status_of(now.health);
  trunk::StatusTrigger trigger;
  trigger.monitor_id = monitor_id;
  trigger.monitor_type = snake_case(trunk::to_wire(monitor_type));
  // Muted for this test, the monitor no longer holds its status: as if it had resolved (the published values of
  // monitor_status are active and resolved).
  trigger.monitor_status = trunk::MonitorStatus::resolved;
  event.triggered_by = std::move(trigger);
  event.repository = event_repository(repo);
  event.test_case = event_test_identity(repo, test, quarantined, org_url_slug);
  return {type_name(trunk::WebhookEventType::test_case_status_changed_v2), trunk::encode(event), at,
          "test:" + test.id, 0};
}

namespace {

trunk::QuarantiningSetting setting_of(const std::optional<QuarantineOverride>& override) {
  if (!override) return trunk::QuarantiningSetting::unspecified;
  return override->always ? trunk::QuarantiningSetting::always_quarantine : trunk::QuarantiningSetting::never_quarantine;
}

}  // namespace

OutgoingEvent quarantine_setting_event(const RepoHistory& repo, const TestRecord& test, const DerivedFacts& facts,
                                       const std::optional<QuarantineOverride>& before,
                                       const std::optional<QuarantineOverride>& after, trunk::Timestamp at,
                                       const std::string& org_url_slug) {
  trunk::QuarantineSettingChange change;
  change.actor = trunk::Actor{std::string(kSandboxPersonEmail), std::string(kSandboxPersonName), {}};
  change.previous_quarantining_setting = setting_of(before);
  change.updated_quarantining_setting = setting_of(after);
  if (after && after->reason) change.reason = *after->reason;
  change.timestamp = at;
  trunk::TestCaseQuarantiningSettingChangedEvent event;
  event.type = trunk::WebhookEventType::test_case_quarantining_setting_changed;
  event.quarantine_setting_changed = std::move(change);
  event.test_case = to_test_case(repo, test, facts, org_url_slug, true);
  event.test_case->quarantined = is_quarantined(test, after);
  trunk::Json json = trunk::to_json(event);
  // The published example gives a reason as null when the person gave none.
  if (!after || !after->reason) json["quarantine_setting_changed"]["reason"] = nullptr;
  return {type_name(trunk::WebhookEventType::test_case_quarantining_setting_changed), json.dump(), at,
          "test:" + test.id, 0};
}

}  // namespace trunk::sandbox
