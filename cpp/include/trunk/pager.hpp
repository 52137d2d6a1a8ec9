#pragma once
// Pager<Page>: lazy pagination over any listing; TestPager = Pager<TestPage> (list-failing-tests,
// list-unhealthy-tests).
//
//   for (const trunk::TestCase& test : client.failing_tests(request)) { ... }   // every item of every page
//   auto pager = client.unhealthy_tests(request);
//   while (auto page = pager.next_page()) { ... }                              // page by page
//
// A listing joins by specialising PageTraits<Page> (below): its item type, the page's items, how the page names
// the next one and in which style. Everything else - iteration, prefetching, limit_prefetch, the loop guard -
// comes with Pager<Page>. Two paging styles:
//   PagingStyle::token   the page's next token; "" or absent on the last page (page.next_page_token)
//   PagingStyle::cursor  the page's next cursor; absent on the last page (nextCursor of listPullRequests)
//
// A pager is single use: it walks forward once, starting from the first cursor it is given ("" = the first
// page). It stops after the last page, and throws PaginationError when the server hands back a token or cursor
// it already gave (or the one the walk started from), so a misbehaving server cannot loop it forever. Pages are
// fetched only when needed. Errors of a fetch (ApiError, TransportError...) propagate from next_page() or from
// the iterator's operator++ / begin().
//
// Lifetime: a pager made by a Client refers to that Client, which must outlive it. A pager is not
// thread-safe (the Client is): use one pager per thread.
//
// Prefetching (ClientOptions::prefetch_pages, on by default for the Client's pagers): as soon as a page is
// handed out, the next one is requested on a background thread, so the network wait overlaps the caller's
// work on the current page. Nothing changes in what the caller sees: pages come in order, the repeated-token
// check runs before the next page is requested, and an error of the prefetched page surfaces from the
// next_page() / operator++ that would have fetched it. A pager destroyed (or a walk abandoned) with a
// prefetch in flight stops that fetch through the std::stop_token it was given (the client's transfer ends
// within about 100 ms) and joins its thread before the destructor returns; no thread outlives the pager.
// While waiting for a prefetched page, next_page() polls the interrupt check every 100 ms (CancelledError).
//
// Reading ahead (the Client's listings, when prefetching): a fetch also requests the page after the one it was
// asked for as soon as that page's answer has arrived and its syntax is checked, before it is decoded into the
// model, so decoding overlaps the next
// transfer instead of delaying it. It never requests a cursor already requested, nor a page the caller does
// not want (FetchContext::wanted), and a pager dropped with a read-ahead in flight cancels it.

#include <array>
#include <cstddef>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include "trunk/describe.hpp"
#include "trunk/error.hpp"
#include "trunk/merge_queue_requests.hpp"
#include "trunk/page.hpp"
#include "trunk/responses.hpp"
#include "trunk/test_case.hpp"

namespace trunk {

enum class PagingStyle {
  token,   ///< the next page's token; "" or absent on the last page
  cursor,  ///< the next page's cursor; absent on the last page
};

/// The customization point of Pager<Page>. A specialisation provides:
///   using Item = ...;                                          the items a page holds
///   static constexpr PagingStyle style = ...;
///   static std::vector<Item>& items(Page& page);               the page's items
///   static std::optional<std::string> next(const Page& page);  the next page's token or cursor
///   static std::string cursor_of(const Request&);              where a request starts ("" = first page)
///   static void set_cursor(Request&, const std::string&);      makes a request read the page a cursor names
///   static constexpr WireAt wire_at();                         where the answer's JSON holds the items and the
///                                                              next cursor (reading ahead peeks there), from
///                                                              the declarations' wire names
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

/// What a pager tells its fetch function besides the cursor.
struct FetchContext {
  /// Requested when the pager no longer wants the page (a prefetch abandoned); the fetch should then end soon
  /// (CancelledError).
  std::stop_token stop;
  /// How many more items the caller may read, this page's included (Pager::limit_prefetch); nullopt: no limit.
  /// A fetch that reads ahead requests the following page only when this one holds fewer.
  std::optional<std::size_t> wanted;
};

/// How a pager fetches ahead (see "Prefetching" above).
struct PrefetchOptions {
  bool enabled = false;
  /// Polled every 100 ms while next_page() waits for a prefetched page; true -> CancelledError.
  std::function<bool()> interrupt_check;
};

namespace detail {

/// The background thread of a prefetching pager (not a template: the thread, its stop_source and the waiting
/// with interrupt polling are the same for every page type; pager_prefetch.cpp). One thread for the worker's
/// life, running at most one job at a time; a job has ended before its result is read and before the next
/// one starts, and the thread is joined on destruction (in a forked child, a new thread is started instead).
class PrefetchWorker {
 public:
  explicit PrefetchWorker(std::function<bool()> interrupt_check);
  ~PrefetchWorker();  ///< abandon()
  PrefetchWorker(const PrefetchWorker&) = delete;
  PrefetchWorker& operator=(const PrefetchWorker&) = delete;

