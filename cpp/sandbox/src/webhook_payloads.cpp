#include "webhook_payloads.hpp"

#include <optional>

#include "identifiers.hpp"
#include "failure_model.hpp"
#include "trunk/codec.hpp"
#include "trunk/webhook_events.hpp"

namespace trunk::sandbox {

namespace {

using trunk::PullRequestState;

std::optional<trunk::QueueEventAction> action_of(const Transition& t) {
  if (t.submission) return trunk::QueueEventAction::submitted;
  switch (t.to) {
    case PullRequestState::pending: return trunk::QueueEventAction::queued;
    case PullRequestState::testing: return trunk::QueueEventAction::testing;
    case PullRequestState::merged: return trunk::QueueEventAction::merged;
    case PullRequestState::failed: return trunk::QueueEventAction::failed;
    case PullRequestState::cancelled: return trunk::QueueEventAction::canceled;
    default: return std::nullopt;
  }
}

/// "trunk-merge/pr-4209-4211/<run id>": the shape of Trunk's test branches.
std::string test_branch_of(const Transition& t) {
  std::string branch = "trunk-merge/pr";
  for (const std::int64_t number : t.tested_together) branch += "-" + std::to_string(number);
  return branch + "/" + t.run_id.substr(0, 8);
}

trunk::EventRepository repository_of(const trunk::Repo& repo) {
  trunk::EventRepository out;
  out.host = repo.host;
  out.owner = repo.owner;
  out.name = repo.name;
  return out;
}

trunk::WebhookEventType event_type_of(trunk::QueueEventAction action) {
  using trunk::QueueEventAction;
  using trunk::WebhookEventType;
  switch (action) {
    case QueueEventAction::submitted: return WebhookEventType::pull_request_submitted;
    case QueueEventAction::queued: return WebhookEventType::pull_request_queued;
    case QueueEventAction::testing: return WebhookEventType::pull_request_testing;
    case QueueEventAction::merged: return WebhookEventType::pull_request_merged;
    case QueueEventAction::failed: return WebhookEventType::pull_request_failed;
    case QueueEventAction::canceled: break;
  }
  return WebhookEventType::pull_request_canceled;
}

std::string type_name(trunk::WebhookEventType type) { return std::string(trunk::to_wire(type)); }

}  // namespace

QueueEventWriter::QueueEventWriter(trunk::Repo repo, std::string branch)
    : repo_(std::move(repo)), branch_(std::move(branch)) {}

void QueueEventWriter::write(const Transition& t, std::vector<OutgoingEvent>& out) {
  const std::string key = repo_.to_string() + "/" + branch_ + "#" + std::to_string(t.number);
  const bool tested = !t.run_id.empty() && (t.to == PullRequestState::testing || t.to == PullRequestState::merged ||
                                             t.to == PullRequestState::failed ||
                                             t.to == PullRequestState::pending_failure);
  const bool batch = tested && t.tested_together.size() > 1;
  const std::string sha = tested ? hex40(text_hash(t.run_id)).substr(0, 12) : std::string();

  std::optional<trunk::WebhookEventType> batch_type;
  if (batch && t.to == PullRequestState::merged) batch_type = trunk::WebhookEventType::pull_request_batch_merged;
  if (batch && t.to == PullRequestState::pending_failure) {
    batch_type = trunk::WebhookEventType::pull_request_batch_pending_failure;
  }
  if (batch_type && last_batch_ != std::pair{t.run_id, type_name(*batch_type)}) {
    last_batch_ = {t.run_id, type_name(*batch_type)};
    trunk::PullRequestBatchEvent event;
    event.type = *batch_type;
    event.timestamp = t.at;
    event.repository = repository_of(repo_);
    event.target_branch = branch_;
    event.test_branch = test_branch_of(t);
    event.test_branch_sha = sha;
    // The member pull requests: Trunk's field for them is unpublished; `pull_requests` is the sandbox's name.
    trunk::Json members = trunk::Json::array();
    for (const std::int64_t number : t.tested_together) members.push_back({{"pr_number", number}});
    event.extra = trunk::Json{{"pull_requests", std::move(members)}};
    out.push_back({type_name(*batch_type), trunk::encode(event), t.at, key, 0});
  }

  const std::optional<trunk::QueueEventAction> action = action_of(t);
  if (!action) return;
  const trunk::WebhookEventType type = event_type_of(*action);
  trunk::PullRequestEvent event;
  event.type = type;
  event.timestamp = t.at;
  event.action = *action;
  event.status = *action;
  event.author = t.author;
  event.pr_number = t.number;
  event.repository = repository_of(repo_);
  event.target_branch = branch_;
  event.http_details_url = "https://app.trunk.io/gh/" + repo_.owner + "/" + repo_.name + "/merge/" + branch_ + "/" +
                           std::to_string(t.number);
  event.batched = batch;
  event.is_bisection = t.queue_type == QueueType::bisection;
  if (tested) {
    event.test_branch = test_branch_of(t);
    event.test_branch_sha = sha;
  }
  if (*action == trunk::QueueEventAction::failed) event.failure_reason = std::string(t.reason);
  if (*action == trunk::QueueEventAction::canceled) event.cancellation_reason = std::string(t.reason);
  if (*action == trunk::QueueEventAction::queued && t.from != PullRequestState::not_ready) {
    event.reason = std::string(t.reason);  // why it re-entered the queue
  }
  out.push_back({type_name(type), trunk::encode(event), t.at, key, t.number});
}

namespace {

/// A UUID-shaped id derived from `seed` text (the same text, the same id).
std::string derived_uuid(std::string_view seed) {
  const std::string hex = hex40(text_hash(seed));
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-4" + hex.substr(13, 3) + "-a" + hex.substr(17, 3) + "-" +
         hex.substr(20, 12);
}

}  // namespace

std::vector<OutgoingEvent> test_status_events(const RepoHistory& repo, const TestRecord& test, Health previous,
                                              Health now, trunk::Timestamp at, const std::string& org_url_slug) {
  const std::string monitor_id = derived_uuid("monitor:" + test.id);
  const auto monitor_status = now == Health::healthy ? trunk::MonitorStatus::resolved : trunk::MonitorStatus::active;
  trunk::EventRepository repository;
  repository.id = derived_uuid("repository:" + repo.repo.to_string());
  repository.html_url = repo.html_url;
  // The event's test: who it is, not its rates (the fields Trunk's events carry).
  const trunk::TestCase full = to_test_case(repo, test, DerivedFacts{}, org_url_slug, false);
  trunk::TestCase identity;
  identity.id = full.id;
  identity.name = full.name;
  identity.classname = full.classname;
  identity.file_path = full.file_path;
  identity.html_url = full.html_url;
  identity.codeowners = full.codeowners;
  identity.quarantined = full.quarantined;
  identity.variant = test.variant;

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

  const std::string key = "test:" + test.id;
  return {{type_name(trunk::WebhookEventType::test_case_monitor_status_changed), trunk::encode(monitor_event), at, key, 0},
          {type_name(trunk::WebhookEventType::test_case_status_changed_v2), trunk::encode(status_event), at, key, 0}};
}

}  // namespace trunk::sandbox
