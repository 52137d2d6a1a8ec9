#pragma once
// A test's quarantine override (docs/sandbox.md#quarantine-overrides): set through v2's
// POST /v2/tests/{testId}/quarantine or by Sandbox::set_quarantine (a person in the web app). It decides the test's
// quarantine whatever its status; without one the history's flag does (the collection's automatic quarantine). Both
// API versions read a test's quarantine through these two functions, so they agree by construction.

#include <optional>
#include <string>
#include <utility>

#include "history.hpp"
#include "trunk/quarantined_test.hpp"
#include "trunk/time.hpp"
#include "trunk/v2_enums.hpp"

namespace trunk::sandbox {

struct QuarantineOverride {
  bool always = true;                 ///< alwaysQuarantine; false: neverQuarantine
  std::optional<std::string> reason;  ///< as its author gave it
  trunk::Timestamp since;             ///< when it was set
};

/// The override a request's mode sets at `at`: nullopt for `clear` (v2's operation and Sandbox::set_quarantine both).
inline std::optional<QuarantineOverride> override_of(trunk::QuarantineOverrideMode mode,
                                                     std::optional<std::string> reason, trunk::Timestamp at) {
  if (mode == trunk::QuarantineOverrideMode::clear) return std::nullopt;
  return QuarantineOverride{mode == trunk::QuarantineOverrideMode::always_quarantine, std::move(reason), at};
}

/// Whether the test is quarantined now: its override's mode, else the history's flag.
inline bool is_quarantined(const TestRecord& test, const std::optional<QuarantineOverride>& override) noexcept {
  return override ? override->always : test.quarantined;
}

/// When its current quarantine started: the override's time for a test only the override quarantines, else its
/// first run (the sandbox dates an automatic quarantine from it, as v1's quarantined_at does); nullopt when it is
/// not quarantined.
inline std::optional<trunk::Timestamp> quarantined_since(const TestRecord& test,
                                                         const std::optional<QuarantineOverride>& override) {
  if (!is_quarantined(test, override)) return std::nullopt;
  if (!test.quarantined) return override->since;
  if (test.runs.empty()) return override ? std::optional(override->since) : std::nullopt;
  return from_micros(test.runs.front().time_us);
}

/// Whether a run at `at_us` ran quarantined: under the override if it was set by then, else under the history's
/// flag.
inline bool quarantined_at_run(const TestRecord& test, const std::optional<QuarantineOverride>& override,
                               std::int64_t at_us) noexcept {
  return override && to_micros(override->since) <= at_us ? override->always : test.quarantined;
}

/// A quarantined test as list-quarantined-tests returns it. Decisions: the status is the test's health (upper
/// case); a test quarantined by an override, or a healthy one (only a person quarantines those), is
/// ALWAYS_QUARANTINE, any other was quarantined automatically (AUTO_QUARANTINE); quarantined_at is when its current
/// quarantine started (quarantined_since), status_last_updated_at the start of its current status.
trunk::QuarantinedTest to_quarantined_test(const TestRecord& test, const DerivedFacts& facts,
                                           const std::optional<QuarantineOverride>& override); // history.cpp

}  // namespace trunk::sandbox
