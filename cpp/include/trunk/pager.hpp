#pragma once
// Pager<Page>: lazy pagination over any listing; TestPager = Pager<TestPage> (list-failing-tests,
// list-unhealthy-tests).
//
//   for (const trunk::TestCase& test : client.failing_tests(request)) { ... }   // every item of every page
//   auto pager = client.unhealthy_tests(request);
//   while (auto page = pager.next_page()) { ... }                              // page by page
//
// A listing joins by specialising PageTraits<Page> (below): its item type, the page's items, how the page names
// the next one and in which style. Everything else - iteration, the limit, the loop guard - comes with
// Pager<Page>.
//
// A pager reads its pages from a PageSource<Page>, in order. Where the pages come from is the source's business:
//  - a Client's listings read from its page pipeline (client/page_pipeline.hpp): the pages are requested on the
//    client's transfer engine, the next one as soon as the previous page's answer is in (its syntax checked and
//    its next cursor read on the engine thread), at most two pages waiting unread, so the network wait overlaps
//    the caller's work and the decoding (ClientOptions::prefetch_pages; off: a page is requested when asked for);
//  - Pager(fetch, first_cursor) reads from a fetch function, on demand, on the caller's thread.
// Both walk by the same rules (PageWalk, page_walk.hpp): single use, forward once from the first cursor ("" = the
// first page), stopping after the last page; a token or cursor the server hands back twice is a PaginationError.
// Errors of a fetch (ApiError, TransportError, PaginationError...) propagate from next_page() or from the
// iterator's operator++ / begin(), in page order: the pages before the failed one are all handed out first.
// A walk ends at its first error, as a Python generator does: the error is thrown once and next_page() returns
// nullopt afterwards. Except CancelledError: an interrupted wait leaves the walk where it was, and the next call
// requests that page again.
//
// Lifetime: a pager made by a Client refers to that Client, which must outlive it. A pager is not thread-safe
// (the Client is): use one pager per thread. Dropping a pager cancels the request it has in flight and wipes the
// answers nobody read.

#include <array>
#include <cstddef>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/error.hpp"
#include "trunk/merge_queue_requests.hpp"
#include "trunk/merge_queue_v2.hpp"
#include "trunk/page.hpp"
#include "trunk/page_walk.hpp"
#include "trunk/responses.hpp"
#include "trunk/test_case.hpp"

