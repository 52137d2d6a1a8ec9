#include "page_token.hpp"

#include <array>
#include <cstring>

namespace trunk::sandbox {

namespace {

constexpr std::uint8_t kTokenVersion = 1;
constexpr std::size_t kPayloadBytes = 1 + 4 + 8;
constexpr std::size_t kTokenBytes = kPayloadBytes + 8;
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

constexpr std::uint64_t rotl(std::uint64_t x, int b) noexcept { return (x << b) | (x >> (64 - b)); }

void put_le(std::uint8_t* out, std::uint64_t value, int bytes) noexcept {
  for (int i = 0; i < bytes; ++i) out[i] = static_cast<std::uint8_t>(value >> (8 * i));
}
std::uint64_t get_le(const std::uint8_t* in, int bytes) noexcept {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= static_cast<std::uint64_t>(in[i]) << (8 * i);
  return value;
}

int alphabet_index(char c) noexcept {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

std::string base64url(const std::uint8_t* data, std::size_t size) {
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (std::size_t i = 0; i < size; ++i) {
    buffer = (buffer << 8) | data[i];
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kAlphabet[(buffer >> bits) & 0x3F];
    }
  }
  if (bits > 0) out += kAlphabet[(buffer << (6 - bits)) & 0x3F];
  return out;
}

}  // namespace

std::uint64_t siphash24(std::uint64_t k0, std::uint64_t k1, std::string_view data) noexcept {
  std::uint64_t v0 = 0x736f6d6570736575ULL ^ k0;
  std::uint64_t v1 = 0x646f72616e646f6dULL ^ k1;
  std::uint64_t v2 = 0x6c7967656e657261ULL ^ k0;
  std::uint64_t v3 = 0x7465646279746573ULL ^ k1;
  auto round = [&] {
    v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);
    v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;
    v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;
    v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);
  };
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(data.data());
  const std::size_t full = data.size() / 8 * 8;
  for (std::size_t i = 0; i < full; i += 8) {
    const std::uint64_t m = get_le(bytes + i, 8);
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  std::uint64_t last = static_cast<std::uint64_t>(data.size() & 0xFF) << 56;
  last |= get_le(bytes + full, static_cast<int>(data.size() - full));
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xFF;
  for (int i = 0; i < 4; ++i) round();
  return v0 ^ v1 ^ v2 ^ v3;
}

std::uint64_t PageTokens::query_digest(std::string_view canonical_query) const noexcept {
  // A different key than the MAC's, so the digest reveals nothing useful about the MAC key.
  return siphash24(k1_, k0_, canonical_query);
}

std::string PageTokens::issue(std::uint64_t query_digest, std::uint32_t offset) const {
  std::array<std::uint8_t, kTokenBytes> raw{};
  raw[0] = kTokenVersion;
  put_le(raw.data() + 1, offset, 4);
  put_le(raw.data() + 5, query_digest, 8);
  const std::uint64_t mac =
      siphash24(k0_, k1_, std::string_view(reinterpret_cast<const char*>(raw.data()), kPayloadBytes));
  put_le(raw.data() + kPayloadBytes, mac, 8);
  return base64url(raw.data(), raw.size());
}

std::optional<std::uint32_t> PageTokens::open(std::string_view token, std::uint64_t query_digest) const noexcept {
  if (token.size() != (kTokenBytes * 8 + 5) / 6) return std::nullopt;
  std::array<std::uint8_t, kTokenBytes> raw{};
  std::uint32_t buffer = 0;
  int bits = 0;
  std::size_t at = 0;
  for (char c : token) {
    const int v = alphabet_index(c);
    if (v < 0) return std::nullopt;
    buffer = (buffer << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (at < raw.size()) raw[at++] = static_cast<std::uint8_t>(buffer >> bits);
    }
  }
  if (at != raw.size() || raw[0] != kTokenVersion) return std::nullopt;
  const std::uint64_t mac =
      siphash24(k0_, k1_, std::string_view(reinterpret_cast<const char*>(raw.data()), kPayloadBytes));
  // Constant-time comparison of the MAC (tokens are not secrets, but there is no reason to leak timing).
  const std::uint64_t given = get_le(raw.data() + kPayloadBytes, 8);
  if ((mac ^ given) != 0) return std::nullopt;
  if (get_le(raw.data() + 5, 8) != query_digest) return std::nullopt;
  return static_cast<std::uint32_t>(get_le(raw.data() + 1, 4));
}

}  // namespace trunk::sandbox
