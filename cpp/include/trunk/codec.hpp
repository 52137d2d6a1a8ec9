#pragma once
// JSON codec for every described message and model (describe.hpp), derived from their field lists.
//
// Encoders are strict: exact wire names, and only the fields that are set (no nulls); `requiredStatuses: []`
// is sent when set to empty, an empty page_token is not sent. The one null written is a request field's that is
// declared required and nullable and left unset (Dynamic CI's baseSha and prNumber: "null for a run that is not
// for a pull request"), as the service needs the key.
//
// Decoding of answers (every model with an `extra` member) is tolerant: unknown keys are kept in `extra`,
// `null` and missing keys read as absent, enum values the library does not know are kept raw (OpenEnum), and a
// time whose text is not RFC 3339 is absent with its text kept in `extra` under its wire name
// (docs/reference/service.md#times). A value of the wrong type throws DecodeError naming the JSON path:
// "tests[3].failure_rate_last_7d: expected number, got string".
//
// Decoding of requests (what the sandbox reads; instantiated in the trunk::sandbox library, link it to decode a
// request) is strict: malformed JSON or a wrong type throws DecodeError, and `null` is a wrong type there
// ("testingTimeoutMinutes: expected integer, got null"; the encoders never write null), except for a field
// declared nullable (schema::Rules::nullable: submitPullRequest's priority, "or null" in the published
// description), where it reads as absent; a missing required field, an unknown key, an unknown enum value or a bad timestamp throws one
// ValidationError naming every such field. They do not check ranges: run validate() (validation.hpp).
//
// In both directions an integer field takes any JSON number with a zero fraction (5, 5.0, 1e3: JSON Schema's
// "integer", the OpenAPI document's type), and refuses 5.5.
//
// decode() refuses documents nested deeper than 128 levels (DecodeError) before parsing, so hostile input
// cannot exhaust the stack in later recursive operations on the kept raw JSON.

#include <string>
#include <string_view>

#include "trunk/describe.hpp"
#include "trunk/json_value.hpp"
#include "trunk/models.hpp"
#include "trunk/operations.hpp"

namespace trunk {

/// The wire JSON of a model or message (unknown keys kept in `extra` included, known fields winning).
template <schema::Described T>
Json to_json(const T& value);

/// Compact JSON text. A string (or key) that is not valid UTF-8 cannot be JSON: it throws ValidationError
/// naming its JSON path (validate() catches this earlier for requests; this guards everything else).
std::string dump_json(const Json& json);

/// Compact JSON text of any model.
template <schema::Described T>
std::string encode(const T& value) {
  return dump_json(to_json(value));
}

/// Parses JSON text and reads a model (tolerantly or strictly, see above); malformed JSON throws DecodeError
/// with path "".
template <schema::Described T>
T decode(std::string_view body);

/// Reads a model from JSON already parsed (Python's from_dict, the sandbox's state file). `path` prefixes
/// the JSON paths of error messages ("" for the root).
template <schema::Described T>
T from_json(const Json& json, std::string_view path = "");

/// The query string of getMergeQueueMetrics, the one GET operation: "repo=owner/name&repoHost=host",
/// percent-encoded (the owner's '/' of GitLab subgroups kept), as the service's metrics guide queries it;
/// "" when the request names no repository (every repository).
std::string to_query(const GetMergeQueueMetricsRequest& request);
/// The request a query string carries (the sandbox's reading). Throws ValidationError naming a malformed
/// repo, a repoHost without repo and every unknown parameter; repoHost defaults to github.com; no repo: absent.
GetMergeQueueMetricsRequest metrics_request_from_query(std::string_view query);

}  // namespace trunk
