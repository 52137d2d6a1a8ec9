#pragma once
// Signing and verifying webhook deliveries as Svix does (docs/webhooks.md, "Verifying a delivery"):
// HMAC-SHA256 with the endpoint's secret over "{svix-id}.{svix-timestamp}.{body}", base64, sent as "v1,<sig>"
// in svix-signature (several space-separated entries while a secret rotates; any one v1 entry may match), the
// timestamp within a tolerance of now in both directions. Comparisons are constant-time (CRYPTO_memcmp).

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "trunk/error.hpp"
#include "trunk/webhook_event.hpp"

namespace trunk {

/// Why a delivery was refused. The message of the error says which header or what differed, never the secret
/// or the body.
enum class WebhookFailure {
  missing_header,       ///< svix-id, svix-timestamp or svix-signature (or the webhook-* forms) absent or empty
  malformed_header,     ///< the timestamp is not an integer, or the signature list has no entry of the form v,sig
  bad_secret_format,    ///< the secret is not "whsec_" + base64 of a key (or bare base64)
  timestamp_outside_tolerance,  ///< older or newer than now by more than the tolerance (a replay, a skewed clock)
  bad_signature,        ///< no v1 signature of the list matches: forged, truncated, altered, or the wrong secret
  malformed_body,       ///< signed correctly, but not an event: not UTF-8 or not a JSON object
};

/// The snake_case name of a failure ("bad_signature"), as Python's WebhookVerificationError.reason gives it.
std::string_view to_string(WebhookFailure failure) noexcept;

class WebhookVerificationError : public Error {
 public:
  WebhookVerificationError(WebhookFailure reason, const std::string& message);
  WebhookFailure reason() const noexcept { return reason_; }

 private:
  WebhookFailure reason_;
};

/// An endpoint's signing secret, decoded once, with HMAC-SHA256's keyed states prepared once (make it once and
/// reuse it when verifying many deliveries). Holds the key in memory it wipes on destruction; it has no way to
/// print itself.
class WebhookSecret {
 public:
  /// "whsec_<base64>" or the bare base64 text; throws WebhookVerificationError(bad_secret_format) otherwise
  /// (also for a key shorter than 1 byte or longer than 256).
  explicit WebhookSecret(std::string_view text);
  /// A fresh random secret of `bytes` key bytes (Svix uses 24), from OpenSSL's generator.
  static WebhookSecret generate(std::size_t bytes = 24);
  /// The secret as the endpoint's owner is shown it: "whsec_" + base64. Only for handing it to its owner.
  std::string reveal() const;
  /// The key's length in bytes (Svix makes 24 and takes 24 to 75 at registration).
  std::size_t key_size() const;

  WebhookSecret(const WebhookSecret&);
  WebhookSecret& operator=(const WebhookSecret&);
  WebhookSecret(WebhookSecret&&) noexcept;
  WebhookSecret& operator=(WebhookSecret&&) noexcept;
  ~WebhookSecret();

  /// The base64 HMAC-SHA256 of "{id}.{timestamp}.{body}" (no "v1," prefix).
  std::string signature(std::string_view id, std::string_view timestamp, std::string_view body) const;

 private:
  struct Key;
  std::unique_ptr<Key> key_;
};

/// The three headers of a delivery (svix-* or webhook-*), as received.
struct WebhookHeaders {
  std::optional<std::string> id;
  std::optional<std::string> timestamp;
  std::optional<std::string> signature;
};

/// The svix-signature value a sender puts on a delivery: "v1,<base64>".
std::string sign_webhook(const WebhookSecret& secret, std::string_view id, std::int64_t unix_seconds,
                         std::string_view body);

inline constexpr std::chrono::seconds kDefaultWebhookTolerance{300};

/// Checks a delivery's headers and signature (in that order: header presence, timestamp, then the signature
/// over the exact body bytes). Throws WebhookVerificationError; returns normally when the delivery is genuine.
void verify_webhook_signature(const WebhookSecret& secret, const WebhookHeaders& headers, std::string_view body,
                              std::chrono::seconds tolerance = kDefaultWebhookTolerance,
                              std::optional<std::chrono::system_clock::time_point> now = std::nullopt);

/// construct_webhook_event for a body whose signature was just checked: a body that is not an event throws
/// WebhookVerificationError(malformed_body) instead of DecodeError (its message names the field, never the body).
WebhookEvent verified_webhook_event(std::string_view body);

/// verify_webhook_signature, then verified_webhook_event.
WebhookEvent verify_webhook(const WebhookSecret& secret, const WebhookHeaders& headers, std::string_view body,
                            std::chrono::seconds tolerance = kDefaultWebhookTolerance,
                            std::optional<std::chrono::system_clock::time_point> now = std::nullopt);

}  // namespace trunk
