#include "credentials.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "secret_access.hpp"

namespace trunk::detail {

namespace {

/// The value of an environment variable, viewed (it belongs to the process environment: never copied).
std::string_view environment(std::string_view name) {
  const char* value = std::getenv(std::string(name).c_str());
  return value == nullptr ? std::string_view{} : std::string_view(value);
}

bool is_api_key(std::string_view text) { return text.starts_with(kApiKeyPrefix); }

/// The header-safety rules both credentials share. `what` names the credential ("the API token").
void check_header_safe(std::string_view text, const std::string& what) {
  if (text.empty()) throw Error(what + " is empty");
  const bool unsafe = std::any_of(text.begin(), text.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
  // The value itself is never quoted: it is a secret.
  if (unsafe) throw Error(what + " contains a control character (it must fit in one HTTP header)");
}

}  // namespace

CredentialViews resolve_credentials(const std::optional<Secret>& token, const std::optional<Secret>& api_key,
                                    const std::optional<Secret>& trunk_token) {
  CredentialViews views;
  if (trunk_token) {
    views.trunk_token = SecretAccess::view(*trunk_token);
    if (is_api_key(views.trunk_token)) {
      throw Error("ClientOptions::trunk_token holds a v2 API key (it starts with " + std::string(kApiKeyPrefix) +
                  "): pass it as ClientOptions::api_key");
    }
    check_header_safe(views.trunk_token, "the trunk token");
  }
  if (token) {
    views.token = SecretAccess::view(*token);
    if (is_api_key(views.token)) {
      throw Error("ClientOptions::token holds a v2 API key (it starts with " + std::string(kApiKeyPrefix) +
                  "): pass it as ClientOptions::api_key");
    }
    check_header_safe(views.token, "the API token");
  }
  if (api_key) {
    views.api_key = SecretAccess::view(*api_key);
    if (!is_api_key(views.api_key) || views.api_key.size() == kApiKeyPrefix.size()) {
      throw Error("ClientOptions::api_key is not a v2 API key: it must start with " + std::string(kApiKeyPrefix) +
                  " and go on (an organization token of v1 goes in ClientOptions::token)");
    }
    check_header_safe(views.api_key, "the API key");
  }
  // The environment fills what the options left empty, each value by its kind; the first variable wins.
  for (const std::string_view name : kTokenVariables) {
    const std::string_view value = environment(name);
    if (value.empty()) continue;
    std::string_view& slot = is_api_key(value) ? views.api_key : views.token;
    const bool given = is_api_key(value) ? api_key.has_value() : token.has_value();
    if (given || !slot.empty()) continue;
    check_header_safe(value, "the " + std::string(is_api_key(value) ? "API key" : "API token") + " in $" +
                                 std::string(name));
    if (is_api_key(value) && value.size() == kApiKeyPrefix.size()) {
      throw Error("the API key in $" + std::string(name) + " is only its prefix " + std::string(kApiKeyPrefix));
    }
    slot = value;
  }
  if (views.token.empty() && views.api_key.empty() && views.trunk_token.empty()) {
    throw MissingTokenError("no credential: pass ClientOptions::token (v1's organization token) or "
                            "ClientOptions::api_key (a v2 key, " + std::string(kApiKeyPrefix) + "...), or set the " +
                            std::string(kTokenVariables[0]) + " or " + std::string(kApiKeyVariables[0]) +
                            " environment variable");
  }
  return views;
}

MissingTokenError missing_credential(Credential credential, std::string_view operation) {
  const std::string name(operation);
  if (credential == Credential::api_key) {
    return MissingTokenError(name + " is an operation of Trunk's v2 API, which needs an API key (" +
                                 std::string(kApiKeyPrefix) + "...): pass ClientOptions::api_key or set " +
                                 std::string(kApiKeyVariables[0]) +
                                 " (or a trunk token, ClientOptions::trunk_token; v2 refuses v1's organization token)",
                             credential, name);
  }
  return MissingTokenError(name + " is an operation of Trunk's v1 API, which needs the organization token: pass "
                               "ClientOptions::token or set " + std::string(kTokenVariables[0]) +
                               " (v1 refuses v2 API keys)",
                           credential, name);
}

}  // namespace trunk::detail
