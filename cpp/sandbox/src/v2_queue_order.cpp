// The sandbox's v2 dispatch order and dependency graph (docs/sandbox.md#v2), from the queue simulation as it
// stands (MergeQueue::order): the train's units in order and the bisection runs in progress (batches), the pending
// line (held behind a failed unit it may not be tested on top of), what is not ready or waits for impacted targets
// (awaiting admission); the graph's edges are each unit tested directly on top of another: one chain in queue
// mode, lanes in graph mode.
#include <algorithm>
#include <map>
#include <set>

#include "identifiers.hpp"
#include "trunk/codec.hpp"
#include "trunk/operations.hpp"
#include "v2_answers.hpp"
#include "v2_service.hpp"

namespace trunk::sandbox {

namespace {

/// What the order and the graph know of each pull request of the queue, by number (its latest entry).
struct QueueNow {
  MergeQueue::OrderView order;
  std::map<std::int64_t, MergeQueue::EntryView> entries;
  trunk::QueueSettings settings;
};

}  // namespace

template <>
Reply V2Service::answer<trunk::op::GetMergeQueueOrder>(const trunk::MergeQueueRef& request) {
  const std::optional<QueueKey> key = find_queue(request.id);
  if (!key) return v2_error(404, "MERGE_QUEUE_NOT_FOUND", "no merge queue has the id " + request.id);
  const std::string repo_key = key->repo.to_string();
  QueueNow now;
  queues_.with_queue(key->repo, key->branch, [&](MergeQueue& queue, const trunk::QueueSettings& settings) {
    now.order = queue.order();
    for (MergeQueue::EntryView& e : queue.entries()) now.entries[e.number] = std::move(e);
    now.settings = settings;
    return 0;
  });
  const auto brief = [&](std::int64_t number) {
    const MergeQueue::EntryView& e = now.entries.at(number);
    trunk::PullRequestBrief b;
    b.id = pull_request_id(repo_key, number);
    b.number = number;
    b.sha = e.sha;
    b.title = e.title;
    b.url = "/v2/pull-requests/" + *b.id;
    return b;
  };
  trunk::MergeQueueOrder order;
  order.mode = now.order.parallel ? trunk::MergeQueueMode::graph : trunk::MergeQueueMode::queue;
  order.queue_state = trunk::to_v2(v2::known(now.settings.state).value_or(trunk::QueueState::running));
  order.batching_enabled = now.settings.batch.value_or(false);
  order.isolation_resolved = true;
  order.has_cycle = false;
  std::vector<trunk::OrderedBatch>& batches = order.batches.emplace();
  for (const auto& unit : now.order.batches) {
    trunk::OrderedBatch& batch = batches.emplace_back();
    batch.verification_run_id = unit.run_id;
    batch.state = trunk::to_v2(unit.state);
    batch.is_bisection = unit.bisection;
    std::vector<trunk::PullRequestBrief>& prs = batch.pull_requests.emplace();
    for (const std::int64_t n : unit.numbers) prs.push_back(brief(n));
  }
  std::vector<trunk::OrderedPendingItem>& pending = order.pending.emplace();
  for (std::size_t i = 0; i < now.order.line.size(); ++i) {
    const auto& item = now.order.line[i];
    trunk::OrderedPendingItem& out = pending.emplace_back();
    out.pull_request = brief(item.number);
    out.schedulability = item.held_by.empty() ? trunk::PendingSchedulability::schedulable
                                              : trunk::PendingSchedulability::held_behind_failure;
    std::vector<trunk::PullRequestBrief>& ahead = out.directly_ahead.emplace();
    if (i > 0) ahead.push_back(brief(now.order.line[i - 1].number));
    std::vector<trunk::PullRequestBrief>& held = out.held_by.emplace();
    for (const std::int64_t n : item.held_by) held.push_back(brief(n));
  }
  std::vector<trunk::PullRequestBrief>& awaiting = order.awaiting_admission.emplace();
  for (const std::int64_t n : now.order.awaiting) awaiting.push_back(brief(n));
  order.awaiting_admission_total = static_cast<std::int64_t>(now.order.awaiting.size());
  return json_reply(trunk::to_json(order));
}

template <>
Reply V2Service::answer<trunk::op::GetMergeQueueGraph>(const trunk::MergeGraphRequest& request) {
  const std::optional<QueueKey> key = find_queue(request.id);
  if (!key) return v2_error(404, "MERGE_QUEUE_NOT_FOUND", "no merge queue has the id " + request.id);
  QueueNow now;
  queues_.with_queue(key->repo, key->branch, [&](MergeQueue& queue, const trunk::QueueSettings&) {
    now.order = queue.order();
    for (MergeQueue::EntryView& e : queue.entries()) now.entries[e.number] = std::move(e);
    return 0;
  });
  const bool with_targets = request.include_impacted_targets.value_or(false);
  trunk::MergeGraph graph;
  std::vector<trunk::MergeGraphNode>& nodes = graph.nodes.emplace();
  std::vector<trunk::MergeGraphEdge>& edges = graph.edges.emplace();
  std::map<std::int64_t, const MergeQueue::OrderView::Batch*> unit_of;
  for (const auto& unit : now.order.batches) {
    for (const std::int64_t n : unit.numbers) unit_of[n] = &unit;
  }
  const auto node = [&](std::int64_t number) {
    const MergeQueue::EntryView& e = now.entries.at(number);
    trunk::MergeGraphNode& out = nodes.emplace_back();
    out.pull_request_number = number;
    out.title = e.title;
    out.author = e.author;
    out.state = trunk::to_v2(e.state);
    out.priority_value = e.priority_value;
    out.priority_name = e.priority_name;
    out.skips_the_line = e.priority_value == 0;
    out.allows_batching = !e.no_batch;
    const auto unit = unit_of.find(number);
    out.is_bisection = unit != unit_of.end() && unit->second->bisection;
    if (unit != unit_of.end()) out.verification_run_id = unit->second->run_id;
    if (with_targets && e.targets) {
      out.impacted_targets = e.all_targets ? std::vector<std::string>{} : *e.targets;
      out.total_impacted_targets = static_cast<std::int64_t>(out.impacted_targets->size());
    }
  };
  std::set<std::int64_t> shown;
  for (const auto& unit : now.order.batches) {
    for (const std::int64_t n : unit.numbers) {
      if (shown.insert(n).second) node(n);
    }
  }
  for (const auto& item : now.order.line) {
    if (shown.insert(item.number).second) node(item.number);
  }
  for (const std::int64_t n : now.order.awaiting) {
    if (shown.insert(n).second) node(n);
  }
  for (const auto& unit : now.order.batches) {
    for (const std::int64_t to : unit.numbers) {
      for (const std::int64_t from : unit.on_top_of) {
        trunk::MergeGraphEdge& edge = edges.emplace_back();
        edge.from_pull_request_number = from;
        edge.to_pull_request_number = to;
        if (!with_targets) continue;
        const auto& a = now.entries.at(from);
        const auto& b = now.entries.at(to);
        std::vector<std::string> common;
        if (a.targets && b.targets && !a.all_targets && !b.all_targets) {
          std::vector<std::string> x = *a.targets, y = *b.targets;
          std::sort(x.begin(), x.end());
          std::sort(y.begin(), y.end());
          std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(common));
        }
        edge.total_common_impacted_targets = static_cast<std::int64_t>(common.size());
        edge.common_impacted_targets = std::move(common);
      }
    }
  }
  return json_reply(trunk::to_json(graph));
}

}  // namespace trunk::sandbox
