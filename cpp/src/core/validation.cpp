#include "trunk/validation.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <span>
#include <string>
#include <variant>

#include "text.hpp"
#include "trunk/models.hpp"

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

/// The declared rules of one field's value, by type.
class FieldChecker {
 public:
  FieldChecker(Checker& checker, Judge judge) : checker_(checker), judge_(judge) {}

  void value(const std::string& path, const schema::Rules& rules, const std::string& text) {
    if (rules.uuid) {
      if (!is_uuid(text)) {
        checker_.add(path, detail::quoted(text),
                     "must be a UUID (8-4-4-4-12 hexadecimal digits, e.g. 123e4567-e89b-12d3-a456-426614174000)");
      }
      return;
    }
    if (!checker_.utf8(path, text)) return;
    if (rules.non_empty && text.empty()) checker_.add(path, detail::quoted(text), "must not be empty");
    if (rules.max_length != std::numeric_limits<std::size_t>::max()) {
      const std::size_t characters = code_points(text);
      if (characters > rules.max_length) {
        checker_.add(path, std::to_string(characters) + " characters",
                     "must be at most " + std::to_string(rules.max_length) + " characters long");
      }
    }
  }

  /// Characters of well-formed UTF-8 text: every byte but the continuation bytes (10xxxxxx) starts one.
  static std::size_t code_points(std::string_view text) noexcept {
    return static_cast<std::size_t>(
        std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  }

  void value(const std::string& path, const schema::Rules& rules, std::int64_t number) {
    if (!rules.has_range() || (number >= rules.min && number <= rules.max)) return;
    const bool service_takes_it = number < rules.min && number >= rules.service_min;
    if (service_takes_it && judge_ == Judge::service) return;
    // A bound alone (Dynamic CI's counts: 0 or more) reads as one; the other is the type's own limit.
    std::string rule = rules.max == std::numeric_limits<std::int64_t>::max()
                           ? "must be at least " + std::to_string(rules.min)
                       : rules.min == std::numeric_limits<std::int64_t>::min()
                           ? "must be at most " + std::to_string(rules.max)
                           : "must be between " + std::to_string(rules.min) + " and " + std::to_string(rules.max);
    if (service_takes_it) {
      rule += ": the contract's range, which this client keeps, although Trunk's service takes " +
              std::to_string(number) + " (its default, which getQueue answers); leave the field out to keep the "
              "queue's value";
    }
    checker_.add(path, std::to_string(number), std::move(rule));
  }

  void value(const std::string&, const schema::Rules&, double) {}
  void value(const std::string&, const schema::Rules&, bool) {}
  void value(const std::string&, const schema::Rules&, const Json&) {}

  /// The rules apply to whichever alternative is held (a priority's range to its number, non-empty to its name).
  template <typename... A>
  void value(const std::string& path, const schema::Rules& rules, const std::variant<A...>& held) {
    std::visit([&](const auto& alternative) { value(path, rules, alternative); }, held);
  }

  void value(const std::string& path, const schema::Rules&, Timestamp time) {
    if (!representable(time)) {
      checker_.add(path, std::to_string(time.time_since_epoch().count()) + " us since 1970",
                   "must be between 0000-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z");
    }
  }

  template <schema::DescribedEnum E>
  void value(const std::string& path, const schema::Rules&, E enumerator) {
    const std::string_view wire = to_wire(enumerator);
    if (wire.empty()) {  // an enumerator outside the list can only come from a cast; it has no wire form
      checker_.add(path, "<enumerator " + std::to_string(static_cast<long long>(enumerator)) + ">",
                   one_of(enum_wire_values<E>()));
      return;
    }
    const auto requestable = enum_requestable_values<E>();
    if (static_cast<std::size_t>(enumerator) >= requestable.size()) {
      checker_.add(path, detail::quoted(wire),
                   one_of(requestable) + " (" + std::string(wire) + " is reported, not requested)");
    }
  }

  /// An answer's open enumeration: any value the service sends is acceptable.
  template <typename E>
  void value(const std::string&, const schema::Rules&, const OpenEnum<E>&) {}

  template <typename X>
  void value(const std::string& path, const schema::Rules& rules, const std::vector<X>& items) {
    const std::string count = items.empty() ? "[]" : std::to_string(items.size()) + " items";
    if (items.size() < rules.min_items) {
      checker_.add(path, count, "must hold at least " + items_text(rules.min_items));
    } else if (items.size() > rules.max_items) {
      checker_.add(path, count, "must hold at most " + items_text(rules.max_items));
    }
    for (std::size_t i = 0; i < items.size(); ++i) value(path + '[' + std::to_string(i) + ']', rules, items[i]);
  }

  template <typename X>
  void value(const std::string& path, const schema::Rules& rules, const std::optional<X>& maybe) {
    if (maybe) value(path, rules, *maybe);
  }

  template <schema::Described T>
  void value(const std::string& path, const schema::Rules&, const T& model) {
    checker_.merge(check(model, path, judge_));
  }

 private:
  static std::string items_text(std::size_t n) { return std::to_string(n) + (n == 1 ? " item" : " items"); }

  static std::string one_of(std::span<const std::string_view> values) {
    std::string rule = "must be one of ";
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i != 0) rule += ", ";
      rule += values[i];
    }
    return rule;
  }

  Checker& checker_;
  Judge judge_;
};

