#pragma once
// Pager<Page>: lazy pagination over any listing; TestPager = Pager<TestPage> (list-failing-tests,
// list-unhealthy-tests).
//
//   for (const trunk::TestCase& test : client.failing_tests(request)) { ... }   // every item of every page
//   auto pager = client.unhealthy_tests(request);
//   while (auto page = pager.next_page()) { ... }                              // page by page
//
// A listing joins by specialising PageTraits<Page> (below): its item type, the page's items, how the page names
// the next one and in which style. Everything else - iteration, max_results, the rest of a half-read page, the
// counts, the loop guard - comes with Pager<Page>, the one cursor every consumer reads (the Python iterators,
// sync and async, included).
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
#include <atomic>
#include <algorithm>
#include <cstdint>
#include <span>
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
#include "trunk/v2_page.hpp"

namespace trunk {

/// The customization point of Pager<Page>. A specialisation provides:
///   using Item = ...;                                          the items a page holds
///   static constexpr PagingStyle style = ...;
///   static auto& items(auto& page);                            the page's items (const or not)
///   static std::optional<std::string> next(const Page& page);  the next page's token or cursor
///   static std::string cursor_of(const Request&);              where a request starts ("" = first page)
///   static void set_cursor(Request&, const std::string&);      makes a request read the page a cursor names
///   static constexpr WireAt wire_at();                         where the answer's JSON holds the items and the
///                                                              next cursor (the page pipeline reads them there
///                                                              before decoding), from the declarations' wire
///                                                              names
///   static std::optional<std::int64_t> total(const Page&);     the listing's total, when the page says it
///                                                              (optional)
///   static std::int64_t page_size(const Request&);             the items a request asks for per page
///   static void set_page_size(Request&, std::int64_t);
///   static constexpr bool page_size_bound;                     whether the listing's cursors are bound to the
///                                                              page size (page_size_to_ask, page_walk.hpp)
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
  static auto& items(auto& page) noexcept { return page.tests; }  // const or not
  static std::optional<std::string> next(const TestPage& page) { return page.page.next_page_token; }
  static std::optional<std::int64_t> total(const TestPage& page) { return page.page.total_rows; }
  static std::string cursor_of(const auto& request) { return request.page_query.page_token; }
  static void set_cursor(auto& request, const std::string& token) { request.page_query.page_token = token; }
  static std::int64_t page_size(const auto& request) { return request.page_query.page_size; }
  static void set_page_size(auto& request, std::int64_t size) { request.page_query.page_size = size; }
  static constexpr bool page_size_bound = true;  // an opaque page token, issued for one page size
  static constexpr WireAt wire_at() {
    return {wire_name_of(&TestPage::tests), {wire_name_of(&TestPage::page), wire_name_of(&PageInfo::next_page_token)}};
  }
};

/// Token style: the quarantined listing's page.next_page_token.
template <>
struct PageTraits<QuarantinedTestPage> {
  using Item = QuarantinedTest;
  static constexpr PagingStyle style = PagingStyle::token;
  static auto& items(auto& page) noexcept { return page.quarantined_tests; }
  static std::optional<std::string> next(const QuarantinedTestPage& page) { return page.page.next_page_token; }
  static std::optional<std::int64_t> total(const QuarantinedTestPage& page) { return page.page.total_rows; }
  static std::string cursor_of(const auto& request) { return request.page_query.page_token; }
  static void set_cursor(auto& request, const std::string& token) { request.page_query.page_token = token; }
  static std::int64_t page_size(const auto& request) { return request.page_query.page_size; }
  static void set_page_size(auto& request, std::int64_t size) { request.page_query.page_size = size; }
  static constexpr bool page_size_bound = true;
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
  static auto& items(auto& page) noexcept { return page.pull_requests; }
  static std::optional<std::string> next(const PullRequestPage& page) { return page.next_cursor; }
  static std::optional<std::int64_t> total(const PullRequestPage&) { return std::nullopt; }
  static std::string cursor_of(const ListPullRequestsRequest& request) { return request.cursor.value_or(""); }
  static std::int64_t page_size(const ListPullRequestsRequest& request) { return request.take; }
  static void set_page_size(ListPullRequestsRequest& request, std::int64_t size) { request.take = size; }
  static constexpr bool page_size_bound = false;  // the cursor is the id of the last pull request read
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
  static auto& items(auto& page) noexcept { return page.data; }
  static std::optional<std::string> next(const Page& page) { return page.next_cursor; }
  static std::optional<std::int64_t> total(const Page& page) { return page.total; }
  static std::string cursor_of(const auto& request) { return request.cursor.value_or(""); }
  static std::int64_t page_size(const auto& request) { return request.limit.value_or(kV2DefaultLimit); }
  static void set_page_size(auto& request, std::int64_t size) { request.limit = size; }
  static constexpr bool page_size_bound = false;  // a cursor is bound to its filter, not to the limit
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
  /// How many more items the caller may read, this page's included (Pager::max_results); nullopt: no limit.
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

/// What a pager has fetched and handed out so far. Readable from any thread while another walks the pager
/// (Pager::counts): a notebook shows it while a listing is being read.
struct ListingCounts {
  std::size_t pages = 0;  ///< pages fetched
  std::size_t items = 0;  ///< items in them
  std::size_t given = 0;  ///< items handed out (by items, pages or drains)
  std::optional<std::int64_t> total;  ///< the listing's total, from the first page that says it
};

/// The one cursor over a listing: the page source, the caller's budget (max_results), the rest of a half-read
/// page, the counts and the progress hook, whichever way the listing is read - item by item (the iterator,
/// take_item), page by page (next_page), or drained into a sink (drain: Python objects, Arrow columns). The
/// Python iterators, sync and async, are thin wrappers over it, so they cannot disagree: a page handed out after
/// some of its items were taken is the rest of it, and the page that crosses max_results is cut there.
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

