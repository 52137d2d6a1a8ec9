// Svix-compatible signing and verification (docs/webhooks.md, "Verifying a delivery") on OpenSSL's HMAC.
#include "trunk/webhook_signature.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <charconv>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "trunk/codec.hpp"

namespace trunk {

namespace {

constexpr std::string_view kSecretPrefix = "whsec_";
constexpr std::size_t kMaxKeyBytes = 256;
constexpr std::size_t kSha256Bytes = 32;
constexpr std::size_t kSignatureChars = 44;  // base64 of 32 bytes

[[noreturn]] void fail(WebhookFailure reason, const std::string& message) {
  throw WebhookVerificationError(reason, message);
}

bool is_base64_text(std::string_view text) {
  if (text.empty() || text.size() % 4 != 0) return false;
  std::size_t padding = 0;
  while (padding < 2 && text[text.size() - 1 - padding] == '=') ++padding;
  for (std::size_t i = 0; i < text.size() - padding; ++i) {
    const char c = text[i];
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
    if (!ok) return false;
  }
  return true;
}

std::string base64(const unsigned char* data, std::size_t size) {
  std::string out(4 * ((size + 2) / 3), '\0');
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, static_cast<int>(size));
  out.resize(static_cast<std::size_t>(written));
  return out;
}

/// The key bytes of base64 text already checked by is_base64_text.
std::string decode_base64(std::string_view text) {
  std::string out(text.size() / 4 * 3, '\0');
  const int written = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                      reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (written < 0) return {};
  std::size_t size = static_cast<std::size_t>(written);
  // EVP_DecodeBlock counts the padding as zero bytes.
  if (text.ends_with("==")) size -= 2;
  else if (text.ends_with("=")) size -= 1;
  out.resize(size);
  return out;
}

const EVP_MD* sha256() {
  // Fetched once: fetching per call is a large part of a short hash's cost in OpenSSL 3.
  static const EVP_MD* const digest = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  if (digest == nullptr) throw Error("OpenSSL offers no SHA-256");
  return digest;
}

struct DigestContextFree {
  void operator()(EVP_MD_CTX* context) const noexcept { EVP_MD_CTX_free(context); }  // wipes the state
};
using DigestContext = std::unique_ptr<EVP_MD_CTX, DigestContextFree>;

DigestContext new_digest_context() {
  DigestContext context(EVP_MD_CTX_new());
  if (context == nullptr) throw std::bad_alloc();
  return context;
}

[[noreturn]] void fail_openssl() { throw Error("OpenSSL could not compute HMAC-SHA256"); }

void absorb(EVP_MD_CTX* context, std::string_view part) {
  if (EVP_DigestUpdate(context, part.data(), part.size()) != 1) fail_openssl();
}

}  // namespace

std::string_view to_string(WebhookFailure failure) noexcept {
  switch (failure) {
    case WebhookFailure::missing_header: return "missing_header";
    case WebhookFailure::malformed_header: return "malformed_header";
    case WebhookFailure::bad_secret_format: return "bad_secret_format";
    case WebhookFailure::timestamp_outside_tolerance: return "timestamp_outside_tolerance";
    case WebhookFailure::bad_signature: return "bad_signature";
    case WebhookFailure::malformed_body: return "malformed_body";
  }
  return "unknown";
}

WebhookVerificationError::WebhookVerificationError(WebhookFailure reason, const std::string& message)
    : Error("webhook refused (" + std::string(to_string(reason)) + "): " + message), reason_(reason) {}

/// The key and HMAC-SHA256's two keyed states (RFC 2104: SHA-256 after absorbing the key, padded to a block,
/// XOR ipad, resp. XOR opad), computed once per secret. A signature copies them and absorbs only the message
/// and the inner digest: no key setup per call (copying OpenSSL's whole HMAC context per call, as this did
/// before, cost about a fifth of a 2 KB verification).
struct WebhookSecret::Key {
  std::string bytes;
  DigestContext inner;
  DigestContext outer;

