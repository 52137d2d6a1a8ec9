#pragma once
// Opaque page tokens bound to the query that issued them.
//
// A token is base64url(version | offset | query digest | MAC), the MAC being a keyed SipHash-2-4 over the rest.
// open() accepts only tokens this sandbox issued for the same query (same operation, repository, organization,
// window or status filter, and page size); anything else is "foreign", which the service answers with 500.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace trunk::sandbox {

/// SipHash-2-4 of `data` under the 128-bit key (k0, k1).
std::uint64_t siphash24(std::uint64_t k0, std::uint64_t k1, std::string_view data) noexcept;

class PageTokens {
 public:
  PageTokens(std::uint64_t k0, std::uint64_t k1) noexcept : k0_(k0), k1_(k1) {}

  /// Digest of a canonical description of the query (everything but the page token).
  std::uint64_t query_digest(std::string_view canonical_query) const noexcept;
  std::string issue(std::uint64_t query_digest, std::uint32_t offset) const;
  /// The offset, or nullopt when the token is malformed, forged or was issued for another query.
  std::optional<std::uint32_t> open(std::string_view token, std::uint64_t query_digest) const noexcept;

 private:
  std::uint64_t k0_, k1_;
};

}  // namespace trunk::sandbox
