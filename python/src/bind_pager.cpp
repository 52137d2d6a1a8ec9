// _core.TestIterator and its page view (see test_iterator.hpp).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <utility>

#include "bindings.hpp"
#include "interrupt.hpp"
#include "test_iterator.hpp"
#include "to_columns.hpp"

namespace py = pybind11;

namespace trunk::python {

TestIterator::TestIterator(std::shared_ptr<Client> client, TestPager pager, std::optional<std::int64_t> max_results)
    : client_(std::move(client)), pager_(std::move(pager)), max_results_(max_results) {}

void TestIterator::start() {
  if (started_) throw py::value_error("Iterator has already started");
  started_ = true;
}

bool TestIterator::fill_current() {
  while (position_ >= current_.tests.size()) {
    std::optional<TestPage> page = pager_.next_page();
    if (!page) return false;
    current_ = std::move(*page);
    position_ = 0;
  }
  return true;
}

std::optional<TestCase> TestIterator::next_test() {
  // Fast path, GIL held: the current page still has a test. try_lock, never lock: a thread that holds mutex_
  // may be fetching without the GIL and need it back, so waiting here with the GIL could deadlock.
  if (mutex_.try_lock()) {
    std::lock_guard lock(mutex_, std::adopt_lock);
    if (limit_reached()) return std::nullopt;
    if (position_ < current_.tests.size()) {
      ++yielded_;
      return std::move(current_.tests[position_++]);
    }
  }
  // Slow path: a page must be fetched (or another thread is fetching); wait without the GIL.
  return call_without_gil([&]() -> std::optional<TestCase> {
    std::lock_guard lock(mutex_);
    if (limit_reached() || !fill_current()) return std::nullopt;
    ++yielded_;
    return std::move(current_.tests[position_++]);
  });
}

std::optional<TestPage> TestIterator::next_page() {
  return call_without_gil([&]() -> std::optional<TestPage> {
    std::lock_guard lock(mutex_);
    if (limit_reached()) return std::nullopt;
    std::optional<TestPage> page;
    if (position_ < current_.tests.size()) {
      // Tests of the current page not given out yet (iteration mixed with .pages is refused by start(), so
      // this only happens after a max_results cut); hand out what is left of it.
      page = std::move(current_);
      page->tests.erase(page->tests.begin(), page->tests.begin() + static_cast<std::ptrdiff_t>(position_));
      current_ = TestPage{};
      position_ = 0;
    } else {
      page = pager_.next_page();
      if (!page) return std::nullopt;
    }
    if (max_results_) {
      const auto room = static_cast<std::size_t>(*max_results_ - yielded_);
      if (page->tests.size() > room) page->tests.resize(room);
    }
    yielded_ += static_cast<std::int64_t>(page->tests.size());
    return page;
  });
}

std::vector<TestCase> TestIterator::drain() {
  return call_without_gil([&] {
    std::lock_guard lock(mutex_);
    std::vector<TestCase> tests;
    while (!limit_reached() && fill_current()) {
      auto first = current_.tests.begin() + static_cast<std::ptrdiff_t>(position_);
      std::size_t take = current_.tests.size() - position_;
      if (max_results_) take = std::min(take, static_cast<std::size_t>(*max_results_ - yielded_));
      tests.insert(tests.end(), std::make_move_iterator(first),
                   std::make_move_iterator(first + static_cast<std::ptrdiff_t>(take)));
      position_ += take;
      yielded_ += static_cast<std::int64_t>(take);
    }
    return tests;
  });
}

namespace {

/// The object `.pages` returns: iterating it yields TestPage, consuming the same TestIterator.
struct PageView {
  std::shared_ptr<TestIterator> iterator;
};

}  // namespace

void bind_pager(py::module_& m) {
  py::class_<TestIterator, std::shared_ptr<TestIterator>>(
      m, "TestIterator",
      "Lazy, single-use iterator over the tests of every page of a listing. Iterate it for TestCase objects, or "
      "use .pages for TestPage objects, .to_list() or .to_pandas(). Starting it a second time raises ValueError.")
      .def("__iter__", [](const std::shared_ptr<TestIterator>& self) {
        self->start();
        return self;
      })
      .def("__next__", [](TestIterator& self) {
        if (!self.started()) self.start();
        std::optional<TestCase> test = self.next_test();
        if (!test) throw py::stop_iteration();
        return std::move(*test);
      })
      .def_property_readonly("pages", [](const std::shared_ptr<TestIterator>& self) {
        self->start();
        return PageView{self};
      }, "An iterator of TestPage (one per page fetched); consumes this iterator.")
      .def("to_list", [](TestIterator& self) {
        self.start();
        return self.drain();
      }, "Every test of every remaining page as a list of TestCase.")
      .def("to_columns", [](TestIterator& self) {
        self.start();
        return test_columns(self.drain());
      }, "Every test as flat columns (see trunk_api._core.test_columns); used by to_pandas().")
      .def("to_pandas", [](TestIterator& self) {
        self.start();
        py::dict columns = test_columns(self.drain());
        return py::module_::import("trunk_api._pandas").attr("frame_from_columns")(columns);
      }, "Every test as a pandas.DataFrame, one row per test, flat columns built in C++.");

  m.attr("TestIterator").attr("__test__") = false;  // a name pytest would otherwise try to collect

  py::class_<PageView>(m, "PageIterator", "Iterator of TestPage over a TestIterator.")
      .def("__iter__", [](py::handle self) { return py::reinterpret_borrow<py::object>(self); })
      .def("__next__", [](PageView& self) {
        std::optional<TestPage> page = self.iterator->next_page();
        if (!page) throw py::stop_iteration();
        return std::move(*page);
      });
}

}  // namespace trunk::python
