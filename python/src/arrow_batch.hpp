#pragma once
// A listing's items as one Arrow record batch, built in C++ and handed over through the Arrow C data interface
// (arrow_c_data.hpp): every column, strings included, is written straight into Arrow buffers, with no Python
// object per cell. The columns are the flat columns of to_pandas() (flat_fields.hpp), same names, same order;
// a list stays a list (codeowners: list<string>; most_common_failures: list<struct<summary, occurrence_count,
// last_occurrence>>). Plain C++ with no Python in it: building runs with the GIL released.

#include <cstdint>
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

/// The items as an Arrow record batch. Defined for the item type of every listing.
template <typename Item>
ArrowRecordBatch arrow_record_batch(const std::vector<Item>& items);

}  // namespace trunk::python
