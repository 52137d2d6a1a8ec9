#pragma once
// Every operation of the API, declared once: its name, HTTP method and path, request and answer types,
// whether a retry may repeat it, and one line for people. The client's calls, the sandbox's route table, the
// Python methods' docs and the OpenAPI document are derived from this list.

#include <string_view>
#include <tuple>

#include "trunk/models.hpp"
#include "trunk/repeat.hpp"

namespace trunk {

// X(Type, name, "METHOD", "/path", Request, Response, Repeat, "doc")
#define TRUNK_OPERATIONS(X)                                                                                     \
  X(ListFailingTests, list_failing_tests, "POST", "/v1/flaky-tests/list-failing-tests", ListFailingTestsRequest, \
    TestPage, Repeat::safe, "One page of the distinct tests that failed in a time window (at most 7 days).")   \
  X(ListUnhealthyTests, list_unhealthy_tests, "POST", "/v1/flaky-tests/list-unhealthy-tests",                    \
    ListUnhealthyTestsRequest, TestPage, Repeat::safe, "One page of the tests classed flaky or broken.")       \
  X(GetTestDetails, get_test_details, "POST", "/v1/flaky-tests/get-test-details", GetTestDetailsRequest,         \
    TestDetails, Repeat::safe, "Every detail of one test case.")                                              \
  X(ListQuarantinedTests, list_quarantined_tests, "POST", "/v1/flaky-tests/list-quarantined-tests",              \
    ListQuarantinedTestsRequest, QuarantinedTestPage, Repeat::safe, "One page of the quarantined tests.")      \
  X(UpdateQueue, update_queue, "POST", "/v1/updateQueue", UpdateQueueRequest, QueueSettings, Repeat::safe,    \
    "Changes the settings of a merge queue and returns the settings after the change.")                          \
  X(GetQueue, get_queue, "POST", "/v1/getQueue", GetQueueRequest, QueueSettings, Repeat::safe,                \
    "The settings of a merge queue and the pull requests in it.")

namespace op {
#define TRUNK_DECLARE_OPERATION_(Type, op_name, op_method, op_path, RequestType, ResponseType, op_repeat, op_doc) \
  struct Type {                                                                                                     \
    using Request = RequestType;                                                                                    \
    using Response = ResponseType;                                                                                  \
    static constexpr std::string_view name = #op_name;                                                              \
    static constexpr std::string_view method = op_method;                                                           \
    static constexpr std::string_view path = op_path;                                                               \
    static constexpr Repeat repeat = op_repeat;                                                         \
    static constexpr std::string_view doc = op_doc;                                                                 \
  };
TRUNK_OPERATIONS(TRUNK_DECLARE_OPERATION_)
#undef TRUNK_DECLARE_OPERATION_
}  // namespace op

/// Every operation, for code that walks them all (routing, documentation).
#define TRUNK_OPERATION_TYPE_(Type, ...) op::Type,
using AllOperations = std::tuple<TRUNK_OPERATIONS(TRUNK_OPERATION_TYPE_) schema::End>;
#undef TRUNK_OPERATION_TYPE_

/// Paths of the operations, relative to the base address (paths::kListFailingTests ...).
namespace paths {
#define TRUNK_OPERATION_PATH_(Type, name, method, path, ...) inline constexpr std::string_view k##Type = path;
TRUNK_OPERATIONS(TRUNK_OPERATION_PATH_)
#undef TRUNK_OPERATION_PATH_
}  // namespace paths

/// Calls f(Operation{}) for every operation.
template <typename F>
constexpr void for_each_operation(F&& f) {
  std::apply([&](auto... operations) { (schema::call_unless_end(f, operations), ...); }, AllOperations{});
}

}  // namespace trunk
