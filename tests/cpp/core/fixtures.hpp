#pragma once
// Reading the hand-written JSON fixtures of tests/fixtures/.
#include <string>

#include "trunk/json_value.hpp"

namespace trunk::testing {

/// Text of tests/fixtures/<name>; fails the calling test (throws) when it cannot be read.
std::string fixture_text(const std::string& name);
/// Parsed tests/fixtures/<name>.
Json fixture_json(const std::string& name);

}  // namespace trunk::testing
