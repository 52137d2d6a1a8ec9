#pragma once
// The item types of the listings of operations.hpp, for bindings that take "a listing's items" from Python
// (the async listings and the windowed history hold Python objects) and must find the C++ type behind them; and
// what a listing's page tells a progress bar, in one place for the sync and the async listings.

#include <pybind11/pybind11.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>

#include "interrupt.hpp"
#include "py_client.hpp"
#include "trunk/operations.hpp"
#include "trunk/pager.hpp"

namespace trunk::python {

/// Calls f(std::type_identity<Item>{}) for the item type of every listing of operations.hpp (an item type
/// shared by several listings comes once per listing).
template <typename F>
void for_each_listing_item(F&& f) {
  for_each_operation([&](auto operation) {
    using Op = decltype(operation);
    if constexpr (requires { typename PageTraits<typename Op::Response>::Item; }) {
      f(std::type_identity<typename PageTraits<typename Op::Response>::Item>{});
    }
  });
}

/// Appends `items` to `list` as Python objects, moved out of their page (their strings and lists change owner, none
/// is copied). Needs the GIL.
template <class Item>
void append_moved(pybind11::list& list, std::span<Item> items) {
  for (Item& item : items) list.append(pybind11::cast(std::move(item)));
}

/// What a listing's page tells a progress bar, as its on_page(count, total or None, last) takes it: its item
/// count, the listing's total if the page says it, and whether it is the last page (is_last_page's rule).
/// Needs the GIL.
template <class Page>
pybind11::tuple page_facts(const Page& page) {
  const std::optional<std::int64_t> total = PageTraits<Page>::total(page);
  return pybind11::make_tuple(static_cast<std::int64_t>(PageTraits<Page>::items(page).size()),
                              total ? pybind11::object(pybind11::int_(*total)) : pybind11::object(pybind11::none()),
                              is_last_page(page));
}

/// A pager's counts as the notebook display reads them: (pages fetched, items in them, items given out, the
/// listing's total or None). Needs the GIL.
inline pybind11::tuple counts_tuple(const ListingCounts& counts) {
  return pybind11::make_tuple(counts.pages, counts.items, counts.given,
                              counts.total ? pybind11::object(pybind11::int_(*counts.total))
                                           : pybind11::object(pybind11::none()));
}

/// A Pager's on_page hook calling the Python progress reporter on_page(*page_facts(page)) with the GIL, once per
/// page fetched (never per item, so a listing without one pays nothing). An error it raises is reported as
/// unraisable (a broken progress bar must not lose the listing), except Ctrl-C's KeyboardInterrupt, which ends
/// the read as Ctrl-C does anywhere (keep_callback_error; the read runs in call_without_gil). The same hook for
/// the sync and the async listings.
template <class Page>
std::function<void(const Page&)> progress_hook(pybind11::object on_page) {
  if (on_page.is_none()) return {};
  return [held = hold_with_gil(std::move(on_page))](const Page& page) {
    pybind11::gil_scoped_acquire gil;
    try {
      (*held)(*page_facts(page));
    } catch (pybind11::error_already_set& error) {
      keep_callback_error(error, "trunk_api progress callback");
    }
  };
}

/// Gives a listing's pager the caller's max_results and progress reporter.
template <class Page>
void apply_listing_keywords(Pager<Page>& pager, ListingKeywords keywords) {
  if (keywords.max_results) pager.max_results(*keywords.max_results);
  if (!keywords.on_page.is_none()) pager.on_page(progress_hook<Page>(std::move(keywords.on_page)));
}

/// Drops a listing's pager with the GIL released when it is held: dropping its page pipeline takes the lock the
/// engine thread's completions take, and a thread holding the GIL must never wait for the engine thread (which may
/// itself be waiting for the GIL to log through Python or to resolve an async future).
template <class Pager>
void release_pager_without_gil(Pager& pager) {
  if (PyGILState_Check() != 0 && !interpreter_finalizing()) {
    pybind11::gil_scoped_release release;
    Pager dropped = std::move(pager);
  } else {
    Pager dropped = std::move(pager);
  }
}

}  // namespace trunk::python
