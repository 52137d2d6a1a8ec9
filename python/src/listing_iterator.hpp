#pragma once
// ListingIterator<Page>: the Python face of trunk::Pager<Page> (paging stays in C++), one template for every
// listing; bind_pager.cpp binds it once per listing under that listing's name (TestIterator for the test
// listings).
//
// Lazy: nothing is fetched until the first item is asked for. An iterator as Python's protocol has it: iter()
// gives the iterator itself, and iterating, .pages, to_list() and to_pandas() each continue where the previous
// one stopped (`first = next(it)` then `for t in it:` sees the rest), so a finished listing yields nothing more,
// as a generator does. max_results stops after that many items without fetching another page. Every fetch runs
// with the GIL released; Ctrl-C ends it.
// The iterator owns a reference to its Client, so the Client lives as long as any iterator over it.

#include <pybind11/pybind11.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "interrupt.hpp"
#include "listing_items.hpp"
#include "trunk/client.hpp"
#include "trunk/pager.hpp"

namespace trunk::python {

template <class Page>
class ListingIterator {
 public:
  using Traits = PageTraits<Page>;
  using Item = typename Traits::Item;

  /// `query`: the call that made it, as its repr shows it (iter_failing_tests(repo=..., ...)); never the token,
  /// which no request holds.
  ListingIterator(std::shared_ptr<Client> client, Pager<Page> pager, std::optional<std::int64_t> max_results,
                  std::string query)
      : client_(std::move(client)), pager_(std::move(pager)), max_results_(max_results), query_(std::move(query)) {}

  /// Progress reporting (the facade's progress bar): on_page(items, total_rows or None, last) is called with the
  /// GIL once per page fetched, never per item, so a listing without it pays nothing. An error it raises is
  /// reported as unraisable (a broken progress bar must not lose the listing), except Ctrl-C's KeyboardInterrupt,
  /// which ends the listing as Ctrl-C does anywhere (keep_callback_error).
  void set_on_page(pybind11::object on_page) { on_page_ = hold_with_gil(std::move(on_page)); }

  /// Drops the pager with the GIL released: dropping its page pipeline takes the lock the engine thread's
  /// completions take, and a thread holding the GIL must never wait for the engine thread (which may itself be
  /// waiting for the GIL to log through Python).
  ~ListingIterator() {
    if (PyGILState_Check() != 0) {
      pybind11::gil_scoped_release release;
      Pager<Page> dropped = std::move(pager_);  // its request in flight is cancelled here
    } else {
      Pager<Page> dropped = std::move(pager_);
    }
  }
  ListingIterator(const ListingIterator&) = delete;
  ListingIterator& operator=(const ListingIterator&) = delete;

  /// Marks the iterator as started (its repr says so); starting again continues where it is.
  void start() noexcept { started_ = true; }
  bool started() const noexcept { return started_; }

  /// What has been fetched so far, read without fetching or locking (a notebook displays it while another
  /// thread may be paging): pages, their items, the items given out, and total_rows from the first page.
  struct Fetched {
    std::int64_t pages = 0;
    std::int64_t items = 0;
    std::int64_t given = 0;
    std::optional<std::int64_t> total;
  };
  Fetched fetched() const noexcept {
    const std::int64_t total = total_rows_.load(std::memory_order_relaxed);
    return {pages_fetched_.load(std::memory_order_relaxed), items_fetched_.load(std::memory_order_relaxed),
            given_.load(std::memory_order_relaxed), total < 0 ? std::nullopt : std::optional<std::int64_t>(total)};
  }
  const std::string& query() const noexcept { return query_; }

  /// The next item, or nullopt at the end (or once max_results items were given). Releases the GIL to fetch.
  std::optional<Item> next_item() {
    // Fast path, GIL held: the current page still has an item. try_lock, never lock: a thread that holds mutex_
    // may be fetching without the GIL and need it back, so waiting here with the GIL could deadlock.
    if (mutex_.try_lock()) {
      std::lock_guard lock(mutex_, std::adopt_lock);
      if (limit_reached()) return std::nullopt;
      if (position_ < items().size()) {
        give(1);
        return std::move(items()[position_++]);
      }
    }
    // Slow path: a page must be fetched (or another thread is fetching); wait without the GIL.
    return call_without_gil([&]() -> std::optional<Item> {
      std::lock_guard lock(mutex_);
      if (limit_reached() || !fill_current()) return std::nullopt;
      give(1);
      return std::move(items()[position_++]);
    });
  }

  /// The next page, cut short when it would go past max_results; nullopt at the end.
  std::optional<Page> next_page() {
    return call_without_gil([&]() -> std::optional<Page> {
      std::lock_guard lock(mutex_);
      if (limit_reached()) return std::nullopt;
      std::optional<Page> page;
      if (position_ < items().size()) {
        // Items of the current page not given out yet (items were taken before .pages was asked for, or a
        // max_results cut): hand out what is left of it.
        page = std::move(current_);
        auto& rest = Traits::items(*page);
        rest.erase(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(position_));
        current_ = Page{};
        position_ = 0;
      } else {
        page = fetch();
        if (!page) return std::nullopt;
      }
      auto& page_items = Traits::items(*page);
      if (max_results_) {
        const auto room = static_cast<std::size_t>(*max_results_ - yielded_);
        if (page_items.size() > room) {
          page_items.erase(page_items.begin() + static_cast<std::ptrdiff_t>(room), page_items.end());
        }
      }
      give(static_cast<std::int64_t>(page_items.size()));
      return page;
    });
  }

