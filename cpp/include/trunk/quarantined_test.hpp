#pragma once
// A quarantined test, as flaky-tests/list-quarantined-tests returns it (docs/reference/service.md#quarantined-tests).

#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/enums.hpp"
#include "trunk/json_value.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/time.hpp"

namespace trunk {

#define TRUNK_QUARANTINED_TEST_FIELDS(X)                                                                        \
  X(std::optional<std::string>, name, "name", {}, schema::kRequired, "test name")                             \
  X(std::optional<std::string>, parent, "parent", {}, schema::kRequired, "parent suite (may be null)")        \
  X(std::optional<std::string>, file, "file", {}, schema::kRequired, "file of the test (may be null)")        \
  X(std::optional<std::string>, classname, "classname", {}, schema::kRequired, "class of the test (may be null)") \
  X(std::optional<OpenEnum<QuarantinedTestStatus>>, status, "status", {}, schema::kRequired,                  \
    "HEALTHY, FLAKY or BROKEN")                                                                               \
  X(std::optional<std::vector<std::string>>, codeowners, "codeowners", {}, schema::kRequired, "owners of the test") \
  X(std::optional<OpenEnum<QuarantineSetting>>, quarantine_setting, "quarantine_setting", {}, schema::kRequired, \
    "ALWAYS_QUARANTINE or AUTO_QUARANTINE")                                                                   \
  X(std::optional<Timestamp>, quarantined_at, "quarantined_at", {}, schema::kRequired, "when it was quarantined") \
  X(std::optional<Timestamp>, status_last_updated_at, "status_last_updated_at", {}, schema::kRequired,          \
    "when its status last changed")                                                                           \
  X(std::optional<std::string>, test_case_id, "test_case_id", {}, schema::kRequired,                            \
    "the test case id (documented as unstable: do not rely on it)")                                           \
  X(std::optional<std::string>, variant, "variant", {}, schema::kRequired, "variant of the test")

struct QuarantinedTest {
  TRUNK_MEMBERS(TRUNK_QUARANTINED_TEST_FIELDS)
  Extras extra;
  bool operator==(const QuarantinedTest&) const = default;
};
TRUNK_DESCRIBE(QuarantinedTest, "A test the service quarantines (its failures do not block merges).",
               TRUNK_QUARANTINED_TEST_FIELDS)

}  // namespace trunk
