#pragma once
// Which permission each v2 operation needs of the API key that calls it (docs/sandbox.md#api-keys): the sandbox's
// reading of Trunk's docs, which name the permissions but not every operation's. Reads need none. A write needs the
// permission of what it does, and of each option it uses: a submission with a priority also needs set_priority,
// one that may not be batched skip_batching, a direct one direct_to_queue. Every operation not specialised here
// needs none.

#include <vector>

#include "trunk/operations.hpp"
#include "trunk/sandbox/permissions.hpp"

namespace trunk::sandbox {

template <typename Op>
std::vector<Permission> needed_permissions(const typename Op::Request&) {
  return {};
}

namespace permissions_detail {
/// The permissions of a queue entry's options: a priority, no batching, a direct merge.
template <typename Request>
void add_entry_options(const Request& request, std::vector<Permission>& out) {
  if (request.priority_value || request.priority_name) out.push_back(Permission::set_priority);
  if (request.allow_batching == false) out.push_back(Permission::skip_batching);
  if (request.direct == true) out.push_back(Permission::direct_to_queue);
}
}  // namespace permissions_detail

// Changing a queue's settings or state.
#define TRUNK_NEEDS_SETTINGS_(Type)                                                                                \
  template <>                                                                                                     \
  inline std::vector<Permission> needed_permissions<trunk::op::Type>(const trunk::op::Type::Request&) {          \
    return {Permission::update_merge_queue_settings};                                                             \
  }
TRUNK_NEEDS_SETTINGS_(CreateMergeQueue)
TRUNK_NEEDS_SETTINGS_(DeleteMergeQueue)
TRUNK_NEEDS_SETTINGS_(PauseMergeQueue)
TRUNK_NEEDS_SETTINGS_(ResumeMergeQueue)
TRUNK_NEEDS_SETTINGS_(DrainMergeQueue)
TRUNK_NEEDS_SETTINGS_(SwitchMergeQueueMode)
TRUNK_NEEDS_SETTINGS_(UpdateMergeQueueConfig)
#undef TRUNK_NEEDS_SETTINGS_

// Putting pull requests into a queue, taking them out, testing them again, reporting what they impact.
#define TRUNK_NEEDS_MERGE_AND_CANCEL_(Type)                                                                       \
  template <>                                                                                                     \
  inline std::vector<Permission> needed_permissions<trunk::op::Type>(const trunk::op::Type::Request&) {          \
    return {Permission::merge_and_cancel_prs};                                                                    \
  }
TRUNK_NEEDS_MERGE_AND_CANCEL_(DequeuePullRequest)
TRUNK_NEEDS_MERGE_AND_CANCEL_(RestartPullRequestTests)
TRUNK_NEEDS_MERGE_AND_CANCEL_(UploadImpactedTargets)
#undef TRUNK_NEEDS_MERGE_AND_CANCEL_

template <>
inline std::vector<Permission> needed_permissions<trunk::op::SubmitToMergeQueue>(
    const trunk::SubmitPullRequestRequestV2& request) {
  std::vector<Permission> out{Permission::merge_and_cancel_prs};
  permissions_detail::add_entry_options(request, out);
  return out;
}

// Linking a ticket to a test (Trunk's changelog of 2026-11-16: "Link tickets").
template <>
inline std::vector<Permission> needed_permissions<trunk::op::LinkTicketToTest>(const trunk::LinkTicketRequest&) {
  return {Permission::link_tickets};
}

// Setting or clearing a test's quarantine override ("Quarantine tests").
template <>
inline std::vector<Permission> needed_permissions<trunk::op::SetTestQuarantine>(const trunk::SetTestQuarantineRequest&) {
  return {Permission::quarantine_tests};
}

// Muting a monitor for a test ("Mute monitors").
template <>
inline std::vector<Permission> needed_permissions<trunk::op::MuteMonitorForTest>(const trunk::MuteMonitorForTestRequest&) {
  return {Permission::mute_monitors};
}

template <>
inline std::vector<Permission> needed_permissions<trunk::op::ReprioritizePullRequest>(
    const trunk::ReprioritizeRequest&) {
  return {Permission::set_priority};
}

// A change of an entry: each option it changes, whichever way (batching allowed again is a change of batching).
template <>
inline std::vector<Permission> needed_permissions<trunk::op::UpdateQueueEntry>(
    const trunk::UpdateQueueEntryRequest& request) {
  std::vector<Permission> out;
  if (request.priority_value || request.priority_name) out.push_back(Permission::set_priority);
  if (request.allow_batching) out.push_back(Permission::skip_batching);
  if (request.direct) out.push_back(Permission::direct_to_queue);
  return out;
}

}  // namespace trunk::sandbox
