#pragma once
// What the two readers of a queue's history share (queue_history.cpp through v2, queue_history_v1.cpp through v1):
// the window's rule and the choice of the runs fetched one by one for their impacted targets.

#include <span>
#include <string>
#include <vector>

#include "trunk/testing_result.hpp"
#include "trunk/time.hpp"

namespace trunk::twin::detail {

/// Throws trunk::ValidationError naming `since` when the window is empty or longer than 45 days (the most the
/// service keeps), before anything is sent.
void check_window(Timestamp since, Timestamp until);

/// The ids of up to `target_sample` runs that tested one pull request each (their targets are that pull
/// request's), not bisections, every k-th so that the sample spans the window.
std::vector<std::string> runs_to_sample(std::span<const TestingResult> results, std::size_t target_sample);

}  // namespace trunk::twin::detail
