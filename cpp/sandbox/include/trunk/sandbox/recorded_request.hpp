#pragma once
// trunk::sandbox::RecordedRequest: one request as the sandbox's request log keeps it (Sandbox::requests). Apart
// from sandbox.hpp so that the request log sees it without the Sandbox class; sandbox.hpp includes it.

#include <string>
#include <utility>
#include <vector>

namespace trunk::sandbox {

/// One request the sandbox received. The x-api-token and Authorization header values are replaced by "<redacted>".
struct RecordedRequest {
  std::string method;
  std::string path;
  std::string query;  ///< the query string, without its '?' ("" for none): a v2 GET's parameters
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  int status = 0;  ///< status answered (0 when the connection was dropped without an answer)
  /// The fault injected into this answer, "" for none: "drop", "rate_limit" (429, either cause), "error" (503),
  /// "drop_after" (processed, then the connection closed: status 0) or "truncate" (status 200 or other, body
  /// cut short), so tests can count faults by kind.
  std::string fault;
};

}  // namespace trunk::sandbox
