#pragma once
// Validation of every rule and decision of docs/reference/service.md.
// check(request) lists every violation at once (empty when valid); validate(request) throws
// ValidationError carrying them all. The client validates before any byte is sent; the sandbox validates
// what it receives with the same code, so both sides agree by construction.

#include <chrono>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "trunk/error.hpp"
#include "trunk/describe.hpp"
#include "trunk/requests.hpp"

namespace trunk {

inline constexpr std::int64_t kMinPageSize = 1;
inline constexpr std::int64_t kMaxPageSize = 100;
inline constexpr std::int64_t kMinSetting = 1;
inline constexpr std::int64_t kMaxSetting = 4294967295;  // 2^32 - 1
inline constexpr std::chrono::microseconds kMaxFailingTestsWindow = std::chrono::hours(24 * 7);

/// Whose ranges an integer is judged by: the contract's (the client), or the service's, which takes more where
/// a field's Rules::service_min says so (the sandbox, which stands in for the service).
enum class Judge { contract, service };

/// Every violation of the declared rules of `value`'s fields (describe.hpp: required, non-empty, ranges,
/// UUIDs, enumerations, representable times, valid UTF-8) and of its cross-field rules, fields named by their
/// wire path under `path` ("repo.host", "page_query.page_size").
template <schema::Described T>
std::vector<Violation> check(const T& value, std::string_view path, Judge judge = Judge::contract);

/// check(value, path) with the path a part has inside every request: "repo" for a Repo, "page_query" for a
/// PageQuery, "" (the root) for a request.
template <schema::Described T>
std::vector<Violation> check(const T& value) {
  if constexpr (std::is_same_v<T, Repo>) {
    return check(value, "repo");
  } else if constexpr (std::is_same_v<T, PageQuery>) {
    return check(value, "page_query");
  } else {
    return check(value, "");
  }
}

/// Throws ValidationError listing every violation of check(value); returns normally when valid.
template <typename T>
void validate(const T& value) {
  auto violations = check(value);
  if (!violations.empty()) throw ValidationError(std::move(violations));
}

/// 8-4-4-4-12 hexadecimal digits, either case.
bool is_uuid(std::string_view text) noexcept;
/// Well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
bool is_valid_utf8(std::string_view text) noexcept;

}  // namespace trunk
