#include "trunk/page_walk.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "trunk/error.hpp"

namespace trunk {

PageWalk::PageWalk(PagingStyle style, std::string first_cursor) : style_(style), next_cursor_(std::move(first_cursor)) {
  // The cursor the walk starts from counts as met: a server answering with it again would loop. In the token
  // style "" only means "the first page" (and ends a walk when a page names it).
  if (!next_cursor_.empty() || style_ == PagingStyle::cursor) seen_.insert(next_cursor_);
}

bool names_no_next_page(PagingStyle style, const std::optional<std::string>& next) noexcept {
  return !next || (style == PagingStyle::token && next->empty());
}

void PageWalk::advance(std::size_t items, const std::optional<std::string>& next) {
  ++pages_;
  items_ += items;
  if (names_no_next_page(style_, next)) {
    done_ = true;
    return;
  }
  if (!seen_.insert(*next).second) {
    done_ = true;  // never fetch again: the server would hand back a page already met
    throw PaginationError(std::string("pagination: the server returned a ") +
                          (style_ == PagingStyle::token ? "next_page_token" : "next cursor") +
                          " it had already returned (after " + std::to_string(pages_) +
                          " pages); stopping instead of looping forever");
  }
  next_cursor_ = *next;
}

std::int64_t page_size_to_ask(std::int64_t page_size, const std::optional<std::size_t>& wanted, bool size_bound,
                              bool first_page) noexcept {
  if (!wanted || (size_bound && !first_page)) return page_size;
  const auto fewer = static_cast<std::int64_t>(std::min<std::size_t>(std::max<std::size_t>(*wanted, 1), INT64_MAX));
  return std::min(page_size, fewer);
}

std::optional<std::size_t> PageWalk::wanted() const noexcept {
  if (!budget_) return std::nullopt;
  return *budget_ > items_ ? *budget_ - items_ : 0;
}

}  // namespace trunk
