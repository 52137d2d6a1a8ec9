#pragma once
// Pagination: the request's page_query and the response's page (interface.md §2).

#include <cstdint>
#include <optional>
#include <string>

#include "trunk/json_fwd.hpp"

namespace trunk {

struct PageQuery {
  /// 1..100 on the service (service-facts.md). int64 so out-of-range input can be represented and rejected.
  std::int64_t page_size = 100;
  /// "" (the default) asks for the first page and is not sent.
  std::string page_token;

  bool operator==(const PageQuery&) const = default;
};

/// The response's page information. Every field is optional when decoding (tolerant decoder).
struct PageInfo {
  std::optional<std::int64_t> total_rows;
  std::optional<std::int64_t> total_pages;
  std::optional<std::string> next_page_token;  ///< "" on the last page
  std::optional<std::string> prev_page_token;
  std::optional<std::string> last_page_token;
  std::optional<std::int64_t> page_index;  ///< 0-based
  Extras extra;

  bool operator==(const PageInfo&) const = default;
};

}  // namespace trunk