namespace trunk {

/// The customization point of Pager<Page>. A specialisation provides:
///   using Item = ...;                                          the items a page holds
///   static constexpr PagingStyle style = ...;
///   static std::vector<Item>& items(Page& page);               the page's items
///   static std::optional<std::string> next(const Page& page);  the next page's token or cursor
///   static std::string cursor_of(const Request&);              where a request starts ("" = first page)
///   static void set_cursor(Request&, const std::string&);      makes a request read the page a cursor names
///   static constexpr WireAt wire_at();                         where the answer's JSON holds the items and the
///                                                              next cursor (the page pipeline reads them there
///                                                              before decoding), from the declarations' wire
///                                                              names
template <class Page>
struct PageTraits;

/// Where a page's answer holds its items (a key of the root object) and its next cursor (a path of keys).
struct WireAt {
  std::string_view items;
  std::array<std::string_view, 2> next;  ///< next[1] empty: the cursor is a key of the root object
};

/// The wire name of `member` in T's declaration (describe.hpp); "" if it is not a field of T.
template <schema::Described T, typename M>
constexpr std::string_view wire_name_of(M T::*member) {
  std::string_view found;
  schema::for_each_field<T>([&](const auto& field) {
    if constexpr (std::is_same_v<decltype(field.member), M T::*>) {
      if (field.member == member) found = field.wire;
    }
  });
  return found;
}

/// Token style: TestPage's page.next_page_token.
template <>
struct PageTraits<TestPage> {
  using Item = TestCase;
  static constexpr PagingStyle style = PagingStyle::token;
  static std::vector<TestCase>& items(TestPage& page) noexcept { return page.tests; }
  static std::optional<std::string> next(const TestPage& page) { return page.page.next_page_token; }
  static std::string cursor_of(const auto& request) { return request.page_query.page_token; }
  static void set_cursor(auto& request, const std::string& token) { request.page_query.page_token = token; }
  static constexpr WireAt wire_at() {
    return {wire_name_of(&TestPage::tests), {wire_name_of(&TestPage::page), wire_name_of(&PageInfo::next_page_token)}};
  }
};

/// Token style: the quarantined listing's page.next_page_token.
template <>
struct PageTraits<QuarantinedTestPage> {
  using Item = QuarantinedTest;
  static constexpr PagingStyle style = PagingStyle::token;
  static std::vector<QuarantinedTest>& items(QuarantinedTestPage& page) noexcept { return page.quarantined_tests; }
  static std::optional<std::string> next(const QuarantinedTestPage& page) { return page.page.next_page_token; }
  static std::string cursor_of(const auto& request) { return request.page_query.page_token; }
  static void set_cursor(auto& request, const std::string& token) { request.page_query.page_token = token; }
  static constexpr WireAt wire_at() {
    return {wire_name_of(&QuarantinedTestPage::quarantined_tests),
            {wire_name_of(&QuarantinedTestPage::page), wire_name_of(&PageInfo::next_page_token)}};
  }
};

/// Cursor style: listPullRequests' nextCursor, absent on the last page; the request's cursor is not sent for
/// the first page.
template <>
struct PageTraits<PullRequestPage> {
  using Item = PullRequest;
  static constexpr PagingStyle style = PagingStyle::cursor;
  static std::vector<PullRequest>& items(PullRequestPage& page) noexcept { return page.pull_requests; }
  static std::optional<std::string> next(const PullRequestPage& page) { return page.next_cursor; }
  static std::string cursor_of(const ListPullRequestsRequest& request) { return request.cursor.value_or(""); }
  static void set_cursor(ListPullRequestsRequest& request, const std::string& cursor) {
    if (cursor.empty()) {
      request.cursor.reset();
    } else {
      request.cursor = cursor;
    }
  }
  static constexpr WireAt wire_at() {
    return {wire_name_of(&PullRequestPage::pull_requests), {wire_name_of(&PullRequestPage::next_cursor), ""}};
  }
};

/// A page of a v2 listing (v2_page.hpp): its items in `data`, the next page's cursor in `nextCursor` (null on the
/// last page), the request's position in its `cursor`, absent for the first page.
template <class Page>
concept V2Page = requires(Page page) {
  page.data;
  page.next_cursor;
  page.has_more;
};

/// Cursor style, every v2 listing alike.
template <V2Page Page>
struct PageTraits<Page> {
  using Item = typename decltype(Page::data)::value_type;
  static constexpr PagingStyle style = PagingStyle::cursor;
  static std::vector<Item>& items(Page& page) noexcept { return page.data; }
  static std::optional<std::string> next(const Page& page) { return page.next_cursor; }
  static std::string cursor_of(const auto& request) { return request.cursor.value_or(""); }
  static void set_cursor(auto& request, const std::string& cursor) {
    if (cursor.empty()) {
      request.cursor.reset();
    } else {
      request.cursor = cursor;
    }
  }
  static constexpr WireAt wire_at() { return {wire_name_of(&Page::data), {wire_name_of(&Page::next_cursor), ""}}; }
};

/// Whether `page` is the last of its listing (PageWalk's rule): what a progress report says when it closes.
template <class Page>
bool is_last_page(const Page& page) {
  return names_no_next_page(PageTraits<Page>::style, PageTraits<Page>::next(page));
}

/// What a pager tells its fetch function besides the cursor.
struct FetchContext {
  /// How many more items the caller may read, this page's included (Pager::limit_prefetch); nullopt: no limit.
  std::optional<std::size_t> wanted;
};

/// Where a Pager reads its pages from, in order. Implementations walk by PageWalk's rules.
template <class Page>
class PageSource {
 public:
  virtual ~PageSource() = default;
  /// The next page; nullopt after the last. Throws what ended the walk (see the top of this file).
  virtual std::optional<Page> next() = 0;
  /// next() into `page`, which may hold a page read before (a source that decodes reuses its memory); false
  /// after the last.
  virtual bool next_into(Page& page) {
    std::optional<Page> next_page = next();
    if (!next_page) return false;
    page = std::move(*next_page);
    return true;
  }
  /// The caller will read at most `max_items` items in all: no page is fetched ahead once the pages handed out
  /// hold that many.
  virtual void limit(std::size_t max_items) = 0;
  /// True once next() would return nullopt.
  virtual bool done() const = 0;
  /// Calls `ready` once next() would not wait for the network: at once, on this thread, or later on another
  /// (the client's engine thread). A source that fetches on demand is always ready (its next() fetches).
  virtual void when_ready(std::function<void()> ready) { ready(); }
  /// Drops what when_ready() registered, uncalled, and the request in flight; the walk stays where it was.
  virtual void cancel() {}
};

/// Pages from a fetch function, on demand, on the caller's thread.
template <class Page>
class FetchedPages final : public PageSource<Page> {
 public:
  using Traits = PageTraits<Page>;
  using FetchPage = std::function<Page(const std::string& cursor, const FetchContext& context)>;

  FetchedPages(FetchPage fetch, std::string first_cursor)
      : fetch_(std::move(fetch)), walk_(Traits::style, std::move(first_cursor)) {}

  std::optional<Page> next() override {
    if (walk_.done() || failed_) return std::nullopt;
    try {
      Page page = fetch_(walk_.next_cursor(), FetchContext{walk_.wanted()});
      walk_.advance(Traits::items(page).size(), Traits::next(page));
      return page;
    } catch (const CancelledError&) {
      throw;  // the walk stays where it was
    } catch (...) {
      failed_ = true;
      throw;
    }
  }
  void limit(std::size_t max_items) override { walk_.limit(max_items); }
  bool done() const override { return walk_.done() || failed_; }

