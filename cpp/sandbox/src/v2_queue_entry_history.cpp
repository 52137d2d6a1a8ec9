// The sandbox's v2 queue-entry history (docs/sandbox.md#v2): every state each submission of a pull request has been
// in, from the simulation's record, with the reason codes the webhooks use (null for testing and pendingFailure, as
// v2 sends). For one pull request (its entries in any queue of its repository, oldest first) or for up to 50; the
// batch never answers 404: an unknown id gets an empty history.
#include <algorithm>

#include "identifiers.hpp"
#include "trunk/codec.hpp"
#include "trunk/operations.hpp"
#include "v2_answers.hpp"
#include "v2_service.hpp"

namespace trunk::sandbox {

std::vector<trunk::QueueEntryStateTransition> V2Service::transitions_of(const std::string& pr_id,
                                                                        const std::vector<Entry>& entries,
                                                                        std::optional<trunk::HistoryDirection> direction) {
  std::vector<trunk::QueueEntryStateTransition> out;
  for (const Entry& entry : entries) {
    for (const MergeQueue::EntryView::Step& step : entry.view.steps) {
      trunk::QueueEntryStateTransition& t = out.emplace_back();
      t.pull_request_id = pr_id;
      t.state = trunk::to_v2(step.state);
      t.changed_at = step.at;
      const bool reasonless =
          step.state == trunk::PullRequestState::testing || step.state == trunk::PullRequestState::pending_failure;
      if (!reasonless) t.reason = std::string(step.reason);
      if (step.state != trunk::PullRequestState::not_ready && step.state != trunk::PullRequestState::pending) {
        t.verification_run_id = step.run_id;
      }
      if (step.state == trunk::PullRequestState::not_ready) {
        trunk::NotReadyTransitionDetails& details = t.not_ready.emplace();
        details.priority_value = entry.view.priority_value;
        details.priority_name = entry.view.priority_name;
        details.allow_batching = !entry.view.no_batch;
      }
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return *a.changed_at < *b.changed_at; });
  if (direction == trunk::HistoryDirection::newest) std::reverse(out.begin(), out.end());
  return out;
}

namespace {
/// A transition's reason is null where v2 sends null: the JSON of a page, with those nulls written.
trunk::Json with_null_reasons(trunk::Json transitions) {
  for (trunk::Json& t : transitions) {
    if (!t.contains("reason")) t["reason"] = nullptr;
  }
  return transitions;
}

template <typename List>
Reply history_reply(const std::variant<List, Reply>& page);

template <>
Reply history_reply(const std::variant<trunk::QueueEntryHistoryList, Reply>& page) {
  Reply reply = v2::page_reply(page);
  if (std::holds_alternative<Reply>(page)) return reply;
  trunk::Json json = trunk::Json::parse(reply.body);
  json["data"] = with_null_reasons(std::move(json["data"]));
  return json_reply(json);
}

template <>
Reply history_reply(const std::variant<trunk::BatchQueueEntryHistoryList, Reply>& page) {
  Reply reply = v2::page_reply(page);
  if (std::holds_alternative<Reply>(page)) return reply;
  trunk::Json json = trunk::Json::parse(reply.body);
  for (trunk::Json& group : json["data"]) group["transitions"] = with_null_reasons(std::move(group["transitions"]));
  return json_reply(json);
}
}  // namespace

template <>
Reply V2Service::answer<trunk::op::ListQueueEntryHistory>(const trunk::QueueEntryHistoryRequest& request) {
  const auto pr = find_pull_request(request.id);
  if (!pr) return v2_error(404, "PR_NOT_FOUND", "no pull request has the id " + request.id);
  auto transitions = transitions_of(lower(request.id), entries_of(pr->repo, pr->number), request.direction);
  const std::string filter =
      lower(request.id) + "\n" + (request.direction ? std::string(trunk::to_wire(*request.direction)) : "");
  return history_reply(v2::page_of<trunk::QueueEntryHistoryList>(std::move(transitions), request, filter));
}

template <>
Reply V2Service::answer<trunk::op::ListQueueEntryHistories>(const trunk::BatchQueueEntryHistoryRequest& request) {
  std::vector<std::string> ids;  // each once, in the order asked
  for (const std::string& id : request.pull_request_ids) {
    if (std::find(ids.begin(), ids.end(), lower(id)) == ids.end()) ids.push_back(lower(id));
  }
  std::vector<trunk::PullRequestQueueEntryHistory> all;
  std::string filter;
  for (const std::string& id : ids) {
    filter += id + ",";
    trunk::PullRequestQueueEntryHistory& history = all.emplace_back();
    history.pull_request_id = id;
    history.transitions.emplace();
    if (const auto pr = find_pull_request(id)) {
      history.transitions = transitions_of(id, entries_of(pr->repo, pr->number), request.direction);
    }
  }
  filter += "\n" + (request.direction ? std::string(trunk::to_wire(*request.direction)) : "");
  return history_reply(v2::page_of<trunk::BatchQueueEntryHistoryList>(std::move(all), request, filter));
}

}  // namespace trunk::sandbox
