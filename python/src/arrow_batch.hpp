#pragma once
// A listing's items as one Arrow record batch, built in C++ and handed over through the Arrow C data interface
// (arrow_c_data.hpp): every column, strings included, is written straight into Arrow buffers, with no Python
// object per cell. The columns are the flat columns of to_pandas() (flat_fields.hpp), same names, same order;
// a list stays a list (codeowners: list<string>; most_common_failures: list<struct<summary, occurrence_count,
// last_occurrence>>). Plain C++ with no Python in it: building runs with the GIL released.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "arrow_c_data.hpp"
#include "trunk/pull_request.hpp"
#include "trunk/quarantined_test.hpp"
#include "trunk/test_case.hpp"

namespace trunk::python {

/// An exported record batch: a struct-typed ArrowSchema and ArrowArray that own their buffers. Whoever takes
/// them (pyarrow, through the PyCapsules of bind_arrow.cpp) calls their release callbacks; what is still here
/// when the ArrowRecordBatch is destroyed is released then.
class ArrowRecordBatch {
 public:
  ArrowRecordBatch() = default;
  ArrowRecordBatch(ArrowSchema schema, ArrowArray array) noexcept : schema_(schema), array_(array) {}
  ArrowRecordBatch(ArrowRecordBatch&& other) noexcept;
  ArrowRecordBatch& operator=(ArrowRecordBatch&& other) noexcept;
  ArrowRecordBatch(const ArrowRecordBatch&) = delete;
  ArrowRecordBatch& operator=(const ArrowRecordBatch&) = delete;
  ~ArrowRecordBatch();

  /// The rows of the batch (0 once the array was taken).
  std::int64_t rows() const noexcept { return array_.release != nullptr ? array_.length : 0; }
  /// False once the schema or the array has been taken.
  bool whole() const noexcept { return schema_.release != nullptr && array_.release != nullptr; }

  /// Moves the schema / array out: the caller (or whoever it hands them to) now releases them.
  ArrowSchema take_schema() noexcept;
  ArrowArray take_array() noexcept;

 private:
  ArrowSchema schema_{};
  ArrowArray array_{};
};

/// A listing's record batch built a page at a time: append() each page's items as they arrive (and let the page
/// go), finish() once. A listing never holds all its items at once on the way to Arrow, and the columns of
/// one page are written while the next page is on its way. Defined for the item type of every listing.
template <typename Item>
class ArrowBatchBuilder {
 public:
  ArrowBatchBuilder();
  ~ArrowBatchBuilder();
  ArrowBatchBuilder(ArrowBatchBuilder&&) noexcept;
  ArrowBatchBuilder& operator=(ArrowBatchBuilder&&) noexcept;
  ArrowBatchBuilder(const ArrowBatchBuilder&) = delete;
  ArrowBatchBuilder& operator=(const ArrowBatchBuilder&) = delete;

  /// Appends rows; std::length_error when a list column would pass 2^31 elements.
  void append(std::span<const Item> items);
  /// Rows appended so far.
  std::int64_t rows() const noexcept;
  /// The batch of every row appended (text columns become large_utf8 only past 2 GiB). Once only: the builder is
  /// empty afterwards, and append() or finish() again is a std::logic_error.
  ArrowRecordBatch finish();

 private:
  struct Root;
  std::unique_ptr<Root> root_;
};

/// The items as an Arrow record batch (one ArrowBatchBuilder::append). Defined for the item type of every listing.
template <typename Item>
ArrowRecordBatch arrow_record_batch(const std::vector<Item>& items);

}  // namespace trunk::python
