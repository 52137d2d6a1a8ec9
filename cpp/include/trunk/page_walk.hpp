#pragma once
// PageWalk: the rules of walking a listing forward, page by page - pure, no I/O, the same for every way pages
// are fetched (the Client's page pipeline, a Pager over a fetch function). Kept apart from the fetching, as
// retry_policy.hpp keeps the retry rules apart from the transfer loop, so that one behaviour holds everywhere:
//  - the walk starts from a cursor ("" = the first page) and ends after the page that names no next one: an
//    absent cursor, or "" in the token style (PagingStyle);
//  - a page that is empty but names a next one does not end it (the server decides where the listing ends);
//  - a next token or cursor the walk already met (the one it started from included) is a PaginationError: a
//    misbehaving server cannot loop it forever. The message never quotes it: a page token is opaque, and a
//    hostile server could hand back anything, the API token included;
//  - a budget of items (the caller's max_results) says when no further page is wanted.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>

namespace trunk {

enum class PagingStyle {
  token,   ///< the next page's token; "" or absent on the last page
  cursor,  ///< the next page's cursor; absent on the last page
};

/// Whether a page that names `next` (nullopt: none) is the last of a walk in `style`: no cursor, or "" in the
/// token style. An empty page that names a next one is not the last.
bool names_no_next_page(PagingStyle style, const std::optional<std::string>& next) noexcept;

/// How many items the request for the next page asks for: the request's own `page_size`, or fewer when the caller
/// wants only `wanted` more (its max_results), so that the last page brings only what is read. Not where the
/// listing binds its cursors to the page size (`size_bound`: v1's page tokens) past the first page, whose
/// cursor a request of another size would not accept. At least 1.
std::int64_t page_size_to_ask(std::int64_t page_size, const std::optional<std::size_t>& wanted, bool size_bound,
                              bool first_page) noexcept;

class PageWalk {
 public:
  PageWalk(PagingStyle style, std::string first_cursor);

  /// The cursor of the page to fetch next; meaningless once done().
  const std::string& next_cursor() const noexcept { return next_cursor_; }
  /// True after the last page (or a repeated cursor): nothing more is fetched.
  bool done() const noexcept { return done_; }
  /// Pages and items met so far.
  std::size_t pages() const noexcept { return pages_; }
  std::size_t items() const noexcept { return items_; }

  /// Takes in the page just fetched: its item count and the next cursor it names (nullopt: none). Throws
  /// PaginationError when that cursor was met before (the walk is then done).
  void advance(std::size_t items, const std::optional<std::string>& next);

  /// The caller will read at most `max_items` items in all.
  void limit(std::size_t max_items) noexcept { budget_ = max_items; }
  /// Whether a page not asked for yet is worth fetching ahead: not done, and the pages met hold fewer items than
  /// the budget.
  bool wants_more() const noexcept { return !done_ && (!budget_ || items_ < *budget_); }
  /// How many more items the caller may read; nullopt: no limit.
  std::optional<std::size_t> wanted() const noexcept;

 private:
  PagingStyle style_;
  std::string next_cursor_;
  std::unordered_set<std::string> seen_;
  std::optional<std::size_t> budget_;
  std::size_t pages_ = 0;
  std::size_t items_ = 0;
  bool done_ = false;
};

}  // namespace trunk
