#include "queue_controls_route.hpp"

#include <algorithm>
#include <charconv>
#include <variant>
#include <vector>

#include "trunk/error.hpp"
#include "trunk/json_value.hpp"
#include "trunk/sandbox/sandbox.hpp"
#include "trunk/time.hpp"

namespace trunk::sandbox {

namespace {

constexpr std::string_view kControls = "controls";
constexpr std::string_view kPullRequests = "pull-requests/";
constexpr std::string_view kScript = "/script";

/// A request the route refuses: 400 with field, value and rule.
struct Invalid {
  std::string field, value, rule;
};

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 && hex_digit(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::map<std::string, std::string> query_parameters(std::string_view query) {
  std::map<std::string, std::string> out;
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const std::size_t eq = pair.find('=');
    out[percent_decoded(pair.substr(0, eq))] = eq == std::string_view::npos ? "" : percent_decoded(pair.substr(eq + 1));
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
  }
  return out;
}

double number_of(const trunk::Json& value, const std::string& field) {
  if (!value.is_number()) throw Invalid{field, value.dump(), "must be a number"};
  return value.get<double>();
}

std::optional<double> optional_number(const trunk::Json& object, const std::string& key) {
  if (!object.contains(key) || object.at(key).is_null()) return std::nullopt;
  return number_of(object.at(key), key);
}

void refuse_unknown_keys(const trunk::Json& object, const std::string& where, const std::vector<std::string>& known) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string list;
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    throw Invalid{where + key, value.dump(), "unknown field (known: " + list + ")"};
  }
}

RunDuration duration_of(const trunk::Json& value) {
  if (!value.is_object()) throw Invalid{"run_duration", value.dump(), "must be an object with kind"};
  const trunk::Json kind = value.contains("kind") ? value.at("kind") : trunk::Json();
  if (kind == "fixed") {
    refuse_unknown_keys(value, "run_duration.", {"kind", "minutes"});
    if (!value.contains("minutes")) throw Invalid{"run_duration.minutes", "<missing>", "is required for kind fixed"};
    return FixedRunDuration{number_of(value.at("minutes"), "run_duration.minutes")};
  }
  if (kind == "lognormal") {
    refuse_unknown_keys(value, "run_duration.", {"kind", "median_minutes", "sigma"});
    LognormalRunDuration lognormal;
    if (value.contains("median_minutes")) {
      lognormal.median_minutes = number_of(value.at("median_minutes"), "run_duration.median_minutes");
    }
    if (value.contains("sigma")) lognormal.sigma = number_of(value.at("sigma"), "run_duration.sigma");
    return lognormal;
  }
  if (kind == "empirical") {
    refuse_unknown_keys(value, "run_duration.", {"kind", "minutes"});
    const trunk::Json list = value.contains("minutes") ? value.at("minutes") : trunk::Json();
    if (!list.is_array()) throw Invalid{"run_duration.minutes", list.is_null() ? "<missing>" : list.dump(), "must be a list of minutes"};
    EmpiricalRunDuration empirical;
    for (std::size_t i = 0; i < list.size(); ++i) {
      empirical.minutes.push_back(number_of(list.at(i), "run_duration.minutes[" + std::to_string(i) + "]"));
    }
    return empirical;
  }
  throw Invalid{"run_duration.kind", kind.is_null() ? "<missing>" : kind.dump(), "must be one of fixed, lognormal, empirical"};
}

std::vector<double> numbers_of(const trunk::Json& list, const std::string& field, std::string_view what) {
  if (!list.is_array()) throw Invalid{field, list.is_null() ? "<missing>" : list.dump(), "must be a list of " + std::string(what)};
  std::vector<double> out;
  for (std::size_t i = 0; i < list.size(); ++i) out.push_back(number_of(list.at(i), field + "[" + std::to_string(i) + "]"));
  return out;
}

const trunk::Json& member_or_null(const trunk::Json& object, const std::string& key) {
  static const trunk::Json null;
  return object.contains(key) ? object.at(key) : null;
}

ArrivalProcess arrival_process_of(const trunk::Json& value) {
  const trunk::Json& kind = member_or_null(value, "kind");
  if (kind == "poisson") {
    if (!value.contains("per_hour")) throw Invalid{"arrivals.per_hour", "<missing>", "is required for kind poisson"};
    return PoissonArrivals{number_of(value.at("per_hour"), "arrivals.per_hour")};
  }
  if (kind == "hourly") return HourlyArrivals{numbers_of(member_or_null(value, "per_hour"), "arrivals.per_hour", "rates")};
  if (kind == "scheduled") {
    const trunk::Json& list = member_or_null(value, "at");
    if (!list.is_array()) throw Invalid{"arrivals.at", list.is_null() ? "<missing>" : list.dump(), "must be a list of RFC 3339 times"};
    ScheduledArrivals scheduled;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string field = "arrivals.at[" + std::to_string(i) + "]";
      const auto at = list.at(i).is_string() ? trunk::try_parse_rfc3339(list.at(i).get<std::string>()) : std::nullopt;
      if (!at) throw Invalid{field, list.at(i).dump(), "must be an RFC 3339 time with an offset"};
      scheduled.at.push_back(*at);
    }
    return scheduled;
  }
  throw Invalid{"arrivals.kind", kind.is_null() ? "<missing>" : kind.dump(), "must be one of poisson, hourly, scheduled"};
}