// ---- cross-field rules: written once, here, each run right after the field it reports on ---------------------
template <typename T>
void check_cross_field_rules(const T&, std::string_view, Checker&) {}

void check_cross_field_rules(const ListFailingTestsRequest& request, std::string_view after, Checker& checker) {
  if (after != "end_time") return;
  if (!representable(request.start_time) || !representable(request.end_time)) return;  // reported per field
  // The 7-day rule as docs/reference/service.md#list-failing-tests reads it: 0 < end - start <= 7 days.
  const auto window = request.end_time - request.start_time;
  const std::string value =
      format_rfc3339(request.end_time) + " (start_time " + format_rfc3339(request.start_time) + ")";
  if (window <= std::chrono::microseconds::zero()) {
    checker.add("end_time", value, "must be after start_time");
  } else if (window > kMaxFailingTestsWindow) {
    checker.add("end_time", value, "must be at most 7 days after start_time");
  }
}

void check_cross_field_rules(const UpdateQueueRequest& request, std::string_view after, Checker& checker) {
  if (after != "requiredStatuses") return;
  // Project decision (docs/reference/service.md#queue-settings): "set these statuses" and "drop the manual list"
  // contradict.
  if (request.required_statuses && request.delete_required_statuses == true) {
    checker.add("requiredStatuses", std::to_string(request.required_statuses->size()) + " status(es)",
                "must not be set together with deleteRequiredStatuses: true");
  }
}

/// v2's priority is a value or a name, never both (docs/reference/v2.md#pull-requests); checked after the name.
template <typename Request>
void check_one_priority(const Request& request, std::string_view after, Checker& checker, bool required) {
  if (after != "priorityName") return;
  if (request.priority_value && request.priority_name) {
    checker.add("priorityName", "\"" + *request.priority_name + "\" (priorityValue " +
                                    std::to_string(*request.priority_value) + ")",
                "must not be set together with priorityValue");
  } else if (required && !request.priority_value && !request.priority_name) {
    checker.add("priorityValue", "(absent)", "one of priorityValue or priorityName is required");
  }
}

void check_cross_field_rules(const SubmitPullRequestRequestV2& request, std::string_view after, Checker& checker) {
  check_one_priority(request, after, checker, false);
}

void check_cross_field_rules(const ReprioritizeRequest& request, std::string_view after, Checker& checker) {
  check_one_priority(request, after, checker, true);
}

void check_cross_field_rules(const UpdateQueueEntryRequest& request, std::string_view after, Checker& checker) {
  check_one_priority(request, after, checker, false);
  // A patch that changes nothing is refused by the service (at least one property): said before it is sent.
  if (after == "allowBatching" && !request.priority_value && !request.priority_name && !request.direct &&
      !request.allow_batching) {
    checker.add("(body)", "{}", "must set at least one of priorityValue, priorityName, direct, allowBatching");
  }
}

/// v2's batch reads take at most 50 pull requests (numbers or ids), v1's own batch ceiling.
inline constexpr std::size_t kMaxResolvedNumbers = 50;

void check_cross_field_rules(const ResolvePullRequestsRequest& request, std::string_view after, Checker& checker) {
  if (after == "number" && request.number && request.number->size() > kMaxResolvedNumbers) {
    checker.add("number", std::to_string(request.number->size()) + " numbers",
                "must hold at most " + std::to_string(kMaxResolvedNumbers) + " numbers");
  }
  if (after == "branch" && request.branch && request.number) {
    checker.add("branch", "\"" + *request.branch + "\"", "must not be set together with number");
  }
  if (after == "baseBranch" && request.base_branch && !request.branch) {
    checker.add("baseBranch", "\"" + *request.base_branch + "\"", "needs branch (it narrows a branch lookup)");
  }
}

void check_cross_field_rules(const BatchQueueEntryHistoryRequest& request, std::string_view after, Checker& checker) {
  if (after == "pullRequestIds" && request.pull_request_ids.size() > kMaxResolvedNumbers) {
    checker.add("pullRequestIds", std::to_string(request.pull_request_ids.size()) + " ids",
                "must hold at most " + std::to_string(kMaxResolvedNumbers) + " ids");
  }
  if (after == "pullRequestIds" && request.pull_request_ids.empty()) {
    checker.add("pullRequestIds", "[]", "must hold at least one id");
  }
}

void check_cross_field_rules(const ListTestingResultsRequest& request, std::string_view after, Checker& checker) {
  if (after != "until" || !request.until || !representable(request.since) || !representable(*request.until)) return;
  const auto window = *request.until - request.since;
  const std::string value = format_rfc3339(*request.until) + " (since " + format_rfc3339(request.since) + ")";
  if (window < std::chrono::microseconds::zero()) {
    checker.add("until", value, "must not be before since");
  } else if (window > kTestingResultsWindow) {
    checker.add("until", value, "must be at most 45 days after since");
  }
}