  explicit Key(std::string key) : bytes(std::move(key)), inner(new_digest_context()), outer(new_digest_context()) {
    constexpr std::size_t kBlockBytes = 64;  // SHA-256's block
    unsigned char block[kBlockBytes] = {};
    if (bytes.size() > kBlockBytes) {
      // A key longer than a block is replaced by its hash.
      unsigned int length = 0;
      if (EVP_Digest(bytes.data(), bytes.size(), block, &length, sha256(), nullptr) != 1) fail_openssl();
    } else {
      std::memcpy(block, bytes.data(), bytes.size());
    }
    unsigned char inner_pad[kBlockBytes];
    unsigned char outer_pad[kBlockBytes];
    for (std::size_t i = 0; i < kBlockBytes; ++i) {
      inner_pad[i] = static_cast<unsigned char>(block[i] ^ 0x36);
      outer_pad[i] = static_cast<unsigned char>(block[i] ^ 0x5c);
    }
    const bool ok = EVP_DigestInit_ex(inner.get(), sha256(), nullptr) == 1 &&
                    EVP_DigestUpdate(inner.get(), inner_pad, kBlockBytes) == 1 &&
                    EVP_DigestInit_ex(outer.get(), sha256(), nullptr) == 1 &&
                    EVP_DigestUpdate(outer.get(), outer_pad, kBlockBytes) == 1;
    OPENSSL_cleanse(block, sizeof block);
    OPENSSL_cleanse(inner_pad, sizeof inner_pad);
    OPENSSL_cleanse(outer_pad, sizeof outer_pad);
    if (!ok) fail_openssl();
  }
  Key(const Key& other) : Key(other.bytes) {}
  Key& operator=(const Key&) = delete;
  ~Key() { OPENSSL_cleanse(bytes.data(), bytes.size()); }

  /// HMAC-SHA256 of "{id}.{timestamp}.{body}", fed in parts: the body is never copied.
  void sign(std::string_view id, std::string_view timestamp, std::string_view body,
            unsigned char (&digest)[kSha256Bytes]) const {
    const DigestContext context = new_digest_context();
    unsigned int length = 0;
    if (EVP_MD_CTX_copy_ex(context.get(), inner.get()) != 1) fail_openssl();
    for (const std::string_view part : {id, std::string_view("."), timestamp, std::string_view("."), body}) {
      absorb(context.get(), part);
    }
    if (EVP_DigestFinal_ex(context.get(), digest, &length) != 1 || length != kSha256Bytes) fail_openssl();
    if (EVP_MD_CTX_copy_ex(context.get(), outer.get()) != 1 || EVP_DigestUpdate(context.get(), digest, length) != 1 ||
        EVP_DigestFinal_ex(context.get(), digest, &length) != 1 || length != kSha256Bytes) {
      fail_openssl();
    }
  }
};

WebhookSecret::WebhookSecret(std::string_view text) {
  if (text.starts_with(kSecretPrefix)) text.remove_prefix(kSecretPrefix.size());
  // The message names the rule, not the text: the text is the secret.
  if (!is_base64_text(text)) {
    fail(WebhookFailure::bad_secret_format,
         "the secret must be \"whsec_\" followed by base64 (A-Z a-z 0-9 + /, '=' padding); the one given is not "
         "(" + std::to_string(text.size()) + " characters after any prefix)");
  }
  std::string key = decode_base64(text);
  if (key.empty() || key.size() > kMaxKeyBytes) {
    fail(WebhookFailure::bad_secret_format,
         "the secret's key must be 1 to " + std::to_string(kMaxKeyBytes) + " bytes, not " + std::to_string(key.size()));
  }
  key_ = std::make_unique<Key>(std::move(key));
}

WebhookSecret WebhookSecret::generate(std::size_t bytes) {
  if (bytes == 0 || bytes > kMaxKeyBytes) throw std::invalid_argument("a webhook key has 1 to 256 bytes");
  std::string key(bytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(key.data()), static_cast<int>(bytes)) != 1) {
    throw Error("OpenSSL's random generator failed");
  }
  std::string text = std::string(kSecretPrefix) + base64(reinterpret_cast<const unsigned char*>(key.data()), bytes);
  OPENSSL_cleanse(key.data(), key.size());
  WebhookSecret secret(text);
  OPENSSL_cleanse(text.data(), text.size());
  return secret;
}

std::string WebhookSecret::reveal() const {
  return std::string(kSecretPrefix) +
         base64(reinterpret_cast<const unsigned char*>(key_->bytes.data()), key_->bytes.size());
}

std::size_t WebhookSecret::key_size() const { return key_->bytes.size(); }

WebhookSecret::WebhookSecret(const WebhookSecret& other) : key_(std::make_unique<Key>(*other.key_)) {}
WebhookSecret& WebhookSecret::operator=(const WebhookSecret& other) {
  if (this != &other) key_ = std::make_unique<Key>(*other.key_);
  return *this;
}
WebhookSecret::WebhookSecret(WebhookSecret&&) noexcept = default;
WebhookSecret& WebhookSecret::operator=(WebhookSecret&&) noexcept = default;
WebhookSecret::~WebhookSecret() = default;

