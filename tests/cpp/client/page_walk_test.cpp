// PageWalk (trunk/page_walk.hpp): the pure rules of walking a listing, without any fetching - where a walk ends,
// the loop guard, the budget.

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "trunk/error.hpp"
#include "trunk/page_walk.hpp"

namespace trunk {
namespace {

TEST(PageWalk, ThePageThatNamesNoNextOneIsTheLast) {
  EXPECT_TRUE(names_no_next_page(PagingStyle::token, std::nullopt));
  EXPECT_TRUE(names_no_next_page(PagingStyle::token, ""));
  EXPECT_FALSE(names_no_next_page(PagingStyle::token, "t2"));
  EXPECT_TRUE(names_no_next_page(PagingStyle::cursor, std::nullopt));
  EXPECT_FALSE(names_no_next_page(PagingStyle::cursor, ""));  // a cursor may be "": only its absence ends
  EXPECT_FALSE(names_no_next_page(PagingStyle::cursor, "c2"));
}

TEST(PageWalk, AnEmptyPageThatNamesANextOneDoesNotEndTheWalk) {
  PageWalk walk(PagingStyle::token, "");
  walk.advance(0, "t2");
  EXPECT_FALSE(walk.done());
  EXPECT_EQ(walk.next_cursor(), "t2");
  walk.advance(3, "");
  EXPECT_TRUE(walk.done());
  EXPECT_EQ(walk.pages(), 2U);
  EXPECT_EQ(walk.items(), 3U);
}

TEST(PageWalk, ACursorMetBeforeIsAPaginationErrorThatNeverQuotesIt) {
  PageWalk walk(PagingStyle::token, "start-token");
  walk.advance(1, "t2");
  try {
    walk.advance(1, "start-token");  // the cursor the walk started from counts as met
    FAIL() << "a repeated token must be a PaginationError";
  } catch (const PaginationError& error) {
    EXPECT_EQ(std::string(error.what()).find("start-token"), std::string::npos) << error.what();
  }
  EXPECT_TRUE(walk.done());
}

TEST(PageWalk, TheBudgetSaysWhenNoFurtherPageIsWanted) {
  PageWalk walk(PagingStyle::cursor, "");
  EXPECT_EQ(walk.wanted(), std::nullopt);
  walk.limit(5);
  EXPECT_EQ(walk.wanted(), 5U);
  walk.advance(4, "c2");
  EXPECT_TRUE(walk.wants_more());
  EXPECT_EQ(walk.wanted(), 1U);
  walk.advance(1, "c3");
  EXPECT_FALSE(walk.wants_more());  // 5 items met: enough, though the walk is not done
  EXPECT_FALSE(walk.done());
  EXPECT_EQ(walk.wanted(), 0U);
}

TEST(PageSizeToAsk, FewerOnlyWhereTheCursorAllowsIt) {
  // No budget, or a budget of the page size or more: the request's own size.
  EXPECT_EQ(page_size_to_ask(10, std::nullopt, false, false), 10);
  EXPECT_EQ(page_size_to_ask(10, 10, false, false), 10);
  EXPECT_EQ(page_size_to_ask(10, 11, true, true), 10);
  // Fewer wanted: fewer asked for, unless the cursor is bound to the size and this is not the first page.
  EXPECT_EQ(page_size_to_ask(10, 9, false, false), 9);
  EXPECT_EQ(page_size_to_ask(10, 9, true, true), 9);
  EXPECT_EQ(page_size_to_ask(10, 9, true, false), 10);
  // Never 0 (the service's minimum is 1), and a huge budget does not wrap.
  EXPECT_EQ(page_size_to_ask(10, 0, false, false), 1);
  EXPECT_EQ(page_size_to_ask(10, SIZE_MAX, false, false), 10);
}

}  // namespace
}  // namespace trunk
