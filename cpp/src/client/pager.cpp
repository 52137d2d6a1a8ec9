#include "trunk/pager.hpp"

#include <utility>

#include "trunk/error.hpp"

namespace trunk {

TestPager::TestPager(FetchPage fetch, std::string first_page_token)
    : fetch_(std::move(fetch)), next_token_(std::move(first_page_token)) {
  // The token the walk starts from counts as given: a server answering with it again would loop.
  if (!next_token_.empty()) tokens_seen_.insert(next_token_);
}

std::optional<TestPage> TestPager::next_page() {
  if (done_) return std::nullopt;
  TestPage page = fetch_next(next_token_);
  ++pages_fetched_;
  const std::string next = page.page.next_page_token.value_or("");
  if (next.empty()) {
    done_ = true;
  } else if (!tokens_seen_.insert(next).second) {
    done_ = true;  // never fetch again: the server would hand back a page already seen
    // The token itself is not quoted: it is opaque, and a hostile server could hand back anything as a
    // page token, the API token included.
    throw PaginationError("pagination: the server returned a next_page_token it had already returned (after " +
                          std::to_string(pages_fetched_) + " pages); stopping instead of looping forever");
  }
  next_token_ = next;
  tests_returned_ += page.tests.size();
  start_prefetch();
  return page;
}

bool TestPager::fill_current() {
  while (position_ >= current_.tests.size()) {
    auto page = next_page();
    if (!page) return false;
    current_ = std::move(*page);
    position_ = 0;
  }
  return true;
}

TestPager::iterator TestPager::begin() { return iterator(fill_current() ? this : nullptr); }

const TestCase& TestPager::iterator::operator*() const { return pager_->current_.tests[pager_->position_]; }

TestPager::iterator& TestPager::iterator::operator++() {
  ++pager_->position_;
  if (!pager_->fill_current()) pager_ = nullptr;
  return *this;
}

}  // namespace trunk