  /// The caller takes at most `count` items in all: items, pages and drains stop there (the page that crosses it
  /// is cut), no page is requested once the pages fetched hold that many, and the request for the last page
  /// asks for only the items still wanted where the listing allows it (page_size_to_ask). Set it before reading.
  void max_results(std::size_t count) {
    budget_ = count;
    source_->limit(count);
  }
  std::optional<std::size_t> max_results() const noexcept { return budget_; }

  /// The next page, or the rest of the page items were taken from; cut at max_results. nullopt once the listing
  /// (or the budget) is exhausted.
  std::optional<Page> next_page() {
    std::optional<Page> page(std::in_place);
    if (!next_page_into(*page)) return std::nullopt;
    return page;
  }

  /// next_page() into `page`: false at the end (`page` untouched). `page` may hold the previous page, whose memory
  /// (strings, lists) the next one then reuses - for a caller that only reads each page, as a sink into columns
  /// does. A page that fails to decode leaves `page` empty, never half read.
  bool next_page_into(Page& page) {
    if (budget_left() == 0) return false;
    if (unread() > 0) {
      page = std::exchange(current_, Page{});
      auto& items = Traits::items(page);
      items.erase(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(std::exchange(position_, 0)));
    } else if (!fetch_into(page)) {
      return false;
    }
    auto& items = Traits::items(page);
    if (items.size() > budget_left()) items.erase(items.begin() + static_cast<std::ptrdiff_t>(budget_left()), items.end());
    give(items.size());
    return true;
  }

  /// The next item, moved out (fetching as needed); nullopt at the end or once max_results were handed out.
  std::optional<Item> take_item() {
    if (!fill()) return std::nullopt;
    give(1);
    return std::move(Traits::items(current_)[position_++]);
  }

  /// Hands every remaining item to sink(std::span<Item>), a page at a time (the last one cut at max_results).
  /// Each page is read into the previous one's memory and let go before the next is waited for, so a sink that
  /// keeps only columns never holds the whole listing. The sink may move the items out.
  template <typename Sink>
  void drain(Sink&& sink) {
    while (drain_page(sink)) {
    }
  }

  /// One page of drain(): the rest of the page in hand, or the next page, to sink(std::span<Item>); false at the
  /// end. For a reader that waits for each page without blocking (when_ready), as the async listings do.
  template <typename Sink>
  bool drain_page(Sink&& sink) {
    if (!fill()) return false;
    const std::size_t take = unread();
    sink(std::span<Item>(Traits::items(current_).data() + position_, take));
    position_ += take;
    give(take);
    return true;
  }

  /// Items of the page in hand not handed out yet (readable without fetching); 0 once max_results were handed
  /// out.
  std::size_t unread() noexcept {
    // position_ may be past the end: a page whose fetch failed is emptied (fetch_into) and the next fill() reads on.
    const std::size_t size = Traits::items(current_).size();
    return std::min(size > position_ ? size - position_ : 0, budget_left());
  }
  /// True once nothing more will be handed out: the budget is spent, or the last page is read and handed out.
  bool finished() { return budget_left() == 0 || (unread() == 0 && source_->done()); }

  /// Calls `ready` once reading the next item or page would not wait for the network: at once on this thread (an
  /// item is in hand, or the listing is finished), or later on the client's engine thread. For event loops (the
  /// Python async listings), which then read on their own thread, so that the engine thread only moves bytes.
  void when_ready(std::function<void()> ready) {
    if (unread() > 0 || budget_left() == 0) {
      ready();
    } else {
      source_->when_ready(std::move(ready));
    }
  }

