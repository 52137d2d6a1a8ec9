// TestIterator's destructor. A pager may have a page prefetch in flight (trunk/pager.hpp); destroying it
// cancels that transfer and joins its thread. That thread may be blocked acquiring the GIL (the log callback
// forwards to Python), so joining it while holding the GIL would deadlock: the pager is destroyed with the
// GIL released.
#include <pybind11/pybind11.h>

#include <utility>

#include "test_iterator.hpp"

namespace py = pybind11;

namespace trunk::python {

TestIterator::~TestIterator() {
  if (PyGILState_Check() != 0) {
    py::gil_scoped_release release;
    TestPager dropped = std::move(pager_);  // moving abandons (cancels and joins) the prefetch here
  } else {
    TestPager dropped = std::move(pager_);
  }
}

}  // namespace trunk::python
