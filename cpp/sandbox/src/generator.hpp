#pragma once
// Deterministic generator of a believable 30-day CI history (see generator.cpp for the model).

#include <cstdint>

#include "history.hpp"

namespace trunk::sandbox {

/// Days of history generated before `now`.
inline constexpr int kHistoryDays = 30;

/// `tests` test cases in total: 75 % in the first repository (github.com/acme/storefront, pytest), 15 % in a
/// GitLab project with a subgroup owner (gitlab.com/acme-labs/platform/payments, Go), 10 % in
/// github.com/acme/mobile-app (JUnit). About 80 % of the tests fail at least once in any 7-day window.
History generate_history(std::uint64_t seed, int tests, trunk::Timestamp now);

}  // namespace trunk::sandbox