  /// Abandons a job in flight, then runs `job` on the worker's thread with a fresh stop_token.
  void start(std::function<void(std::stop_token)> job);
  /// True from start() until the job is waited for or abandoned.
  bool started() const noexcept;
  /// Waits for the job, polling the interrupt check every 100 ms: when it asks, abandons the job and throws
  /// CancelledError. Afterwards whatever the job wrote is visible to the caller.
  void wait();
  /// Requests the job's stop and waits for it to end (nothing left running afterwards).
  void abandon() noexcept;

 private:
  struct State;
  /// The state of this process's thread (replaced in a forked child).
  State& here();
  std::unique_ptr<State> state_;
};

}  // namespace detail

template <class Page>
class Pager {
 public:
  using Traits = PageTraits<Page>;
  using Item = typename Traits::Item;

  /// Fetches the page that `cursor` names ("" = the first page); see FetchContext.
  using FetchPage = std::function<Page(const std::string& cursor, const FetchContext& context)>;
  using PrefetchOptions = trunk::PrefetchOptions;

  /// Usually made by a Client (failing_tests, unhealthy_tests...).
  Pager(FetchPage fetch, std::string first_cursor, PrefetchOptions prefetch = {})
      : fetch_(std::move(fetch)), next_cursor_(std::move(first_cursor)) {
    // The cursor the walk starts from counts as given: a server answering with it again would loop.
    if (!next_cursor_.empty() || Traits::style == PagingStyle::cursor) seen_.insert(next_cursor_);
    if (prefetch.enabled) prefetcher_ = std::make_unique<detail::PrefetchWorker>(std::move(prefetch.interrupt_check));
  }
  /// Stops and joins a prefetch in flight.
  ~Pager() { abandon_prefetch(); }

  // A prefetch job writes into the pager it was started by, so moving first abandons it (the page is simply
  // requested again by the new owner).
  Pager(Pager&& other) noexcept { *this = std::move(other); }
  Pager& operator=(Pager&& other) noexcept {
    if (this == &other) return *this;
    abandon_prefetch();
    other.abandon_prefetch();
    fetch_ = std::move(other.fetch_);
    prefetcher_ = std::move(other.prefetcher_);
    prefetch_budget_ = other.prefetch_budget_;
    items_returned_ = other.items_returned_;
    next_cursor_ = std::move(other.next_cursor_);
    seen_ = std::move(other.seen_);
    done_ = other.done_;
    pages_fetched_ = other.pages_fetched_;
    current_ = std::move(other.current_);
    position_ = other.position_;
    return *this;
  }
  Pager(const Pager&) = delete;
  Pager& operator=(const Pager&) = delete;

