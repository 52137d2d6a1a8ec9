#pragma once
// What a new merge queue starts with: each setting's `start` value from its row (trunk/queue_setting_rows.hpp),
// as an answer's settings. The queue store makes new queues from it, and the simulation's policy (QueuePolicy::of,
// queue_policy.cpp) reads a setting the stored settings do not hold (setting_or_start) from it, so a start value
// is written in its row only.

#include <cassert>

#include "trunk/queue_settings.hpp"

namespace trunk::sandbox {

/// Every setting at its start value; a setting whose row starts with none (bisectionConcurrency follows
/// concurrency; requiredStatuses come from branch protection) is absent.
const trunk::QueueSettings& start_settings();

/// The setting `Member` as `settings` hold it, or its start value where they hold none. Only for a setting whose
/// row has a start value.
template <auto Member>
auto setting_or_start(const trunk::QueueSettings& settings) {
  const auto& held = settings.*Member;
  if (held) return *held;
  const auto& start = start_settings().*Member;
  assert(start.has_value() && "setting_or_start: the setting's row names no start value");
  return *start;
}

}  // namespace trunk::sandbox
