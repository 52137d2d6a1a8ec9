#pragma once
// Setting a test's quarantine override through v2 (docs/reference/v2.md#flaky-tests): POST
// /v2/tests/{testId}/quarantine, which a docs page of Trunk's shows (the stored description predates it). The
// override decides the test's quarantine whatever its status; `clear` hands the decision back to its status and
// its collection's settings. The answer is the test (TestCaseV2) with its new `quarantineOverride`.

#include <optional>
#include <string>

#include "trunk/describe.hpp"
#include "trunk/test_case_v2.hpp"
#include "trunk/v2_enums.hpp"

namespace trunk {

/// The longest reason an override takes (Trunk's docs: 1 to 1000 characters).
inline constexpr std::size_t kMaxQuarantineReasonLength = 1000;

#define TRUNK_SET_TEST_QUARANTINE_FIELDS(X)                                                                   \
  TRUNK_TEST_ID_FIELD(X)                                                                                      \
  X(QuarantineOverrideMode, mode, "mode", {}, schema::kRequired,                                              \
    "alwaysQuarantine, neverQuarantine, or clear (remove the override)")                                     \
  X(std::optional<std::string>, reason, "reason", {},                                                         \
    (schema::Rules{.non_empty = true, .max_length = kMaxQuarantineReasonLength}),                            \
    "why, shown with the override (1 to 1000 characters)")

struct SetTestQuarantineRequest {
  TRUNK_MEMBERS(TRUNK_SET_TEST_QUARANTINE_FIELDS)
  bool operator==(const SetTestQuarantineRequest&) const = default;
};
TRUNK_DESCRIBE(SetTestQuarantineRequest,
               "Sets or clears a test's quarantine override (setting the mode it already has changes nothing).",
               TRUNK_SET_TEST_QUARANTINE_FIELDS)

#define TRUNK_TEST_QUARANTINE_V2_REQUEST_MODELS(X) X(SetTestQuarantineRequest)

}  // namespace trunk
