#pragma once
// JSON codec for every message of interface.md.
//
// Encoders are strict: exact wire names (snake_case for the flaky-test operations, camelCase for
// updateQueue), and only the fields that are set (no nulls). `requiredStatuses: []` is sent when set to
// empty.
//
// Response decoders (TestPage, TestDetails, QueueSettings and the models inside them) are tolerant:
// unknown keys are kept in the model's `extra`, `null` and missing keys read as absent, enum values the
// library does not know are kept raw (OpenEnum). A value of the wrong type throws DecodeError naming the
// JSON path: "tests[3].failure_rate_last_7d: expected number, got string".
//
// Request decoders (used by the sandbox, i.e. the server side) are strict: malformed JSON or a wrong type
// throws DecodeError; a missing required field, an unknown key, an unknown enum value or a bad timestamp
// throws one ValidationError naming every such field. Integers must be JSON integers there (5.0 is not).
// `null` reads as absent in both directions. They do not check ranges: run validate() (validation.hpp).
//
// decode() refuses documents nested deeper than 128 levels (DecodeError) before parsing, so hostile input
// cannot exhaust the stack in later recursive operations on the kept raw JSON.

#include <string>
#include <string_view>

#include "trunk/json_fwd.hpp"
#include "trunk/page.hpp"
#include "trunk/queue_settings.hpp"
#include "trunk/repo.hpp"
#include "trunk/requests.hpp"
#include "trunk/responses.hpp"
#include "trunk/test_case.hpp"

namespace trunk {

/// Paths of the four operations, relative to the base address.
namespace paths {
inline constexpr std::string_view kListFailingTests = "/v1/flaky-tests/list-failing-tests";
inline constexpr std::string_view kListUnhealthyTests = "/v1/flaky-tests/list-unhealthy-tests";
inline constexpr std::string_view kGetTestDetails = "/v1/flaky-tests/get-test-details";
inline constexpr std::string_view kUpdateQueue = "/v1/updateQueue";
}  // namespace paths

// ---- model -> JSON (wire form) ------------------------------------------------------------------------
Json to_json(const Repo& v);
Json to_json(const PageQuery& v);
Json to_json(const PageInfo& v);
Json to_json(const RepositoryRef& v);
Json to_json(const TicketRef& v);
Json to_json(const TestStatus& v);
Json to_json(const FailureSummary& v);
Json to_json(const TestCase& v);
Json to_json(const QueueSettings& v);
Json to_json(const TestPage& v);
Json to_json(const TestDetails& v);
Json to_json(const ListFailingTestsRequest& v);
Json to_json(const ListUnhealthyTestsRequest& v);
Json to_json(const GetTestDetailsRequest& v);
Json to_json(const UpdateQueueRequest& v);

/// Compact JSON text. A string (or key) that is not valid UTF-8 cannot be JSON: it throws ValidationError
/// naming its JSON path (validate() catches this earlier for requests; this guards everything else).
std::string dump_json(const Json& json);

/// Compact JSON text of any model above.
template <typename T>
std::string encode(const T& value) {
  return dump_json(to_json(value));
}

// ---- JSON -> model ------------------------------------------------------------------------------------
/// Reads a model from parsed JSON. `path` prefixes the JSON path in error messages ("" for the root).
/// Defined for every type that has a to_json above.
template <typename T>
T from_json(const Json& json, const std::string& path = "");

/// Parses JSON text and reads a model; malformed JSON throws DecodeError with path "".
template <typename T>
T decode(std::string_view body);

}  // namespace trunk