  /// Fetches and returns the next page; nullopt once the last page has been returned.
  std::optional<Page> next_page() {
    if (done_) return std::nullopt;
    Page page = fetch_next(next_cursor_);
    ++pages_fetched_;
    const std::optional<std::string> next = Traits::next(page);
    if (!next || (Traits::style == PagingStyle::token && next->empty())) {
      done_ = true;
    } else if (!seen_.insert(*next).second) {
      done_ = true;  // never fetch again: the server would hand back a page already seen
      // The token itself is not quoted: it is opaque, and a hostile server could hand back anything as a
      // page token, the API token included.
      throw PaginationError(std::string("pagination: the server returned a ") +
                            (Traits::style == PagingStyle::token ? "next_page_token" : "next cursor") +
                            " it had already returned (after " + std::to_string(pages_fetched_) +
                            " pages); stopping instead of looping forever");
    }
    if (!done_) next_cursor_ = *next;
    items_returned_ += Traits::items(page).size();
    start_prefetch();
    return page;
  }

  /// The caller will read at most `max_items` items in all: once the pages returned hold that many, no further
  /// page is prefetched (so a walk cut short by a limit costs no extra request).
  void limit_prefetch(std::size_t max_items) noexcept { prefetch_budget_ = max_items; }

  /// True once the last page has been fetched (next_page() would return nullopt).
  bool done() const noexcept { return done_; }
  /// Number of pages fetched so far.
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

  /// The page a prefetch already requested for `cursor`, else fetch_(cursor) now.
  Page fetch_next(const std::string& cursor) {
    if (prefetcher_ && prefetcher_->started() && prefetched_cursor_ == cursor) {
      prefetcher_->wait();
      std::optional<Page> page = std::exchange(prefetched_, std::nullopt);
      if (std::exception_ptr error = std::exchange(prefetch_error_, nullptr)) std::rethrow_exception(error);
      return std::move(*page);
    }
    abandon_prefetch();  // a prefetch of another page: never two fetches at once (fetch_ is not reentrant)
    return fetch_(cursor, FetchContext{{}, wanted()});  // asked for now: only the caller's interrupt check stops it
  }

  /// With prefetching on and pages left, requests the page next_cursor_ names in the background.
  void start_prefetch() {
    if (!prefetcher_ || done_) return;
    if (prefetch_budget_ && items_returned_ >= *prefetch_budget_) return;  // the caller wants no more
    prefetcher_->abandon();
    prefetched_.reset();
    prefetch_error_ = nullptr;
    prefetched_cursor_ = next_cursor_;
    // Runs on the worker thread; this pager touches prefetched_ / prefetch_error_ only after wait() joined it.
    prefetcher_->start([this, cursor = next_cursor_, wanted = wanted()](std::stop_token stop) {
      try {
        prefetched_ = fetch_(cursor, FetchContext{std::move(stop), wanted});
      } catch (...) {
        prefetch_error_ = std::current_exception();
      }
    });
  }

  /// Items the caller may still read from the next page on (FetchContext::wanted).
  std::optional<std::size_t> wanted() const noexcept {
    if (!prefetch_budget_) return std::nullopt;
    return *prefetch_budget_ > items_returned_ ? *prefetch_budget_ - items_returned_ : 0;
  }

  void abandon_prefetch() noexcept {
    if (!prefetcher_) return;
    prefetcher_->abandon();
    prefetched_.reset();
    prefetch_error_ = nullptr;
  }

  FetchPage fetch_;
  std::unique_ptr<detail::PrefetchWorker> prefetcher_;  // null when prefetching is off
  std::string prefetched_cursor_;                       // what the started prefetch fetches
  std::optional<Page> prefetched_;                      // its page, once waited for
  std::exception_ptr prefetch_error_;                   // or its error
  std::optional<std::size_t> prefetch_budget_;          // see limit_prefetch()
  std::size_t items_returned_ = 0;                      // items in the pages next_page() returned
  std::string next_cursor_;
  std::unordered_set<std::string> seen_;
  bool done_ = false;
  std::size_t pages_fetched_ = 0;
  Page current_{};
  std::size_t position_ = 0;  // index of the next unread item of current_
};

/// Both test listings (list-failing-tests, list-unhealthy-tests).
using TestPager = Pager<TestPage>;

}  // namespace trunk
