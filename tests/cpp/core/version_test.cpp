#include "trunk/version.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

// version.hpp is generated from the one version in the top-level CMakeLists.txt; this pins them together.
TEST(Version, MacroEqualsTheProjectVersion) {
  EXPECT_EQ(std::string(trunk::kVersion), TRUNK_PROJECT_VERSION);
  const std::string parts = std::to_string(trunk::kVersionMajor) + "." +
                            std::to_string(trunk::kVersionMinor) + "." + std::to_string(trunk::kVersionPatch);
  EXPECT_EQ(parts, TRUNK_PROJECT_VERSION);
}

}  // namespace
