#include "queue_setting_starts.hpp"

#include <optional>

#include "trunk/queue_setting_rows.hpp"

namespace trunk::sandbox {

const trunk::QueueSettings& start_settings() {
  static const trunk::QueueSettings starts = [] {
    trunk::QueueSettings settings;
#define TRUNK_SANDBOX_START_(X, value, member, wire, answer_rules, request_rules, start, doc) settings.member = start;
    TRUNK_QUEUE_SETTING_ROWS(TRUNK_SANDBOX_START_, ~)
#undef TRUNK_SANDBOX_START_
    return settings;
  }();
  return starts;
}

}  // namespace trunk::sandbox