  /// next_page() without waiting: `done` gets the page (nullopt at the end) or the error, once - at once on
  /// this thread when the page is already in, else on the client's engine thread when it arrives, where it is
  /// decoded (so `done` should hand the page over to the caller's loop rather than work there). The pager must
  /// stay where it is, and no other call be made on it, until `done` has run.
  void next_page_async(std::function<void(std::optional<Page> page, std::exception_ptr error)> done) {
    when_ready([this, done = std::move(done)]() mutable {
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

  /// Ends a next_page_async() or when_ready() still waiting: its `done` is dropped uncalled (the request in
  /// flight cancelled); the walk stays where it was. Safe from any thread while `done` has not started.
  void cancel_async() { source_->cancel(); }

  /// Called with each page as it is fetched (before anything of it is handed out), on the thread reading: a
  /// progress bar's hook. An exception it throws propagates from the read.
  void on_page(std::function<void(const Page&)> hook) { on_page_ = std::move(hook); }

  /// True once the last page has been fetched.
  bool done() const { return source_->done(); }
  /// Number of pages fetched so far.
  std::size_t pages_fetched() const noexcept { return tally_->pages.load(std::memory_order_relaxed); }
  /// What was fetched and handed out so far; safe from any thread (relaxed reads: a snapshot, not a fence).
  ListingCounts counts() const noexcept {
    const std::int64_t total = tally_->total.load(std::memory_order_relaxed);
    return {tally_->pages.load(std::memory_order_relaxed), tally_->items.load(std::memory_order_relaxed),
            tally_->given.load(std::memory_order_relaxed), total < 0 ? std::nullopt : std::optional(total)};
  }

  /// Input iterator over every remaining item, up to max_results. Dereferencing gives a reference into the
  /// current page, valid until the iterator is incremented.
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
      pager_->give(1);
      ++pager_->position_;
      if (!pager_->fill()) pager_ = nullptr;
      return *this;
    }
    void operator++(int) { ++*this; }
    friend bool operator==(const iterator& it, std::default_sentinel_t) noexcept { return it.pager_ == nullptr; }

   private:
    friend class Pager;
    explicit iterator(Pager* pager) : pager_(pager) {}
    Pager* pager_ = nullptr;  // nullptr = at the end
  };

  /// Fetches the first page when needed; continues where the pager is.
  iterator begin() { return iterator(fill() ? this : nullptr); }
  std::default_sentinel_t end() const noexcept { return {}; }

 private:
  struct Tally {
    std::atomic<std::size_t> pages{0};
    std::atomic<std::size_t> items{0};
    std::atomic<std::size_t> given{0};
    std::atomic<std::int64_t> total{-1};
  };

  std::size_t budget_left() const noexcept {
    if (!budget_) return SIZE_MAX;
    const std::size_t given = tally_->given.load(std::memory_order_relaxed);
    return *budget_ > given ? *budget_ - given : 0;
  }
  void give(std::size_t count) noexcept { tally_->given.fetch_add(count, std::memory_order_relaxed); }

  /// Makes the page in hand hold an item to hand out, fetching (and skipping empty) pages into it as needed;
  /// false at the end or once max_results were handed out.
  bool fill() {
    if (budget_left() == 0) return false;
    while (position_ >= Traits::items(current_).size()) {
      if (!fetch_into(current_)) return false;  // current_ untouched: its items stay handed out
      position_ = 0;
    }
    return true;
  }

  /// The source's next page into `page`, counted and reported; false after the last (`page` untouched).
  bool fetch_into(Page& page) {
    try {
      if (!source_->next_into(page)) return false;
    } catch (...) {
      page = Page{};  // never half read
      throw;
    }
    tally_->pages.fetch_add(1, std::memory_order_relaxed);
    tally_->items.fetch_add(Traits::items(page).size(), std::memory_order_relaxed);
    if constexpr (requires { Traits::total(page); }) {  // optional: a listing may not say its total
      if (tally_->total.load(std::memory_order_relaxed) < 0) {
        if (const std::optional<std::int64_t> total = Traits::total(page)) {
          tally_->total.store(*total, std::memory_order_relaxed);
        }
      }
    }
    if (on_page_) on_page_(page);
    return true;
  }

  std::unique_ptr<PageSource<Page>> source_;
  std::unique_ptr<Tally> tally_ = std::make_unique<Tally>();  // on the heap: atomics do not move
  std::optional<std::size_t> budget_;
  std::function<void(const Page&)> on_page_;
  Page current_{};
  std::size_t position_ = 0;  // index of the next unread item of current_
};


/// Both test listings (list-failing-tests, list-unhealthy-tests).
using TestPager = Pager<TestPage>;

}  // namespace trunk
