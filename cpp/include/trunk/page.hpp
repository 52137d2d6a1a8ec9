#pragma once
// Pagination: the request's page_query and the response's page (docs/reference/service.md#pagination).

#include <cstdint>
#include <optional>
#include <string>

#include "trunk/describe.hpp"
#include "trunk/json_value.hpp"

namespace trunk {

/// 1..100 on the service (docs/reference/service.md#pagination).
/// int64 so out-of-range input can be represented and rejected.
inline constexpr schema::Rules kPageSizeRules{.required = true, .min = 1, .max = 100};

#define TRUNK_PAGE_QUERY_FIELDS(X)                                                       \
  X(std::int64_t, page_size, "page_size", {100}, kPageSizeRules, "items per page, 1..100") \
  X(std::string, page_token, "page_token", {}, (schema::Rules{.omit_if_empty = true}),   \
    "the page to read: \"\" (not sent) for the first, else a token the previous page gave")

struct PageQuery {
  TRUNK_MEMBERS(TRUNK_PAGE_QUERY_FIELDS)
  bool operator==(const PageQuery&) const = default;
};
TRUNK_DESCRIBE(PageQuery, "Which page of a listing to read.", TRUNK_PAGE_QUERY_FIELDS)

#define TRUNK_PAGE_INFO_FIELDS(X)                                                                       \
  X(std::optional<std::int64_t>, total_rows, "total_rows", {}, schema::kNone, "rows of the whole listing") \
  X(std::optional<std::int64_t>, total_pages, "total_pages", {}, schema::kNone, "pages of the whole listing") \
  X(std::optional<std::string>, next_page_token, "next_page_token", {}, schema::kNone, "\"\" on the last page") \
  X(std::optional<std::string>, prev_page_token, "prev_page_token", {}, schema::kNone, "\"\" on the first page") \
  X(std::optional<std::string>, last_page_token, "last_page_token", {}, schema::kNone, "token of the last page") \
  X(std::optional<std::int64_t>, page_index, "page_index", {}, schema::kNone, "0-based index of this page")

/// The response's page information. Every field is optional when decoding (tolerant decoder).
struct PageInfo {
  TRUNK_MEMBERS(TRUNK_PAGE_INFO_FIELDS)
  Extras extra;
  bool operator==(const PageInfo&) const = default;
};
TRUNK_DESCRIBE(PageInfo, "Page information of a listing; page_index is 0-based.", TRUNK_PAGE_INFO_FIELDS)

}  // namespace trunk
