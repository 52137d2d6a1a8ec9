#pragma once
// The response messages (interface.md §4). Both listings answer with a TestPage; get-test-details with a
// TestDetails; updateQueue with QueueSettings (queue_settings.hpp).

#include <vector>

#include "trunk/json_fwd.hpp"
#include "trunk/page.hpp"
#include "trunk/test_case.hpp"

namespace trunk {

/// One page of a listing: list-failing-tests and list-unhealthy-tests responses.
struct TestPage {
  std::vector<TestCase> tests;
  PageInfo page;
  Extras extra;
  bool operator==(const TestPage&) const = default;
};

/// get-test-details response.
struct TestDetails {
  TestCase test;
  Extras extra;
  bool operator==(const TestDetails&) const = default;
};

}  // namespace trunk
