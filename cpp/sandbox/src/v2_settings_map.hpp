#pragma once
// Which v1 queue setting each v2 configuration field is, one row each: (the member of v1's QueueSettings and
// UpdateQueueRequest, the member of v2's MergeQueueConfig and UpdateMergeQueueConfigRequest). Both directions read
// the rows: a queue as v2 shows it (V2Service::to_merge_queue) and a v2 PATCH as v1's update (answer of
// UpdateMergeQueueConfig), so a setting is named once for the two. The fields whose values differ between the
// versions (optimization mode, merge method: to_v2 / to_v1 in trunk/v2_enums.hpp) and v2's own (kept beside the
// queue store, V2OnlySettings) are mapped where they are used.
//
//   X(v1 member, v2 member)
#define TRUNK_V2_SETTING_PAIRS(X)                                       \
  X(concurrency, concurrency)                                           \
  X(bisection_concurrency, bisection_concurrency)                       \
  X(pending_failure_depth, pending_failure_depth)                       \
  X(can_optimistically_merge, can_optimistically_merge)                 \
  X(batch, allow_batching)                                              \
  X(batching_max_wait_time_minutes, batching_max_wait_time_minutes)     \
  X(batching_min_size, batching_min_size)                               \
  X(testing_timeout_minutes, testing_timeout_minutes)                   \
  X(create_prs_for_testing_branches, creates_prs_for_testing_branches)  \
  X(comments_enabled, are_comments_enabled)                             \
  X(commands_enabled, are_commands_enabled)                             \
  X(status_check_enabled, is_status_check_enabled)                      \
  X(extension_enabled, is_extension_enabled)                            \
  X(label_commands_enabled, are_label_commands_enabled)                 \
  X(state_labels_enabled, are_state_labels_enabled)                     \
  X(required_statuses, required_statuses)                               \
  X(direct_merge_mode, direct_merge_mode)                               \
  X(enqueueing_label, enqueueing_label)

namespace trunk::sandbox::v2 {

/// v1's settings as v2's configuration (every row).
template <typename V1, typename V2>
void copy_v1_to_v2(const V1& v1, V2& v2) {
#define TRUNK_V1_TO_V2_(v1_member, v2_member) v2.v2_member = v1.v1_member;
  TRUNK_V2_SETTING_PAIRS(TRUNK_V1_TO_V2_)
#undef TRUNK_V1_TO_V2_
}

/// v2's configuration change as v1's (every row).
template <typename V2, typename V1>
void copy_v2_to_v1(const V2& v2, V1& v1) {
#define TRUNK_V2_TO_V1_(v1_member, v2_member) v1.v1_member = v2.v2_member;
  TRUNK_V2_SETTING_PAIRS(TRUNK_V2_TO_V1_)
#undef TRUNK_V2_TO_V1_
}

}  // namespace trunk::sandbox::v2
