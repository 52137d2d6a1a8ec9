#pragma once
// Pagination of v2 (docs/reference/v2.md#pagination): every listing takes `limit`, `cursor` and `includeTotal` and
// answers `data`, `nextCursor` (null on the last page), `hasMore` and, when asked, `total`. Declared once here and
// spliced into each listing's request and page, so every v2 listing pages alike (PageTraits<V2Page>, pager.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trunk/describe.hpp"

namespace trunk {

/// The items a v2 page holds when the request sets no `limit` (the service's default; the sandbox's too).
inline constexpr std::int64_t kV2DefaultLimit = 25;
/// The most items a v2 page may hold: a reader of a whole listing asks for it (a quarter of the requests).
inline constexpr std::int64_t kV2MaxLimit = 100;

/// The query fields of every v2 listing. `cursor` is the listing's position: pagers set it.
#define TRUNK_V2_PAGE_QUERY_FIELDS(X)                                                                         \
  X(std::optional<std::int64_t>, limit, "limit", {}, (schema::Rules{.min = 1, .max = kV2MaxLimit}),          \
    "items per page, 1..100 (service default 25)")                                                           \
  X(std::optional<std::string>, cursor, "cursor", {}, (schema::Rules{.non_empty = true, .page_position = true}), \
    "the page to read: a nextCursor of the previous page of the same listing; absent for the first")          \
  X(std::optional<bool>, include_total, "includeTotal", {}, schema::kNone, "also answer the listing's total")

/// The answer fields of every v2 listing, after its `data` row.
#define TRUNK_V2_PAGE_FIELDS(X)                                                                               \
  X(std::optional<std::string>, next_cursor, "nextCursor", {}, (schema::Rules{.required = true, .nullable = true}), \
    "cursor of the next page; null on the last page")                                                        \
  X(std::optional<bool>, has_more, "hasMore", {}, schema::kRequired, "whether another page follows")         \
  X(std::optional<std::int64_t>, total, "total", {}, schema::kNone, "items of the whole listing, when asked")

}  // namespace trunk
