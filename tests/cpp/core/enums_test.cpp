#include "trunk/enums.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "trunk/open_enum.hpp"

namespace {

using namespace trunk;

template <typename E>
std::vector<std::string> wire_values() {
  std::vector<std::string> result;
  for (const auto value : enum_wire_values<E>()) result.emplace_back(value);
  return result;
}

/// Every listed value converts to its wire string and back.
template <typename E>
void expect_round_trip(std::initializer_list<std::pair<E, const char*>> pairs) {
  std::vector<std::string> expected;
  for (const auto& [value, wire] : pairs) {
    EXPECT_EQ(to_wire(value), wire);
    EXPECT_EQ(enum_from_wire<E>(wire), value) << wire;
    expected.emplace_back(wire);
  }
  EXPECT_EQ(wire_values<E>(), expected);
}

TEST(Enums, ConvertToAndFromTheWireStringsOfTheInterface) {
  expect_round_trip<QueueState>({{QueueState::running, "running"},
                                 {QueueState::paused, "paused"},
                                 {QueueState::draining, "draining"},
                                 {QueueState::switching_modes, "switching_modes"}});
  expect_round_trip<QueueMode>({{QueueMode::single, "single"}, {QueueMode::parallel, "parallel"}});
  expect_round_trip<DirectMergeMode>({{DirectMergeMode::off, "off"}, {DirectMergeMode::always, "always"}});
  expect_round_trip<OptimizationMode>(
      {{OptimizationMode::off, "off"},
       {OptimizationMode::bisection_skip_redundant_tests, "bisection_skip_redundant_tests"}});
  expect_round_trip<MergeMethod>({{MergeMethod::merge_commit, "merge_commit"},
                                  {MergeMethod::squash, "squash"},
                                  {MergeMethod::rebase, "rebase"}});
  expect_round_trip<HealthStatus>({{HealthStatus::flaky, "FLAKY"}, {HealthStatus::broken, "BROKEN"}});
}

TEST(Enums, MatchWireStringsExactly) {
  EXPECT_FALSE(enum_from_wire<QueueState>("Running"));
  EXPECT_FALSE(enum_from_wire<QueueState>(" running"));
  EXPECT_FALSE(enum_from_wire<QueueState>(""));
  EXPECT_FALSE(enum_from_wire<HealthStatus>("flaky"));  // the filter is upper case on the wire
  EXPECT_FALSE(enum_from_wire<MergeMethod>("merge-commit"));
  EXPECT_FALSE(enum_from_wire<QueueMode>(std::string_view("single\0", 7)));
}

TEST(Enums, AValueOutsideTheEnumerationHasNoWireString) {
  EXPECT_EQ(to_wire(static_cast<QueueState>(17)), "");
  EXPECT_EQ(to_wire(static_cast<HealthStatus>(-1)), "");
}

TEST(OpenEnum, KeepsAKnownValue) {
  const OpenEnum<QueueMode> mode = QueueMode::parallel;
  EXPECT_TRUE(mode.is_known());
  EXPECT_EQ(mode.known(), QueueMode::parallel);
  EXPECT_EQ(mode.wire(), "parallel");
  EXPECT_TRUE(mode == QueueMode::parallel);
  EXPECT_FALSE(mode == QueueMode::single);
  EXPECT_EQ(OpenEnum<QueueMode>::from_wire("parallel"), mode);
}

TEST(OpenEnum, KeepsAnUnknownValueRaw) {
  const auto state = OpenEnum<QueueState>::from_wire("hibernating");
  EXPECT_FALSE(state.is_known());
  EXPECT_EQ(state.known(), std::nullopt);
  EXPECT_EQ(state.wire(), "hibernating");
  EXPECT_FALSE(state == QueueState::running);
  EXPECT_EQ(state, OpenEnum<QueueState>::from_wire("hibernating"));
  EXPECT_NE(state, OpenEnum<QueueState>::from_wire("Hibernating"));
}

}  // namespace