  /// Hands every remaining item to sink(std::span<Item>), a page at a time (the last one cut at max_results),
  /// with the GIL released; each page is let go before the next is waited for, so a sink that keeps only
  /// columns (ArrowBatchBuilder) never has the whole listing in memory, and works while the next page is
  /// being fetched. The sink may move the items out.
  template <typename Sink>
  void drain_pages(Sink&& sink) {
    call_without_gil([&] {
      std::lock_guard lock(mutex_);
      while (!limit_reached() && fill_current()) {
        std::size_t take = items().size() - position_;
        if (max_results_) take = std::min(take, static_cast<std::size_t>(*max_results_ - yielded_));
        sink(std::span<Item>(items().data() + position_, take));
        position_ += take;
        give(static_cast<std::int64_t>(take));
      }
    });
  }

  /// Every remaining item as a Python list. Each page's items become Python objects as the page is read (the GIL
  /// taken once per page), so they are made while the next page is on its way, not all after the last one.
  pybind11::list drain_to_list() {
    pybind11::list all;
    drain_pages([&](std::span<Item> page) {
      pybind11::gil_scoped_acquire gil;
      append_moved(all, page);
    });
    return all;
  }

  /// Every remaining item.
  std::vector<Item> drain() {
    std::vector<Item> all;
    drain_pages([&](std::span<Item> page) {
      if (all.empty()) all.reserve(expected_remaining(page.size()));
      all.insert(all.end(), std::make_move_iterator(page.begin()), std::make_move_iterator(page.end()));
    });
    return all;
  }

 private:
  /// How many items a drain that starts with a page of `first_page` items should expect: the total from the
  /// first page less what was given out before, within max_results. Only a hint for reserving, so bounded: a
  /// total_rows that is wrong must not make a huge allocation.
  std::size_t expected_remaining(std::size_t first_page) const {
    constexpr std::int64_t kMostReserved = 1 << 20;
    std::int64_t expected = total_rows_.load(std::memory_order_relaxed) - yielded_;
    if (max_results_) expected = std::min(expected, *max_results_ - yielded_);
    return static_cast<std::size_t>(std::clamp<std::int64_t>(expected, static_cast<std::int64_t>(first_page),
                                                             std::max<std::int64_t>(kMostReserved,
                                                                                    static_cast<std::int64_t>(first_page))));
  }
  std::vector<Item>& items() noexcept { return Traits::items(current_); }
  bool limit_reached() const noexcept { return max_results_ && yielded_ >= *max_results_; }
  /// Counts items given out (caller holds mutex_); the relaxed store is what fetched() reads without it.
  void give(std::int64_t count) noexcept {
    yielded_ += count;
    given_.store(yielded_, std::memory_order_relaxed);
  }
  /// Fetches pages until one holds an unread item; false at the end. Caller holds mutex_. Each page is read
  /// into the previous one, reusing its memory (strings, lists): a drain into columns then allocates nothing per
  /// item once the first page is in.
  bool fill_current() {
    while (position_ >= items().size()) {
      if (!fetch_into(current_)) return false;
      position_ = 0;
    }
    return true;
  }

  /// The pager's next page, reported to on_page_ (caller holds mutex_, not the GIL).
  std::optional<Page> fetch() {
    std::optional<Page> page(std::in_place);
    if (!fetch_into(*page)) return std::nullopt;
    return page;
  }

  /// fetch() into `page`; false after the last page (`page` untouched). A page that fails to decode leaves
  /// `page` empty, never half read.
  bool fetch_into(Page& page) {
    try {
      if (!pager_.next_page_into(page)) return false;
    } catch (...) {
      page = Page{};
      throw;
    }
    pages_fetched_.fetch_add(1, std::memory_order_relaxed);
    items_fetched_.fetch_add(static_cast<std::int64_t>(Traits::items(page).size()), std::memory_order_relaxed);
    if constexpr (requires { page.page.total_rows; }) {
      if (page.page.total_rows && total_rows_.load(std::memory_order_relaxed) < 0) {
        total_rows_.store(*page.page.total_rows, std::memory_order_relaxed);
      }
    }
    if (on_page_) report(page);
    return true;
  }

  void report(Page& page) {
    pybind11::gil_scoped_acquire gil;
    try {
      (*on_page_)(*page_facts(page));
    } catch (pybind11::error_already_set& error) {
      keep_callback_error(error, "trunk_api progress callback");
    }
  }

  std::shared_ptr<pybind11::object> on_page_;
  std::shared_ptr<Client> client_;  // the pager refers to it: keep it alive
  Pager<Page> pager_;
  std::optional<std::int64_t> max_results_;
  std::string query_;
  std::int64_t yielded_ = 0;
  // Mirrors for fetched(), which reads them without mutex_ (given_ follows yielded_).
  std::atomic<std::int64_t> pages_fetched_{0};
  std::atomic<std::int64_t> items_fetched_{0};
  std::atomic<std::int64_t> given_{0};
  std::atomic<std::int64_t> total_rows_{-1};
  bool started_ = false;
  Page current_{};
  std::size_t position_ = 0;
  std::mutex mutex_;  // two Python threads sharing one iterator must not walk the pager at once
};

/// The test listings' iterator, bound as _core.TestIterator.
using TestIterator = ListingIterator<TestPage>;

}  // namespace trunk::python
