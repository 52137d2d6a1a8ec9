#pragma once
// Validation of every rule of interface.md §4/§8 and the decisions of service-facts.md.
// check(request) lists every violation at once (empty when valid); validate(request) throws
// ValidationError carrying them all. The client validates before any byte is sent; the sandbox validates
// what it receives with the same code, so both sides agree by construction.

#include <chrono>
#include <cstdint>
#include <string_view>
#include <vector>

#include "trunk/error.hpp"
#include "trunk/requests.hpp"

namespace trunk {

inline constexpr std::int64_t kMinPageSize = 1;
inline constexpr std::int64_t kMaxPageSize = 100;
inline constexpr std::int64_t kMinSetting = 1;
inline constexpr std::int64_t kMaxSetting = 4294967295;  // 2^32 - 1
inline constexpr std::chrono::microseconds kMaxFailingTestsWindow = std::chrono::hours(24 * 7);

std::vector<Violation> check(const Repo& repo, std::string_view field = "repo");
std::vector<Violation> check(const PageQuery& page_query, std::string_view field = "page_query");
std::vector<Violation> check(const ListFailingTestsRequest& request);
std::vector<Violation> check(const ListUnhealthyTestsRequest& request);
std::vector<Violation> check(const GetTestDetailsRequest& request);
std::vector<Violation> check(const UpdateQueueRequest& request);

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
