// The listing iterators (listing_iterator.hpp) and their page views: one template, bound once per listing.
// Every listing of listings.hpp is bound here (bind_listing), from its row.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "bind_arrow.hpp"
#include "bindings.hpp"
#include "facade_hooks.hpp"
#include "to_columns.hpp"
#include "listing_iterator.hpp"
#include "trunk/listings.hpp"
#include "trunk/operations.hpp"
#include "trunk/pager.hpp"

namespace py = pybind11;

namespace trunk::python {

namespace {

/// The object `.pages` returns: iterating it yields the listing's pages, consuming the same iterator.
template <class Page>
struct PageView {
  std::shared_ptr<ListingIterator<Page>> iterator;
};

/// The rest of a listing in an Arrow-based form: each page goes into the columns as it arrives (while the
/// next one is fetched) and is let go, rather than collecting every item first.
template <class Page>
py::object listing_arrow(ListingIterator<Page>& listing, ArrowForm form) {
  using Item = typename ListingIterator<Page>::Item;
  ArrowBatchBuilder<Item> builder;
  listing.drain_pages([&](std::span<Item> page) { builder.append(page); });
  return arrow_result(std::move(builder), form);
}

/// Binds ListingIterator<Page> as `name` and its page view as `page_view_name`. `item` and `page` name the
/// Python classes of the items and pages in the docstrings.
template <class Page>
void bind_listing(py::module_& m, const char* name, const char* page_view_name, const std::string& item,
                  const std::string& page) {
  using Iterator = ListingIterator<Page>;
  const std::string doc = "Lazy iterator over the " + item + " items of every page of a listing. Iterate it for " +
                          item + " objects, or use .pages for " + page +
                          " objects, .to_list() or .to_pandas(); each continues where the previous one stopped, "
                          "and a finished listing yields nothing more.";
  py::class_<Iterator, std::shared_ptr<Iterator>>(m, name, doc.c_str())
      .def("__repr__", [name](const Iterator& self) {
        // What it will ask for (or has been asking for), without fetching: a notebook cell showing an iterator
        // says which query it is.
        return "<" + std::string(name) + " " + self.query() + (self.started() ? ", started" : ", not started") +
               ">";
      })
      .def_property_readonly("_fetched", [](const Iterator& self) {
        // Read without the iterator's lock and without fetching: a notebook displays it at any time.
        return counts_tuple(self.counts());
      }, "(pages fetched, items in them, items given out, the listing's total or None), for the notebook display.")
      .def("__iter__", [](const std::shared_ptr<Iterator>& self) {
        self->start();
        return self;
      })
      .def("__next__", [](Iterator& self) {
        if (!self.started()) self.start();
        auto item = self.next_item();
        if (!item) throw py::stop_iteration();
        return std::move(*item);
      })
      .def_property_readonly("pages", [](const std::shared_ptr<Iterator>& self) {
        self->start();
        return PageView<Page>{self};
      }, ("An iterator of " + page + " (one per page fetched); consumes this iterator.").c_str())
      .def("to_list", [](Iterator& self) {
        self.start();
        return self.drain_to_list();
      }, ("Every " + item + " of every remaining page as a list.").c_str())
      .def("to_columns", [](Iterator& self) {
        require_frame_libraries();  // the columns are numpy arrays: say what to install before consuming anything
        self.start();
        return columns_of(self.drain());
      }, "Every item as flat columns (kind, data, mask) for trunk_api._pandas.frame_from_columns; used by to_pandas().")
      .def("to_pandas", [](Iterator& self, const py::object& dtype_backend) {
        // Checked before start(): a wrong argument or a missing library leaves the listing unfetched and whole.
        if (const std::optional<ArrowForm> form = pandas_arrow_form(dtype_backend)) {
          require_arrow_libraries(arrow_form_name(*form));
          self.start();
          return listing_arrow(self, *form);
        }
        require_frame_libraries();
        self.start();
        py::dict columns = columns_of(self.drain());
        return frame_from_columns(columns);
      }, py::kw_only(), py::arg("dtype_backend") = py::none(),
         ("Every " + item + " as a pandas.DataFrame, one row each, flat columns built in C++. dtype_backend=None "
          "gives numpy-backed columns (string, Int64, boolean, float64, datetime64[us, UTC], lists as objects); "
          "\"pyarrow\" gives ArrowDtype columns made from to_arrow()'s table (lists stay Arrow lists).").c_str())
      .def("to_arrow", [](Iterator& self) {
        require_arrow_libraries(arrow_form_name(ArrowForm::table));
        self.start();
        return listing_arrow(self, ArrowForm::table);
      }, ("Every " + item + " as a pyarrow.Table with the columns of to_pandas(), filled in C++ through the Arrow "
          "C data interface (lists as Arrow lists, times as timestamp[us, UTC]). Needs pyarrow.").c_str())
      .def("to_polars", [](Iterator& self) {
        require_arrow_libraries(arrow_form_name(ArrowForm::polars));
        self.start();
        return listing_arrow(self, ArrowForm::polars);
      }, ("Every " + item + " as a polars.DataFrame with the columns of to_arrow(), imported from Arrow buffers "
          "built in C++. Needs polars.").c_str());

  m.attr(name).attr("__test__") = false;  // names like TestIterator would otherwise be collected by pytest

  py::class_<PageView<Page>> page_view(m, page_view_name, ("Iterator of " + page + " over a " + name + ".").c_str());
  // scripts/generate-stubs finds the page iterator of a listing iterator here.
  m.attr(name).attr("_page_view") = page_view;
  page_view
      .def("__iter__", [](py::handle self) { return py::reinterpret_borrow<py::object>(self); })
      .def("__next__", [](PageView<Page>& self) {
        std::optional<Page> next = self.iterator->next_page();
        if (!next) throw py::stop_iteration();
        return std::move(*next);
      });
}

}  // namespace

void bind_pager(py::module_& m) {
#define TRUNK_BIND_LISTING_(Page, iterator, page_iterator)                                                 \
  bind_listing<Page>(m, iterator, page_iterator, std::string(schema::Model<PageTraits<Page>::Item>::name), \
                     std::string(schema::Model<Page>::name));
  TRUNK_LISTING_PAGES(TRUNK_BIND_LISTING_)
#undef TRUNK_BIND_LISTING_

  // What trunk_api.AsyncClient's listings need besides their walk (AsyncPages_*), from the same PageTraits:
  // which operations are listings, their item type, and what a page tells a progress bar.
  m.def("listings", [] {
    py::dict listings;
    for_each_operation([&](auto operation) {
      using Op = decltype(operation);
      if constexpr (requires { PageTraits<typename Op::Response>::style; }) {
        listings[py::str(std::string(Op::name))] = py::type::of<typename PageTraits<typename Op::Response>::Item>();
      }
    });
    return listings;
  }, "{operation name: item type} of every listing operation.");
  m.def("iterators", [] {
    py::dict iterators;
    for_each_operation([&](auto operation) {
      using Op = decltype(operation);
      if constexpr (requires { PageTraits<typename Op::Response>::style; }) {
        iterators[py::str(iterator_method_name(Op::name))] = std::string(Op::name);
      }
    });
    return iterators;
  }, "{iterator method name: operation name} of every listing (iter_failing_tests: list_failing_tests).");
  m.def("page_facts", [](py::handle page) -> py::tuple {
    std::optional<py::tuple> facts;
    for_each_operation([&](auto operation) {
      using Response = typename decltype(operation)::Response;
      if constexpr (requires { PageTraits<Response>::style; }) {
        if (facts || !py::isinstance<Response>(page)) return;
        Response& typed = page.cast<Response&>();
        facts = page_facts(typed);
      }
    });
    if (!facts) throw py::type_error("page_facts: not a listing's page");
    return *facts;
  }, py::arg("page"), "(item count, total_rows or None, whether it is the listing's last page) of a listing's page, "
     "as the sync iterators report it to a progress bar (on_page's arguments, in order).");
}

}  // namespace trunk::python
