#include "v2_service.hpp"

#include <algorithm>
#include <cstdio>
#include <random>

#include "failure_model.hpp"
#include "identifiers.hpp"
#include "random.hpp"
#include "trunk/codec.hpp"
#include "trunk/error.hpp"
#include "trunk/operations.hpp"
#include "trunk/validation.hpp"
#include "trunk/wire_request.hpp"
#include "system_random.hpp"
#include "v2_permissions.hpp"

namespace trunk::sandbox {

namespace {

/// Whether `given` is `secret`, compared in constant time (for a given length).
bool secrets_equal(std::string_view given, std::string_view secret) {
  if (given.size() != secret.size()) return false;
  unsigned char difference = 0;
  for (std::size_t i = 0; i < secret.size(); ++i) difference |= static_cast<unsigned char>(given[i] ^ secret[i]);
  return difference == 0;
}

/// Whether `authorization` is "Bearer <key>" with the sandbox's key.
bool bearer_matches(const std::string& authorization, const std::string& key) {
  constexpr std::string_view kBearer = "Bearer ";
  return authorization.starts_with(kBearer) && secrets_equal(std::string_view(authorization).substr(kBearer.size()), key);
}

/// 32 random letters and digits: the secret part of a key create_api_key makes.
std::string random_key_text() {
  static constexpr char kAlphabet[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  unsigned char bytes[32];
  trunk::detail::fill_system_random(bytes);
  std::string out;
  for (const unsigned char byte : bytes) out += kAlphabet[byte % 62];  // a bias of 4/256 toward the first 8: harmless here
  return out;
}

}  // namespace

std::string uuid_of(const std::string& text) {
  const std::uint64_t high = text_hash(text), low = mix64(high ^ 0x5EED5EED5EED5EEDULL);
  char out[40];
  std::snprintf(out, sizeof out, "%08llx-%04llx-4%03llx-8%03llx-%012llx", static_cast<unsigned long long>(high >> 32),
                static_cast<unsigned long long>((high >> 16) & 0xFFFF), static_cast<unsigned long long>(high & 0xFFF),
                static_cast<unsigned long long>((low >> 48) & 0xFFF),
                static_cast<unsigned long long>(low & 0xFFFFFFFFFFFFULL));
  return out;
}

std::string repository_id(const std::string& repo_key) { return uuid_of("repository\n" + repo_key); }

std::string pull_request_id(const std::string& repo_key, std::int64_t number) {
  return uuid_of("pull request\n" + repo_key + "\n" + std::to_string(number));
}

std::string short_id_of(const std::string& text) {
  static constexpr char kAlphabet[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  std::uint64_t bits = text_hash(text);
  std::string id;
  for (int i = 0; i < 8; ++i, bits /= 62) id += kAlphabet[bits % 62];
  return id;
}

std::string merge_queue_id(const std::string& repo_key, const std::string& branch) {
  return short_id_of("queue\n" + repo_key + "\n" + branch);
}

std::string test_collection_id(const std::string& repo_key) { return short_id_of("test collection\n" + repo_key); }

Reply v2_error(int status, std::string_view code, std::string message) {
  // A message may quote what the caller sent, which need not be UTF-8: such bytes become U+FFFD, never a 500.
  Reply reply;
  reply.status = status;
  reply.body = trunk::Json{{"error", {{"code", std::string(code)}, {"message", std::move(message)}}}}.dump(
      -1, ' ', false, trunk::Json::error_handler_t::replace);
  return reply;
}

V2Service::V2Service(QueueStore& queues, TestLedger& tests, std::vector<trunk::Repo> repos, std::string api_key,
                     QueueStore::Clock clock, bool documented_rate_limits)
    : queues_(queues), tests_(tests), repos_(std::move(repos)), api_key_(std::move(api_key)), clock_(std::move(clock)) {
  if (documented_rate_limits) rate_limits_ = std::make_unique<v2::RateLimits>();
}

std::optional<V2Service::QueueKey> V2Service::find_queue(const std::string& id) const {
  for (const auto& [repo_key, branch] : queues_.keys()) {
    if (merge_queue_id(repo_key, branch) != id) continue;
    if (const trunk::Repo* repo = repo_of(repo_key)) return QueueKey{*repo, branch};
  }
  return std::nullopt;
}

const trunk::Repo* V2Service::repo_of(const std::string& repo_key) const {
  for (const trunk::Repo& repo : repos_) {
    if (repo.to_string() == repo_key) return &repo;
  }
  return nullptr;
}

std::optional<trunk::Repo> V2Service::find_repository(const std::string& id) const {
  for (const trunk::Repo& repo : repos_) {
    if (repository_id(repo.to_string()) == lower(id)) return repo;
  }
  return std::nullopt;
}

// ---- routing ---------------------------------------------------------------------------------------------------

std::string V2Service::create_api_key(const std::vector<Permission>& permissions) {
  Held held = 0;
  for (const Permission p : permissions) held |= Held{1} << static_cast<unsigned>(p);
  std::string key = "trunk_v2_";
  {
    std::lock_guard lock(mutex_);
    key += std::to_string(keys_.size() + 1) + "k" + random_key_text();
    keys_.emplace_back(key, held);
  }
  return key;
}

std::string V2Service::create_trunk_token() {
  std::lock_guard lock(mutex_);
  trunk_tokens_.push_back("tt" + std::to_string(trunk_tokens_.size() + 1) + "." + random_key_text());
  return trunk_tokens_.back();
}

std::optional<V2Service::Held> V2Service::permissions_of(const std::string& authorization) {
  constexpr Held kEvery = (Held{1} << kPermissionNames.size()) - 1;
  if (bearer_matches(authorization, api_key_)) return kEvery;
  std::lock_guard lock(mutex_);
  for (const auto& [key, held] : keys_) {
    if (bearer_matches(authorization, key)) return held;
  }
  return std::nullopt;
}

std::optional<V2Service::Held> V2Service::trunk_token_permissions(const std::string& value) {
  std::lock_guard lock(mutex_);
  for (const std::string& token : trunk_tokens_) {
    if (secrets_equal(value, token)) return Held{0};
  }
  return std::nullopt;
}

template <typename Op>
Reply V2Service::serve(const std::vector<std::pair<std::string, std::string>>& parameters, std::string_view body,
                       std::string_view query, Held held) {
  using Request = typename Op::Request;
  try {
    trunk::Json object = trunk::Json::object();
    const bool has_body = Op::method != std::string_view("GET") && Op::method != std::string_view("DELETE");
    // A request whose fields are all in its path (pause, resume, drain) declares no body: any is ignored.
    if (has_body && trunk::has_body_fields<Request>()) {
      if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
        return v2_error(400, "VALIDATION_FAILED", "the request body is required (a JSON object)");
      }
      try {
        object = trunk::Json::parse(body);
      } catch (const std::exception&) {  // its message would quote the bytes, which may not even be UTF-8
        return v2_error(400, "VALIDATION_FAILED", "the request body is not valid JSON");
      }
      if (!object.is_object()) return v2_error(400, "VALIDATION_FAILED", "the body must be a JSON object");
    }
    const Request request =
        trunk::decode<Request>(trunk::dump_json(trunk::request_json<Request>(parameters, has_body ? "" : query, object)));
    if (auto violations = trunk::check(request); !violations.empty()) {
      throw trunk::ValidationError(std::move(violations));
    }
    for (const Permission needed : needed_permissions<Op>(request)) {
      if ((held & (Held{1} << static_cast<unsigned>(needed))) == 0) {
        return v2_error(403, "INSUFFICIENT_PERMISSIONS",
                        "the API key lacks the permission \"" + std::string(permission_label(needed)) + "\" (" +
                            std::string(permission_name(needed)) + ") that " + std::string(Op::name) + " needs");
      }
    }
    return answer<Op>(request);
  } catch (const trunk::ValidationError& e) {
    return v2_error(400, "VALIDATION_FAILED", e.what());
  } catch (const trunk::DecodeError& e) {
    return v2_error(400, "VALIDATION_FAILED", e.what());
  } catch (const std::exception& e) {  // malformed JSON, a number beyond range: still the caller's mistake
    return v2_error(400, "VALIDATION_FAILED", std::string("malformed request: ") + e.what());
  }
}

Reply V2Service::handle(std::string_view method, std::string_view path,
                        const std::optional<std::string>& authorization, std::string_view body,
                        std::string_view query, const std::optional<std::string>& trunk_token) {
  using Serve = Reply (V2Service::*)(const std::vector<std::pair<std::string, std::string>>&, std::string_view,
                                     std::string_view, Held);
  // Trunk moved its tests from /v2/test-cases/... to /v2/tests/...; the old paths still answer, as aliases.
  std::string aliased;
  if (constexpr std::string_view kOld = "/v2/test-cases"; path.starts_with(kOld) &&
                                                            (path.size() == kOld.size() || path[kOld.size()] == '/')) {
    aliased = "/v2/tests" + std::string(path.substr(kOld.size()));
    path = aliased;
  }
  Serve operation = nullptr;
  std::string allowed;  // the methods of a known path, for the 405
  std::vector<std::pair<std::string, std::string>> parameters;
  bool path_known = false;
  std::size_t fewest_parameters = 0;
  trunk::for_each_operation([&](auto candidate) {
    using Op = decltype(candidate);
    if constexpr (Op::credential == trunk::Credential::api_key) {
      auto matched = trunk::match_path(Op::path, path);
      if (!matched) return;
      // A literal segment wins over a parameter: /v2/merge-queues/metrics is the metrics, not the queue "metrics".
      if (path_known && matched->size() > fewest_parameters) return;
      if (path_known && matched->size() < fewest_parameters) {
        operation = nullptr;
        allowed.clear();
      }
      path_known = true;
      fewest_parameters = matched->size();
      if (method == Op::method) {
        operation = &V2Service::serve<Op>;
        parameters = std::move(*matched);
      } else {
        allowed += (allowed.empty() ? "" : ", ") + std::string(Op::method);
      }
    }
  });
  if (!path_known) return v2_error(404, "NOT_FOUND", "no operation at " + std::string(path));
  if (!authorization && !trunk_token) {
    return v2_error(401, "AUTHENTICATION_REQUIRED",
                    "send the API key as Authorization: Bearer (or a trunk token as x-trunk-token)");
  }
  // An API key when there is one; a trunk token holds no permission (create_trunk_token).
  const std::optional<Held> held = authorization ? permissions_of(*authorization) : trunk_token_permissions(*trunk_token);
  if (!held) return v2_error(401, "INVALID_TOKEN", authorization ? "not a valid API key" : "not a valid trunk token");
  const std::string& caller = authorization ? *authorization : *trunk_token;
  if (rate_limits_ && operation != nullptr) {
    if (const auto over = rate_limits_->admit(method, path, caller, v2::RateLimits::Clock::now())) {
      Reply reply = v2_error(429, "RATE_LIMITED",
                             "more than " + std::to_string(over->first->per_second) + " requests a second to " +
                                 std::string(over->first->name) + " (a documented limit of v2)");
      reply.headers.emplace_back("Retry-After", std::to_string(over->second));
      return reply;
    }
  }
  if (operation == nullptr) {
    Reply reply = v2_error(405, "METHOD_NOT_ALLOWED", std::string(method) + " is not an operation of " + std::string(path));
    if (!allowed.empty()) reply.headers.emplace_back("Allow", std::string(allowed));
    return reply;
  }
  try {
    return (this->*operation)(parameters, body, query, *held);
  } catch (const std::exception& e) {
    return v2_error(500, "INTERNAL_ERROR", e.what());
  }
}

}  // namespace trunk::sandbox