/// The chances listed under `key` of an arrivals object: each item {name_key: its name, "probability": 0 to 1},
/// a name `is_name` accepts, and nothing else; `pair` shows the item's shape in a refusal.
template <typename Chance, typename IsName, typename Name>
std::vector<Chance> chances_of(const trunk::Json& value, const std::string& key, const std::string& name_key,
                               const std::string& pair, IsName is_name, Name name_of) {
  const std::string field = "arrivals." + key;
  const trunk::Json& list = member_or_null(value, key);
  if (!list.is_null() && !list.is_array()) throw Invalid{field, list.dump(), "must be a list of {" + name_key + ", probability}"};
  std::vector<Chance> out;
  for (std::size_t i = 0; i < list.size() && list.is_array(); ++i) {
    const std::string where = field + "[" + std::to_string(i) + "]";
    const trunk::Json& item = list.at(i);
    if (!item.is_object() || !item.contains(name_key) || !is_name(item.at(name_key)) || !item.contains("probability")) {
      throw Invalid{where, item.dump(), "must be " + pair};
    }
    refuse_unknown_keys(item, where + ".", {name_key, "probability"});
    out.push_back({name_of(item.at(name_key)), number_of(item.at("probability"), where + ".probability")});
  }
  return out;
}

Arrivals arrivals_of(const trunk::Json& value) {
  if (!value.is_object()) throw Invalid{"arrivals", value.dump(), "must be an object with kind"};
  refuse_unknown_keys(value, "arrivals.", {"kind", "per_hour", "at", "targets", "first_number", "priorities"});
  Arrivals arrivals{arrival_process_of(value), {}, 1, {}};
  arrivals.targets = chances_of<TargetChance>(
      value, "targets", "target", R"({"target": name, "probability": 0 to 1})",
      [](const trunk::Json& name) { return name.is_string(); },
      [](const trunk::Json& name) { return name.get<std::string>(); });
  if (const trunk::Json& first = member_or_null(value, "first_number"); !first.is_null()) {
    if (!first.is_number_integer()) throw Invalid{"arrivals.first_number", first.dump(), "must be a pull request number"};
    arrivals.first_number = first.get<std::int64_t>();
  }
  arrivals.priorities = chances_of<PriorityChance>(
      value, "priorities", "value", R"({"value": a priority, "probability": 0 to 1})",
      [](const trunk::Json& name) { return name.is_number_integer(); },
      [](const trunk::Json& name) { return name.get<std::int64_t>(); });
  return arrivals;
}

trunk::Json arrivals_json(const Arrivals& arrivals) {
  trunk::Json out;
  if (const auto* poisson = std::get_if<PoissonArrivals>(&arrivals.process)) {
    out = {{"kind", "poisson"}, {"per_hour", poisson->per_hour}};
  } else if (const auto* hourly = std::get_if<HourlyArrivals>(&arrivals.process)) {
    out = {{"kind", "hourly"}, {"per_hour", hourly->per_hour}};
  } else {
    trunk::Json times = trunk::Json::array();
    for (const trunk::Timestamp t : std::get<ScheduledArrivals>(arrivals.process).at) times.push_back(trunk::format_rfc3339(t));
    out = {{"kind", "scheduled"}, {"at", std::move(times)}};
  }
  trunk::Json targets = trunk::Json::array();
  for (const TargetChance& chance : arrivals.targets) targets.push_back({{"target", chance.target}, {"probability", chance.probability}});
  out["targets"] = std::move(targets);
  out["first_number"] = arrivals.first_number;
  trunk::Json priorities = trunk::Json::array();
  for (const PriorityChance& chance : arrivals.priorities) priorities.push_back({{"value", chance.value}, {"probability", chance.probability}});
  out["priorities"] = std::move(priorities);
  return out;
}

trunk::Json object_body(std::string_view body) {
  trunk::Json request;
  try {
    request = body.empty() ? trunk::Json::object() : trunk::Json::parse(body);
  } catch (const std::exception& e) {
    throw Invalid{"body", "<malformed>", std::string("must be JSON: ") + e.what()};
  }
  if (!request.is_object()) throw Invalid{"body", request.dump(), "must be an object"};
  return request;
}

QueueControls controls_of(std::string_view body) {
  const trunk::Json request = object_body(body);
  refuse_unknown_keys(request, "", {"run_duration", "flaky_run_rate", "broken_pull_request_rate", "arrivals"});
  QueueControls controls;
  if (request.contains("run_duration") && !request.at("run_duration").is_null()) {
    controls.run_duration = duration_of(request.at("run_duration"));
  }
  controls.flaky_run_rate = optional_number(request, "flaky_run_rate");
  controls.broken_pull_request_rate = optional_number(request, "broken_pull_request_rate");
  if (request.contains("arrivals") && !request.at("arrivals").is_null()) controls.arrivals = arrivals_of(request.at("arrivals"));
  return controls;
}

