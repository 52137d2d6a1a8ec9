#pragma once
// Merge queue settings as updateQueue and getQueue return them (docs/reference/service.md#queue-settings): the
// queue's branch, every setting (declared once, with updateQueue's request, in queue_setting_rows.hpp) and, from
// getQueue, the pull requests in the queue.
// The contract marks every field required, but the decoder is tolerant: a
// field the service leaves out is absent (nullopt) rather than an error, and enum values this library does
// not know are kept raw.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/json_value.hpp"
#include "trunk/open_enum.hpp"
#include "trunk/pull_request.hpp"
#include "trunk/queue_setting_rows.hpp"

namespace trunk {

#define TRUNK_QUEUE_SETTINGS_FIELDS(X)                                                                    \
  X(std::optional<std::string>, branch, "branch", {}, schema::kRequired, "target branch of the queue")   \
  TRUNK_QUEUE_SETTING_ROWS(TRUNK_QUEUE_SETTING_IN_ANSWER_, X)                                            \
  X(std::optional<std::vector<PullRequest>>, enqueued_pull_requests, "enqueuedPullRequests", {}, schema::kNone, \
    "the pull requests in the queue (getQueue only; absent in updateQueue answers)")

struct QueueSettings {
  TRUNK_MEMBERS(TRUNK_QUEUE_SETTINGS_FIELDS)
  Extras extra;
  bool operator==(const QueueSettings&) const = default;
};
TRUNK_DESCRIBE(QueueSettings,
               "Merge queue settings. Enum fields give the trunk_api enum member, or the raw string for a value "
               "this library does not know.",
               TRUNK_QUEUE_SETTINGS_FIELDS)

}  // namespace trunk
