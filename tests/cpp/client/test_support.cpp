#include "test_support.hpp"

#include <cstdio>

namespace trunk::testing {

std::string test_case_json(const std::string& id, const std::string& name) {
  return R"({"id":")" + id + R"(","name":")" + name +
         R"(","variant":"","html_url":"https://app.trunk.io/t/)" + id +
         R"(","repository":{"html_url":"https://github.com/trunk-io/trunk"},)"
         R"("status":{"reason":"flaky","timestamp":"2026-01-02T03:04:05Z","value":"flaky"},)"
         R"("most_common_failures":[{"summary":"assert 1 == 2","occurrence_count":4,)"
         R"("last_occurrence":"2026-01-02T00:00:00Z"}],"failure_rate_last_7d":0.25,"failure_rate_last_24h":0.5,)"
         R"("codeowners":["@trunk/eng"],"pull_requests_impacted_last_7d":3,"quarantined":true,)"
         R"("file_path":"tests/test_login.py","parent":"tests","classname":"TestLogin",)"
         R"("ticket":{"html_url":"https://linear.app/t/1"}})";
}

std::string details_json(const std::string& id) { return R"({"test":)" + test_case_json(id) + "}"; }

std::string page_json(const std::vector<std::string>& ids, const std::string& next_page_token, int page_index) {
  std::string tests;
  for (const auto& id : ids) {
    if (!tests.empty()) tests += ",";
    tests += test_case_json(id);
  }
  return R"({"tests":[)" + tests + R"(],"page":{"total_rows":7,"total_pages":3,"next_page_token":")" +
         next_page_token + R"(","prev_page_token":"","last_page_token":"last","page_index":)" +
         std::to_string(page_index) + "}}";
}

std::string queue_settings_json() {
  return R"({"state":"paused","branch":"main","concurrency":4,"testingTimeoutMinutes":60,"mode":"parallel",)"
         R"("canOptimisticallyMerge":true,"pendingFailureDepth":2,"batch":false,"batchingMaxWaitTimeMinutes":5,)"
         R"("batchingMinSize":2,"createPrsForTestingBranches":true,"commentsEnabled":true,"commandsEnabled":true,)"
         R"("statusCheckEnabled":false,"bisectionConcurrency":3,"requiredStatuses":["ci/build"],)"
         R"("directMergeMode":"off","optimizationMode":"off","mergeMethod":"squash"})";
}

std::string uuid_for(int n) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "00000000-0000-4000-8000-%012x", static_cast<unsigned>(n));
  return buffer;
}

}  // namespace trunk::testing