void check_cross_field_rules(const UploadImpactedTargetsRequest& request, std::string_view after, Checker& checker) {
  // The description's rules: the sha is letters and digits; exactly one of number and branch, and exactly one of
  // impactedTargets and impactsAllTargets (which, when sent, is true).
  if (after == "sha" && !request.sha.empty() &&
      !std::all_of(request.sha.begin(), request.sha.end(), [](unsigned char c) { return std::isalnum(c) != 0; })) {
    checker.add("sha", "\"" + request.sha + "\"", "must be letters and digits only");
  }
  if (after == "branch" && request.number.has_value() == request.branch.has_value()) {
    checker.add("branch", request.branch ? "\"" + *request.branch + "\"" : "(absent)",
                "exactly one of number and branch is required");
  }
  if (after == "impactsAllTargets") {
    if (request.impacts_all_targets == false) {
      checker.add("impactsAllTargets", "false", "must be true when sent (send impactedTargets instead)");
    } else if (request.impacted_targets.has_value() == request.impacts_all_targets.has_value()) {
      checker.add("impactsAllTargets", request.impacts_all_targets ? "true" : "(absent)",
                  "exactly one of impactedTargets and impactsAllTargets is required");
    }
  }
}

/// v2's test metrics are over a period: embedding them, sorting by one and "newly flaky" each need `period`
/// (the description: "Required by each of them"); checked after it.
void check_needs_period(bool needed, std::string_view field, std::string value, Checker& checker) {
  if (needed) checker.add(std::string(field), std::move(value), "needs period (1d, 7d, 14d or 30d)");
}

void check_cross_field_rules(const GetTestCaseRequest& request, std::string_view after, Checker& checker) {
  if (after == "period") check_needs_period(request.include && !request.period, "include", "\"metrics\"", checker);
}

void check_cross_field_rules(const ListTestCasesRequest& request, std::string_view after, Checker& checker) {
  if (after != "sort" || request.period) return;
  check_needs_period(request.include.has_value(), "include", "\"metrics\"", checker);
  check_needs_period(request.newly_flaky.has_value(), "newlyFlaky", request.newly_flaky == true ? "true" : "false",
                     checker);
  if (request.sort && *request.sort != TestSort::name) {
    check_needs_period(true, "sort", "\"" + std::string(to_wire(*request.sort)) + "\"", checker);
  }
}

void check_cross_field_rules(const ListTestRunsRequest& request, std::string_view after, Checker& checker) {
  // Alternatives, as the description says: both is a 400, not an intersection.
  if (after == "pullRequestOnly" && request.branches && request.pull_request_only) {
    checker.add("pullRequestOnly", *request.pull_request_only ? "true" : "false",
                "must not be set together with branches");
  }
}

// ---- rules of a part that may sit anywhere in a request: named under the part's own path ---------------------
template <typename T>
void check_part_rules(const T&, std::string_view, std::string_view, Checker&) {}

/// A force names exactly what its scope covers (the description: an id the scope does not take is refused, as it
/// "would otherwise force more than the job named").
void check_part_rules(const ForceOverrideRequest& force, std::string_view after, std::string_view path,
                      Checker& checker) {
  if (after != "jobId") return;
  const std::string scope(to_wire(force.scope));
  auto rule = [&](std::string_view field, const std::optional<std::string>& id, bool wanted) {
    if (id.has_value() == wanted) return;
    checker.add(join(path, field), id ? detail::quoted(*id) : "(absent)",
                std::string(wanted ? "is required" : "must not be set") + " for scope " + scope);
  };
  rule("workflowId", force.workflow_id, force.scope != ForceOverrideScope::pull_request);
  rule("jobId", force.job_id, force.scope == ForceOverrideScope::job);
}

/// The diff lists its first 200 files: exactly min(totalFiles, 200) of them.
void check_part_rules(const ChangedFiles& diff, std::string_view after, std::string_view path, Checker& checker) {
  if (after != "files" || diff.total_files < 0) return;  // a negative total is reported on its own
  const auto expected = std::min<std::int64_t>(diff.total_files, static_cast<std::int64_t>(kMaxChangedFiles));
  if (static_cast<std::int64_t>(diff.files.size()) != expected) {
    checker.add(join(path, "files"), std::to_string(diff.files.size()) + " items",
                "must hold exactly min(totalFiles, 200) = " + std::to_string(expected) + " items");
  }
}

}  // namespace

template <schema::Described T>
std::vector<Violation> check(const T& value, std::string_view path, Judge judge) {
  Checker checker;
  FieldChecker fields(checker, judge);
  schema::for_each_field<T>([&](const auto& field) {
    fields.value(join(path, field.wire), field.rules, value.*(field.member));
    check_cross_field_rules(value, field.wire, checker);
    check_part_rules(value, field.wire, path, checker);
  });
  return checker.take();
}

#define TRUNK_INSTANTIATE_CHECK_(Type) \
  template std::vector<Violation> check<Type>(const Type& value, std::string_view path, Judge judge);
TRUNK_ALL_MODELS(TRUNK_INSTANTIATE_CHECK_)
#undef TRUNK_INSTANTIATE_CHECK_

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