std::string WebhookSecret::signature(std::string_view id, std::string_view timestamp, std::string_view body) const {
  unsigned char digest[kSha256Bytes];
  key_->sign(id, timestamp, body, digest);
  return base64(digest, sizeof digest);
}

std::string sign_webhook(const WebhookSecret& secret, std::string_view id, std::int64_t unix_seconds,
                         std::string_view body) {
  return "v1," + secret.signature(id, std::to_string(unix_seconds), body);
}

void verify_webhook_signature(const WebhookSecret& secret, const WebhookHeaders& headers, std::string_view body,
                              std::chrono::seconds tolerance, std::optional<std::chrono::system_clock::time_point> now) {
  const auto required = [](const std::optional<std::string>& value, const char* name) -> std::string_view {
    if (!value || value->empty()) fail(WebhookFailure::missing_header, std::string("no ") + name + " header");
    return *value;
  };
  const std::string_view id = required(headers.id, "svix-id");
  const std::string_view timestamp = required(headers.timestamp, "svix-timestamp");
  const std::string_view signatures = required(headers.signature, "svix-signature");

  std::int64_t sent = 0;
  const auto [end, error] = std::from_chars(timestamp.data(), timestamp.data() + timestamp.size(), sent);
  if (error != std::errc() || end != timestamp.data() + timestamp.size()) {
    fail(WebhookFailure::malformed_header, "svix-timestamp must be whole Unix seconds, not \"" +
                                               std::string(timestamp.substr(0, 32)) + "\"");
  }
  const std::int64_t current = std::chrono::duration_cast<std::chrono::seconds>(
                                   now.value_or(std::chrono::system_clock::now()).time_since_epoch())
                                   .count();
  // Exactly `tolerance` away is still accepted, as Svix's own verifiers do.
  if (sent < current - tolerance.count()) {
    fail(WebhookFailure::timestamp_outside_tolerance,
         "svix-timestamp is " + std::to_string(current - sent) + " s old, more than the tolerance of " +
             std::to_string(tolerance.count()) + " s (a replay, or a clock far behind)");
  }
  if (sent > current + tolerance.count()) {
    fail(WebhookFailure::timestamp_outside_tolerance,
         "svix-timestamp is " + std::to_string(sent - current) + " s in the future, more than the tolerance of " +
             std::to_string(tolerance.count()) + " s (a clock far ahead)");
  }

  const std::string expected = secret.signature(id, timestamp, body);
  bool any_entry = false;
  std::size_t position = 0;
  while (position < signatures.size()) {
    std::size_t next = signatures.find(' ', position);
    if (next == std::string_view::npos) next = signatures.size();
    const std::string_view entry = signatures.substr(position, next - position);
    position = next + 1;
    const std::size_t comma = entry.find(',');
    if (comma == std::string_view::npos) continue;
    any_entry = true;
    // Other versions (v1a: asymmetric signatures) are not ours to check.
    if (entry.substr(0, comma) != "v1") continue;
    const std::string_view candidate = entry.substr(comma + 1);
    if (candidate.size() == kSignatureChars && CRYPTO_memcmp(candidate.data(), expected.data(), kSignatureChars) == 0) {
      return;
    }
  }
  if (!any_entry) {
    fail(WebhookFailure::malformed_header, "svix-signature holds no entry of the form \"v1,<base64>\"");
  }
  fail(WebhookFailure::bad_signature,
       "no v1 signature of svix-signature matches the body (" + std::to_string(body.size()) +
           " bytes): altered or truncated on the way, forged, or signed with another secret");
}

WebhookEvent verify_webhook(const WebhookSecret& secret, const WebhookHeaders& headers, std::string_view body,
                            std::chrono::seconds tolerance, std::optional<std::chrono::system_clock::time_point> now) {
  verify_webhook_signature(secret, headers, body, tolerance, now);
  return verified_webhook_event(body);
}

WebhookEvent verified_webhook_event(std::string_view body) {
  try {
    return construct_webhook_event(body);
  } catch (const DecodeError& error) {
    // The decoder's message may quote the body; only the path of the offending field is repeated.
    fail(WebhookFailure::malformed_body,
         "the signed body is not an event: not UTF-8 JSON of an object" +
             (error.path().empty() ? std::string() : ", or its field " + error.path() + " has the wrong kind"));
  }
}

}  // namespace trunk
