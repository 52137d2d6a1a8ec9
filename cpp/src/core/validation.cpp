#include "trunk/validation.hpp"

#include <string>

#include "text.hpp"

namespace trunk {

namespace {

/// Collects violations with the request's wire field names.
class Checker {
 public:
  void add(std::string field, std::string value, std::string rule) {
    violations_.push_back({std::move(field), std::move(value), std::move(rule)});
  }

  /// Text that must be well-formed UTF-8 (JSON can carry nothing else).
  bool utf8(const std::string& field, std::string_view text) {
    if (is_valid_utf8(text)) return true;
    add(field, detail::quoted(text), "must be valid UTF-8");
    return false;
  }

  /// A required, non-empty, UTF-8 string.
  void required_text(const std::string& field, std::string_view text) {
    if (!utf8(field, text)) return;
    if (text.empty()) add(field, detail::quoted(text), "must not be empty");
  }

  void integer_range(const std::string& field, std::int64_t value, std::int64_t min, std::int64_t max) {
    if (value < min || value > max) {
      add(field, std::to_string(value),
          "must be between " + std::to_string(min) + " and " + std::to_string(max));
    }
  }

  void optional_setting(const std::string& field, const std::optional<std::int64_t>& value) {
    if (value) integer_range(field, *value, kMinSetting, kMaxSetting);
  }

  /// An enumerator that is not a value of E can only come from a cast; it has no wire form.
  template <typename E>
  void known_enum(const std::string& field, E value) {
    if (to_wire(value).empty()) {
      add(field, "<enumerator " + std::to_string(static_cast<long long>(value)) + ">", one_of<E>());
    }
  }

  template <typename E>
  static std::string one_of() {
    std::string rule = "must be one of ";
    bool first = true;
    for (const auto wire : enum_wire_values<E>()) {
      if (!first) rule += ", ";
      rule += wire;
      first = false;
    }
    return rule;
  }

  void merge(std::vector<Violation> more) {
    for (auto& violation : more) violations_.push_back(std::move(violation));
  }

  std::vector<Violation> take() { return std::move(violations_); }

 private:
  std::vector<Violation> violations_;
};

std::string join(std::string_view parent, std::string_view child) {
  return parent.empty() ? std::string(child) : std::string(parent) + '.' + std::string(child);
}

constexpr auto kMinTimestamp = std::chrono::sys_days{std::chrono::year{0} / 1 / 1};
constexpr auto kEndTimestamp = std::chrono::sys_days{std::chrono::year{10000} / 1 / 1};

bool representable(Timestamp t) { return t >= kMinTimestamp && t < kEndTimestamp; }

}  // namespace

std::vector<Violation> check(const Repo& repo, std::string_view field) {
  Checker checker;
  checker.required_text(join(field, "host"), repo.host);
  checker.required_text(join(field, "owner"), repo.owner);
  checker.required_text(join(field, "name"), repo.name);
  return checker.take();
}

std::vector<Violation> check(const PageQuery& page_query, std::string_view field) {
  Checker checker;
  checker.integer_range(join(field, "page_size"), page_query.page_size, kMinPageSize, kMaxPageSize);
  checker.utf8(join(field, "page_token"), page_query.page_token);
  return checker.take();
}

std::vector<Violation> check(const ListFailingTestsRequest& request) {
  Checker checker;
  checker.merge(check(request.repo));
  checker.required_text("org_url_slug", request.org_url_slug);
  bool both_representable = true;
  for (const auto& [field, value] :
       {std::pair{"start_time", request.start_time}, {"end_time", request.end_time}}) {
    if (!representable(value)) {
      checker.add(field, std::to_string(value.time_since_epoch().count()) + " us since 1970",
                  "must be between 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z");
      both_representable = false;
    }
  }
  if (both_representable) {
    // Interface rule 4.1.1 with the project's reading (service-facts.md): 0 < end - start <= 7 days.
    const auto window = request.end_time - request.start_time;
    const std::string value =
        format_rfc3339(request.end_time) + " (start_time " + format_rfc3339(request.start_time) + ")";
    if (window <= std::chrono::microseconds::zero()) {
      checker.add("end_time", value, "must be after start_time");
    } else if (window > kMaxFailingTestsWindow) {
      checker.add("end_time", value, "must be at most 7 days after start_time");
    }
  }
  checker.merge(check(request.page_query));
  return checker.take();
}

std::vector<Violation> check(const ListUnhealthyTestsRequest& request) {
  Checker checker;
  checker.merge(check(request.repo));
  checker.required_text("org_url_slug", request.org_url_slug);
  checker.known_enum("status", request.status);
  checker.merge(check(request.page_query));
  return checker.take();
}

std::vector<Violation> check(const GetTestDetailsRequest& request) {
  Checker checker;
  checker.merge(check(request.repo));
  checker.required_text("org_url_slug", request.org_url_slug);
  if (!is_uuid(request.test_id)) {
    checker.add("test_id", detail::quoted(request.test_id),
                "must be a UUID (8-4-4-4-12 hexadecimal digits, e.g. 123e4567-e89b-12d3-a456-426614174000)");
  }
  return checker.take();
}

std::vector<Violation> check(const UpdateQueueRequest& request) {
  Checker checker;
  checker.merge(check(request.repo));
  checker.required_text("targetBranch", request.target_branch);
  if (request.state) {
    if (*request.state == QueueState::switching_modes) {
      checker.add("state", "\"switching_modes\"",
                  "must be one of running, paused, draining (switching_modes is reported, not requested)");
    } else {
      checker.known_enum("state", *request.state);
    }
  }
  checker.optional_setting("concurrency", request.concurrency);
  checker.optional_setting("bisectionConcurrency", request.bisection_concurrency);
  checker.optional_setting("testingTimeoutMinutes", request.testing_timeout_minutes);
  checker.optional_setting("pendingFailureDepth", request.pending_failure_depth);
  checker.optional_setting("batchingMaxWaitTimeMinutes", request.batching_max_wait_time_minutes);
  checker.optional_setting("batchingMinSize", request.batching_min_size);
  if (request.mode) checker.known_enum("mode", *request.mode);
  if (request.direct_merge_mode) checker.known_enum("directMergeMode", *request.direct_merge_mode);
  if (request.optimization_mode) checker.known_enum("optimizationMode", *request.optimization_mode);
  if (request.merge_method) checker.known_enum("mergeMethod", *request.merge_method);
  if (request.required_statuses) {
    const auto& statuses = *request.required_statuses;
    for (std::size_t i = 0; i < statuses.size(); ++i) {
      checker.required_text("requiredStatuses[" + std::to_string(i) + "]", statuses[i]);
    }
    // Project decision (service-facts.md): "set these statuses" and "drop the manual list" contradict.
    if (request.delete_required_statuses == true) {
      checker.add("requiredStatuses", std::to_string(statuses.size()) + " status(es)",
                  "must not be set together with deleteRequiredStatuses: true");
    }
  }
  return checker.take();
}

bool is_uuid(std::string_view text) noexcept {
  if (text.size() != 36) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
      return false;
    }
  }
  return true;
}

}  // namespace trunk
