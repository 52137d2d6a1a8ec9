#pragma once
// The webhook endpoints a Sandbox sends its events to: what registering one takes, what a registered one is, and
// how an endpoint's URL is shown. Apart from sandbox.hpp so that the webhook sender sees them without the Sandbox
// class; sandbox.hpp includes it.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trunk/webhook_signature.hpp"

namespace trunk::sandbox {

/// A webhook endpoint to register (Sandbox::add_webhook): where to send, the signing secret, which events.
struct WebhookEndpointOptions {
  std::string url;                    ///< http:// or https://, with a host
  std::optional<std::string> secret;  ///< "whsec_<base64 of 24 to 75 bytes>"; nullopt = a new random one (24 bytes, as Svix)
  /// Event types (e.g. "pull_request.merged"); nullopt = every type. An empty list is refused, as Svix refuses it.
  std::optional<std::vector<std::string>> events;
};

/// A registered endpoint. `secret` verifies its deliveries (trunk::verify_webhook).
struct WebhookEndpoint {
  std::string id;  ///< "ep_..."
  std::string url;  ///< as registered: it may carry credentials (https://user:password@host/), so never shown as is
  trunk::WebhookSecret secret;
  std::vector<std::string> events;  ///< empty = every type
};

/// `url` with the credentials of its authority, if any, replaced by "***" ("https://***@host/hook"): what reprs,
/// logs and error messages show of an endpoint's URL. Text that is not a URL comes back unchanged.
std::string url_without_credentials(std::string_view url);

}  // namespace trunk::sandbox