PullRequestScript script_of(std::string_view body) {
  const trunk::Json request = object_body(body);
  refuse_unknown_keys(request, "", {"broken", "next_run", "next_run_minutes"});
  PullRequestScript script;
  if (request.contains("broken") && !request.at("broken").is_null()) {
    if (!request.at("broken").is_boolean()) throw Invalid{"broken", request.at("broken").dump(), "must be true, false or null"};
    script.broken = request.at("broken").get<bool>();
  }
  if (request.contains("next_run") && !request.at("next_run").is_null()) {
    const trunk::Json& next = request.at("next_run");
    script.next_run = next.is_string() ? outcome_from_name(next.get<std::string>()) : std::nullopt;
    if (!script.next_run) throw Invalid{"next_run", next.dump(), "must be one of fail, pass, null"};
  }
  script.next_run_minutes = optional_number(request, "next_run_minutes");
  return script;
}

trunk::Json optional_json(const auto& value) { return value ? trunk::Json(*value) : trunk::Json(nullptr); }

trunk::Json duration_json(const RunDuration& duration) {
  if (const auto* fixed = std::get_if<FixedRunDuration>(&duration)) return {{"kind", "fixed"}, {"minutes", fixed->minutes}};
  if (const auto* lognormal = std::get_if<LognormalRunDuration>(&duration)) {
    return {{"kind", "lognormal"}, {"median_minutes", lognormal->median_minutes}, {"sigma", lognormal->sigma}};
  }
  return {{"kind", "empirical"}, {"minutes", std::get<EmpiricalRunDuration>(duration).minutes}};
}

trunk::Json state_json(const trunk::Repo& repo, const std::string& branch, const QueueControls& controls,
                       const std::map<std::int64_t, PullRequestScript>& scripts) {
  trunk::Json list = trunk::Json::array();
  for (const auto& [number, script] : scripts) {
    trunk::Json next = nullptr;
    if (script.next_run) next = std::string(outcome_name(*script.next_run));
    list.push_back({{"number", number}, {"broken", optional_json(script.broken)}, {"next_run", std::move(next)},
                    {"next_run_minutes", optional_json(script.next_run_minutes)}});
  }
  return {{"repo", repo.to_string()},
          {"branch", branch},
          {"controls",
           {{"run_duration", controls.run_duration ? duration_json(*controls.run_duration) : trunk::Json(nullptr)},
            {"flaky_run_rate", optional_json(controls.flaky_run_rate)},
            {"broken_pull_request_rate", optional_json(controls.broken_pull_request_rate)},
            {"arrivals", controls.arrivals ? arrivals_json(*controls.arrivals) : trunk::Json(nullptr)}}},
          {"scripts", std::move(list)}};
}

std::int64_t pull_request_number(std::string_view text) {
  std::int64_t number = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error != std::errc{} || end != text.data() + text.size()) {
    throw Invalid{"number", std::string(text), "must be a pull request number"};
  }
  return number;
}

}  // namespace

Reply answer_queue_controls(std::string_view method, std::string_view path, std::string_view query,
                            const std::optional<std::string>& token, std::string_view expected_token,
                            std::string_view body, const QueueControlOperations& operations) {
  const std::string_view rest = path.substr(kQueueControlsPrefix.size());
  const bool controls = rest == kControls;
  const bool script = rest.starts_with(kPullRequests) && rest.ends_with(kScript) &&
                      rest.size() > kPullRequests.size() + kScript.size();
  if (!controls && !script) return text_reply(404, "not found: " + std::string(path));
  if (controls && method != "GET" && method != "PUT") return method_not_allowed(method, "GET, PUT");
  if (script && method != "POST") return method_not_allowed(method, "POST");
  if (auto refused = refuse_token(token, expected_token)) return std::move(*refused);
  try {
    const auto parameters = query_parameters(query);
    const auto repo_parameter = parameters.find("repo");
    if (repo_parameter == parameters.end()) throw Invalid{"repo", "<missing>", "is required (host/owner/name)"};
    const trunk::Repo repo = trunk::Repo::parse(repo_parameter->second);
    const auto branch_parameter = parameters.find("branch");
    const std::string branch = branch_parameter == parameters.end() ? "main" : branch_parameter->second;
    if (script) {
      const std::string_view number = rest.substr(kPullRequests.size(), rest.size() - kPullRequests.size() - kScript.size());
      operations.script(repo, branch, pull_request_number(number), script_of(body));
    } else if (method == "PUT") {
      operations.set_controls(repo, branch, controls_of(body));
    }
    return json_reply(state_json(repo, branch, operations.controls(repo, branch), operations.scripts(repo, branch)));
  } catch (const Invalid& invalid) {
    return text_reply(400, "invalid request: " + invalid.field + ": " + invalid.value + ": " + invalid.rule);
  } catch (const UnknownQueue& e) {
    return text_reply(404, std::string("not found: ") + e.what());
  } catch (const trunk::ValidationError& e) {
    return text_reply(400, std::string("invalid request: ") + e.what());
  }
}

}  // namespace trunk::sandbox