 private:
  FetchPage fetch_;
  PageWalk walk_;
  bool failed_ = false;
};

template <class Page>
class Pager {
 public:
  using Traits = PageTraits<Page>;
  using Item = typename Traits::Item;
  using FetchPage = typename FetchedPages<Page>::FetchPage;

  /// Usually made by a Client (failing_tests, unhealthy_tests...).
  explicit Pager(std::unique_ptr<PageSource<Page>> source) : source_(std::move(source)) {}
  /// Pages fetched by `fetch` on demand, from `first_cursor` ("" = the first page).
  Pager(FetchPage fetch, std::string first_cursor)
      : source_(std::make_unique<FetchedPages<Page>>(std::move(fetch), std::move(first_cursor))) {}

  Pager(Pager&&) noexcept = default;
  Pager& operator=(Pager&&) noexcept = default;
  Pager(const Pager&) = delete;
  Pager& operator=(const Pager&) = delete;

  /// Fetches and returns the next page; nullopt once the last page has been returned.
  std::optional<Page> next_page() {
    std::optional<Page> page = source_->next();
    if (page) ++pages_fetched_;
    return page;
  }

  /// next_page() into `page`: false after the last. `page` may hold the previous page, whose memory (strings,
  /// lists) the next one then reuses - for a caller that only reads each page, as a sink into columns does.
  bool next_page_into(Page& page) {
    if (!source_->next_into(page)) return false;
    ++pages_fetched_;
    return true;
  }

  /// next_page() without waiting: `done` gets the page (nullopt after the last) or the error, once - at once on
  /// this thread when the page is already in, else on the client's engine thread when it arrives, where it is
  /// decoded (so `done` should hand the page over to the caller's loop rather than work there). The pager must
  /// stay where it is, and no other call be made on it, until `done` has run. For event loops (the Python
  /// bindings' async listings).
  void next_page_async(std::function<void(std::optional<Page> page, std::exception_ptr error)> done) {
    source_->when_ready([this, done = std::move(done)]() mutable {
      std::optional<Page> page;
      std::exception_ptr error;
      try {
        page = next_page();
      } catch (...) {
        error = std::current_exception();
      }
      done(std::move(page), std::move(error));
    });
  }

  /// Calls `ready` once next_page() / next_page_into() would not wait for the network: at once on this thread,
  /// or later on the client's engine thread. For an event loop that reads each page on its own thread (the
  /// Python async listings' Arrow path), so that the engine thread only moves bytes.
  void when_ready(std::function<void()> ready) { source_->when_ready(std::move(ready)); }

  /// Ends a next_page_async() or when_ready() still waiting: its `done` is dropped uncalled (the request in flight cancelled); the
  /// walk stays where it was. Safe from any thread while `done` has not started.
  void cancel_async() { source_->cancel(); }

  /// The caller will read at most `max_items` items in all: once the pages returned hold that many, no further
  /// page is requested ahead (so a walk cut short by a limit costs no extra request).
  void limit_prefetch(std::size_t max_items) { source_->limit(max_items); }

  /// True once the last page has been returned (next_page() would return nullopt).
  bool done() const { return source_->done(); }
  /// Number of pages returned so far.
  std::size_t pages_fetched() const noexcept { return pages_fetched_; }

  /// Input iterator over every item of every remaining page. Dereferencing gives a reference into the current
  /// page, valid until the iterator is incremented.
  class iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using iterator_concept = std::input_iterator_tag;
    using value_type = Item;
    using difference_type = std::ptrdiff_t;
    using reference = const Item&;
    using pointer = const Item*;

    iterator() = default;
    reference operator*() const { return Traits::items(pager_->current_)[pager_->position_]; }
    pointer operator->() const { return &**this; }
    iterator& operator++() {
      ++pager_->position_;
      if (!pager_->fill_current()) pager_ = nullptr;
      return *this;
    }
    void operator++(int) { ++*this; }
    friend bool operator==(const iterator& it, std::default_sentinel_t) noexcept { return it.pager_ == nullptr; }

   private:
    friend class Pager;
    explicit iterator(Pager* pager) : pager_(pager) {}
    Pager* pager_ = nullptr;  // nullptr = at the end
  };

  /// Fetches the first page when needed. Call once: the pager is single use.
  iterator begin() { return iterator(fill_current() ? this : nullptr); }
  std::default_sentinel_t end() const noexcept { return {}; }

 private:
  /// Makes the current page hold at least one unread item, fetching (and skipping empty) pages as needed;
  /// false when the listing is exhausted.
  bool fill_current() {
    while (position_ >= Traits::items(current_).size()) {
      auto page = next_page();
      if (!page) return false;
      current_ = std::move(*page);
      position_ = 0;
    }
    return true;
  }

  std::unique_ptr<PageSource<Page>> source_;
  std::size_t pages_fetched_ = 0;
  Page current_{};
  std::size_t position_ = 0;  // index of the next unread item of current_
};

/// Both test listings (list-failing-tests, list-unhealthy-tests).
using TestPager = Pager<TestPage>;

}  // namespace trunk
