#pragma once
// Which credentials a Client holds, from its options and the environment (docs/reference/credentials.md):
//   token    the organization token of v1, sent as `x-api-token`;
//   api_key  a v2 API key (`trunk_v2_...`), sent as `Authorization: Bearer`;
//   trunk_token  the short-lived token of Trunk's own login, sent as `x-trunk-token` by v2 calls when there is no
//            API key (the description accepts either on every v2 operation; Trunk refuses merge-queue writes
//            with it). From its option only.
// Each is taken from its option, else from the environment. The environment's values are told apart by their
// prefix, because TRUNK_API_KEY holds either kind (the publisher's Terraform provider puts v1 tokens there, its
// settings page hands out v2 keys): $TRUNK_API_TOKEN, then $TRUNK_API_KEY, fill whichever credential their value
// is. An option given for the wrong kind is refused (a v2 key as token=, a v1 token as api_key=): it is a
// mistake the caller should hear about when the client is made, not as a 401 on the first call.

#include <optional>
#include <string_view>

#include "trunk/error.hpp"
#include "trunk/secret.hpp"

namespace trunk::detail {

/// Views of the credentials in use (empty = none): into the options' secret memory or the process environment,
/// never copied, so the caller copies each straight into its header line's secret memory.
struct CredentialViews {
  std::string_view token;
  std::string_view api_key;
  std::string_view trunk_token;

  /// Whether a call of a version needing `credential` has something to send: v2 an API key or a trunk token.
  bool has(Credential credential) const noexcept {
    return credential == Credential::token ? !token.empty() : !api_key.empty() || !trunk_token.empty();
  }
};

/// The credentials of a client. Throws MissingTokenError (needed() == any) when there is neither, and
/// trunk::Error when one is empty, holds a control character (it goes into a header), or is of the
/// other kind than its option says. Messages never quote a value.
CredentialViews resolve_credentials(const std::optional<Secret>& token, const std::optional<Secret>& api_key,
                                    const std::optional<Secret>& trunk_token = std::nullopt);

/// The MissingTokenError of operation `operation`, which needs `credential` that the client does not have.
MissingTokenError missing_credential(Credential credential, std::string_view operation);

}  // namespace trunk::detail
